package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that have an operation of one annotation (a lock operation, or a
 * leader-only one), as Spring's {@code CacheOperationSourcePointcut} matches cached
 * methods: the class filter only rules out classes that surely have no such method,
 * cheaply and without throwing; the method matcher asks the operation source. One class
 * for both annotations, each advisor with its own source. Declarations are checked at
 * startup by {@link LockedBeanVerifier}, not here.
 */
final class OperationSourcePointcut extends StaticMethodMatcherPointcut {

	private final ProxiedMethodSource operationSource;

	OperationSourcePointcut(ProxiedMethodSource operationSource) {
		this.operationSource = operationSource;
		setClassFilter(new OperationSourceClassFilter());
	}

	ProxiedMethodSource operationSource() {
		return this.operationSource;
	}

	@Override
	public boolean matches(Method method, @Nullable Class<?> targetClass) {
		return this.operationSource.getOperation(method, targetClass) != null;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other)
				|| (other instanceof OperationSourcePointcut that && this.operationSource.equals(that.operationSource));
	}

	@Override
	public int hashCode() {
		return OperationSourcePointcut.class.hashCode();
	}

	@Override
	public String toString() {
		return getClass().getName() + ": " + this.operationSource;
	}

	/**
	 * The cheap candidate check of the operation source.
	 */
	private final class OperationSourceClassFilter implements ClassFilter {

		@Override
		public boolean matches(Class<?> clazz) {
			return OperationSourcePointcut.this.operationSource.isCandidateClass(clazz);
		}

		private ProxiedMethodSource operationSource() {
			return OperationSourcePointcut.this.operationSource;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return (this == other) || (other instanceof OperationSourceClassFilter that
					&& operationSource().equals(that.operationSource()));
		}

		@Override
		public int hashCode() {
			return OperationSourceClassFilter.class.hashCode();
		}

		@Override
		public String toString() {
			return OperationSourceClassFilter.class.getName() + ": " + operationSource();
		}

	}

}
