package dev.zklock.aop;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * What zk-lock's advisors share: a pointcut that matches the methods an operation source
 * finds an operation for, and the interceptor that applies it, in a given order.
 *
 * @param <S> the operation source
 * @author zk-lock
 */
abstract class OperationSourceAdvisor<S extends ProxiedMethodSource> extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient S operationSource;

	private final transient OperationSourcePointcut pointcut;

	private final transient Advice advice;

	OperationSourceAdvisor(S operationSource, Advice interceptor, int order) {
		this.operationSource = operationSource;
		this.pointcut = new OperationSourcePointcut(operationSource);
		this.advice = interceptor;
		setOrder(order);
	}

	S operationSource() {
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
