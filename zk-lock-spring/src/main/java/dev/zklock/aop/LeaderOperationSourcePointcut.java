package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that have a {@code @LeaderOnly} operation, as
 * {@link LockOperationSourcePointcut} matches locked methods: the class filter only rules
 * out classes that surely have no leader-only method, cheaply and without throwing; the
 * method matcher asks the {@link LeaderOperationSource}. Declarations are checked at
 * startup by {@link LockedBeanVerifier}, not here.
 */
final class LeaderOperationSourcePointcut extends StaticMethodMatcherPointcut {

	private final LeaderOperationSource operationSource;

	LeaderOperationSourcePointcut(LeaderOperationSource operationSource) {
		this.operationSource = operationSource;
		setClassFilter(new LeaderOperationSourceClassFilter());
	}

	LeaderOperationSource operationSource() {
		return this.operationSource;
	}

	@Override
	public boolean matches(Method method, @Nullable Class<?> targetClass) {
		return this.operationSource.getOperation(method, targetClass) != null;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof LeaderOperationSourcePointcut that
				&& this.operationSource.equals(that.operationSource));
	}

	@Override
	public int hashCode() {
		return LeaderOperationSourcePointcut.class.hashCode();
	}

	@Override
	public String toString() {
		return getClass().getName() + ": " + this.operationSource;
	}

	/**
	 * The cheap candidate check of the operation source.
	 */
	private final class LeaderOperationSourceClassFilter implements ClassFilter {

		@Override
		public boolean matches(Class<?> clazz) {
			return LeaderOperationSourcePointcut.this.operationSource.isCandidateClass(clazz);
		}

		private LeaderOperationSource operationSource() {
			return LeaderOperationSourcePointcut.this.operationSource;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return (this == other) || (other instanceof LeaderOperationSourceClassFilter that
					&& operationSource().equals(that.operationSource()));
		}

		@Override
		public int hashCode() {
			return LeaderOperationSourceClassFilter.class.hashCode();
		}

		@Override
		public String toString() {
			return LeaderOperationSourceClassFilter.class.getName() + ": " + operationSource();
		}

	}

}
