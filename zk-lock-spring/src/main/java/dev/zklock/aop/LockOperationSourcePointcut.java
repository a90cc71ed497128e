package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that have a lock operation, as Spring's
 * {@code CacheOperationSourcePointcut} matches cached methods: the class filter only
 * rules out classes that surely have no locked method, cheaply and without throwing; the
 * method matcher asks the {@link LockOperationSource}. Declarations are checked at
 * startup by {@link LockedBeanVerifier}, not here.
 */
final class LockOperationSourcePointcut extends StaticMethodMatcherPointcut {

	private final LockOperationSource operationSource;

	LockOperationSourcePointcut(LockOperationSource operationSource) {
		this.operationSource = operationSource;
		setClassFilter(new LockOperationSourceClassFilter());
	}

	LockOperationSource operationSource() {
		return this.operationSource;
	}

	@Override
	public boolean matches(Method method, @Nullable Class<?> targetClass) {
		return this.operationSource.getOperation(method, targetClass) != null;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof LockOperationSourcePointcut that
				&& this.operationSource.equals(that.operationSource));
	}

	@Override
	public int hashCode() {
		return LockOperationSourcePointcut.class.hashCode();
	}

	@Override
	public String toString() {
		return getClass().getName() + ": " + this.operationSource;
	}

	/**
	 * The cheap candidate check of the operation source.
	 */
	private final class LockOperationSourceClassFilter implements ClassFilter {

		@Override
		public boolean matches(Class<?> clazz) {
			return LockOperationSourcePointcut.this.operationSource.isCandidateClass(clazz);
		}

		private LockOperationSource operationSource() {
			return LockOperationSourcePointcut.this.operationSource;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return (this == other) || (other instanceof LockOperationSourceClassFilter that
					&& operationSource().equals(that.operationSource()));
		}

		@Override
		public int hashCode() {
			return LockOperationSourceClassFilter.class.hashCode();
		}

		@Override
		public String toString() {
			return LockOperationSourceClassFilter.class.getName() + ": " + operationSource();
		}

	}

}
