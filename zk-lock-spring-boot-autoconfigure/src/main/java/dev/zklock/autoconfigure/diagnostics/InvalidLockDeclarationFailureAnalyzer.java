package dev.zklock.autoconfigure.diagnostics;

import dev.zklock.aop.InvalidLockDeclarationException;
import dev.zklock.core.LockPaths;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@code @DistributedLock}, {@code @DistributedSemaphore} or
 * {@code @LeaderOnly} (its group, proxying, return type, or a missing
 * {@code ZkLeadership} bean) that cannot work in Spring Boot's "APPLICATION FAILED TO
 * START" form: one description naming the annotation, class, method, key expression and
 * problem, and one action.
 */
final class InvalidLockDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockDeclarationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockDeclarationException cause) {
		StringBuilder description = new StringBuilder(cause.getAnnotation()).append(" on ")
			.append(cause.getMethod())
			.append(" cannot work");
		String expression = cause.getExpression();
		if (expression != null) {
			description.append(": its key expression \"").append(LockPaths.printable(expression)).append("\" ");
			description
				.append(cause.getProblem().startsWith("it ") ? cause.getProblem().substring(3) : cause.getProblem());
		}
		else {
			description.append(": ").append(cause.getProblem());
		}
		return new FailureAnalysis(description.append('.').toString(), cause.getAction() + ".", cause);
	}

}
