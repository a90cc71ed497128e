package dev.zklock.aop;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * The advisor for {@code @DistributedLock} and {@code @DistributedSemaphore}, one for
 * both as Spring has one for {@code @Cacheable} and its siblings: a pointcut that matches
 * locked methods (checking every declaration of a class when the class is first matched,
 * so that a declaration that cannot work fails the application's startup) and the
 * interceptor that holds the lock. Created by {@link ProxyDistributedLockConfiguration}.
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

	private final transient Pointcut pointcut;

	private final transient Advice advice;

	DistributedLockAdvisor(LockOperationSource operationSource, DistributedLockInterceptor interceptor, int order) {
		this.operationSource = operationSource;
		this.pointcut = new LockedMethodPointcut(operationSource);
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

	private static final class LockedMethodPointcut extends StaticMethodMatcherPointcut {

		private final LockOperationSource operationSource;

		LockedMethodPointcut(LockOperationSource operationSource) {
			this.operationSource = operationSource;
			setClassFilter(operationSource::hasLockedMethods);
		}

		@Override
		public boolean matches(Method method, @Nullable Class<?> targetClass) {
			return this.operationSource.getOperation(method, targetClass) != null;
		}

	}

}
