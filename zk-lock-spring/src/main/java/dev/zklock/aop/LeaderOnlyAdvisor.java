package dev.zklock.aop;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

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
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient LeaderOperationSource operationSource;

	private final transient OperationSourcePointcut pointcut;

	private final transient Advice advice;

	LeaderOnlyAdvisor(LeaderOperationSource operationSource, LeaderOnlyInterceptor interceptor, int order) {
		this.operationSource = operationSource;
		this.pointcut = new OperationSourcePointcut(operationSource);
		this.advice = interceptor;
		setOrder(order);
	}

	LeaderOperationSource operationSource() {
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
