package dev.zklock.aop;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.DistributedLock;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The pointcut of the {@code @DistributedLock} advisor is Spring's shape: a class filter
 * that only rules out classes cheaply and never throws (declarations are checked by the
 * verifier at startup), and equality by operation source, so that Spring can tell two
 * advisors over one source apart from two different ones.
 */
class OperationSourcePointcutTests {

	private final LockOperationSource source = new LockOperationSource(
			new LockOperationParser(new DefaultListableBeanFactory()));

	@Test
	void classFilterDoesNotCheckDeclarations() {
		OperationSourcePointcut pointcut = new OperationSourcePointcut(this.source);
		assertThat(pointcut.getClassFilter().matches(PrivateMethod.class)).isTrue();
		assertThat(pointcut.getClassFilter().matches(String.class)).isFalse();
		// The declaration is checked when its operation is asked for
		assertThatExceptionOfType(InvalidLockDeclarationException.class)
			.isThrownBy(() -> this.source.lockedOperations(PrivateMethod.class))
			.withMessageContaining("the method is private");
	}

	@Test
	void methodMatcherMatchesLockedMethods() throws Exception {
		OperationSourcePointcut pointcut = new OperationSourcePointcut(this.source);
		assertThat(pointcut.getMethodMatcher().matches(Locked.class.getMethod("run"), Locked.class)).isTrue();
		assertThat(pointcut.getMethodMatcher().matches(Locked.class.getMethod("other"), Locked.class)).isFalse();
	}

	@Test
	void equalByOperationSource() {
		OperationSourcePointcut pointcut = new OperationSourcePointcut(this.source);
		OperationSourcePointcut sameSource = new OperationSourcePointcut(this.source);
		OperationSourcePointcut otherSource = new OperationSourcePointcut(
				new LockOperationSource(new LockOperationParser(null)));
		assertThat(pointcut).isEqualTo(sameSource).hasSameHashCodeAs(sameSource).isNotEqualTo(otherSource);
		assertThat(pointcut.getClassFilter()).isEqualTo(sameSource.getClassFilter())
			.hasSameHashCodeAs(sameSource.getClassFilter())
			.isNotEqualTo(otherSource.getClassFilter());
	}

	public static class PrivateMethod {

		@DistributedLock(key = "'k'")
		private void run() {
		}

	}

	public static class Locked {

		@DistributedLock(key = "'k'")
		public void run() {
		}

		public void other() {
		}

	}

}
