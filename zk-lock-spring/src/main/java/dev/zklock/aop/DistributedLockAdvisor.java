package dev.zklock.aop;

/**
 * The advisor for {@code @DistributedLock} and {@code @DistributedSemaphore}, one for
 * both as Spring has one for {@code @Cacheable} and its siblings: a pointcut that matches
 * the methods the operation source finds a lock operation for, and the interceptor that
 * holds the lock. A bean of {@link ProxyDistributedLockConfiguration}, made from its
 * operation source and interceptor beans.
 *
 * <p>
 * Ordered just before {@code @Transactional}'s advisor by default, so the lock is taken
 * before the transaction begins and released after it ends.
 *
 * @author zk-lock
 */
public final class DistributedLockAdvisor extends OperationSourceAdvisor<LockOperationSource> {

	private static final long serialVersionUID = 1L;

	DistributedLockAdvisor(LockOperationSource operationSource, DistributedLockInterceptor interceptor, int order) {
		super(operationSource, interceptor, order);
	}

}
