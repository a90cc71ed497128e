package dev.zklock.aop;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

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
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient LockOperationSource operationSource;

	private final transient OperationSourcePointcut pointcut;

	private final transient Advice advice;

	DistributedLockAdvisor(LockOperationSource operationSource, DistributedLockInterceptor interceptor, int order) {
		this.operationSource = operationSource;
		this.pointcut = new OperationSourcePointcut(operationSource);
		this.advice = interceptor;
		setOrder(order);
	}

	LockOperationSource operationSource() {
		return this.operationSource;
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

}
