package dev.zklock.autoconfigure.diagnostics;

import dev.zklock.aop.SelfInvocationException;
import dev.zklock.aop.SelfInvocationException.SelfCall;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a bean that calls its own {@code @DistributedLock},
 * {@code @DistributedSemaphore} or {@code @LeaderOnly} methods through {@code this} in
 * Spring Boot's "APPLICATION FAILED TO START" form: a description naming the bean and
 * listing every such call with its caller, source file and line, and the remedies as the
 * action.
 */
final class SelfInvocationFailureAnalyzer extends AbstractFailureAnalyzer<SelfInvocationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SelfInvocationException cause) {
		StringBuilder description = new StringBuilder(cause.getProblem()).append(System.lineSeparator());
		for (SelfCall call : cause.getCalls()) {
			description.append(System.lineSeparator()).append("\t- ").append(call.describe());
		}
		return new FailureAnalysis(description.toString(), cause.getAction() + ".", cause);
	}

}
