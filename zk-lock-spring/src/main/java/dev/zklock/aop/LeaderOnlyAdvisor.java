package dev.zklock.aop;

/**
 * The advisor for {@code @LeaderOnly}: a pointcut that matches the methods the operation
 * source finds a leader-only operation for, and the interceptor that runs them only on
 * the leader. A bean of {@link ProxyDistributedLockConfiguration}, made from its
 * operation source and interceptor beans.
 *
 * <p>
 * Ordered just before the {@code @DistributedLock} advisor, so that an instance that does
 * not lead neither takes the lock nor begins a transaction.
 *
 * @author zk-lock
 */
public final class LeaderOnlyAdvisor extends OperationSourceAdvisor<LeaderOperationSource> {

	private static final long serialVersionUID = 1L;

	LeaderOnlyAdvisor(LeaderOperationSource operationSource, LeaderOnlyInterceptor interceptor, int order) {
		super(operationSource, interceptor, order);
	}

}
