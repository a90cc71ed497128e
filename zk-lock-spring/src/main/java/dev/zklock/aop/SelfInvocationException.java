package dev.zklock.aop;

import java.util.List;

import dev.zklock.annotation.UnlockedSelfCall;

/**
 * Thrown when a bean calls one of its own {@code @DistributedLock},
 * {@code @DistributedSemaphore} or {@code @LeaderOnly} methods through {@code this}: the
 * call does not go through the proxy that takes the lock (or checks leadership), so the
 * method would run without it (or on every instance). Raised when the bean is created,
 * from what its class files say, so the application fails to start rather than running
 * the method unlocked. Lists every such call of the bean's class, its superclasses and
 * the inner, local and anonymous classes written in them; calls declared deliberate with
 * {@link UnlockedSelfCall @UnlockedSelfCall} are not listed.
 *
 * @author zk-lock
 */
public class SelfInvocationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private static final String LEADER_ONLY = "@LeaderOnly";

	private final String beanName;

	private final String beanClassName;

	private final List<SelfCall> calls;

	/**
	 * Create a new instance.
	 * @param beanName the bean's name
	 * @param beanClassName the bean's class
	 * @param calls the calls, at least one
	 */
	public SelfInvocationException(String beanName, String beanClassName, List<SelfCall> calls) {
		super(message(beanName, beanClassName, calls));
		this.beanName = beanName;
		this.beanClassName = beanClassName;
		this.calls = List.copyOf(calls);
	}

	private static String message(String beanName, String beanClassName, List<SelfCall> calls) {
		StringBuilder message = new StringBuilder(problem(beanName, beanClassName, calls));
		for (SelfCall call : calls) {
			message.append(System.lineSeparator()).append("\t- ").append(call.describe());
		}
		return message.append(System.lineSeparator()).append(action(calls)).toString();
	}

	private static String problem(String beanName, String beanClassName, List<SelfCall> calls) {
		boolean leaderOnly = calls.stream().anyMatch(SelfCall::isLeaderOnly);
		boolean locked = calls.stream().anyMatch((call) -> !call.isLeaderOnly());
		String bean = "The bean '" + beanName + "' (" + beanClassName + ") calls its own ";
		if (!leaderOnly) {
			return bean + "locked methods through 'this', "
					+ "which does not go through the proxy that takes their locks, so they would run without them:";
		}
		if (!locked) {
			return bean + LEADER_ONLY + " methods through 'this', which does not go through the proxy that "
					+ "checks leadership, so they would run on every instance, not only on the leader:";
		}
		return bean + "locked and " + LEADER_ONLY + " methods through 'this', which does not go through the "
				+ "proxy that applies them, so they would run without their lock, or on every instance:";
	}

	private static String action(List<SelfCall> calls) {
		SelfCall first = calls.get(0);
		String instead = first.isLeaderOnly() ? "Make the caller " + LEADER_ONLY + " instead"
				: "Lock the caller instead";
		String meant = first.isLeaderOnly() ? "to run on every instance" : "to run without its lock";
		return instead + ", or call through the proxy: inject the bean into itself (@Lazy, or "
				+ "ObjectProvider) and call the method on that reference, e.g. self." + first.lockedMethodName()
				+ "(...). If a call is meant " + meant + ", say so at the caller with @"
				+ UnlockedSelfCall.class.getSimpleName() + "(\"" + first.lockedMethodName() + "\")";
	}

	/**
	 * Return the name of the bean that calls itself.
	 * @return the bean's name
	 */
	public String getBeanName() {
		return this.beanName;
	}

	/**
	 * Return the class of the bean that calls itself.
	 * @return the class name
	 */
	public String getBeanClassName() {
		return this.beanClassName;
	}

	/**
	 * Return every call of the bean to its own locked methods through {@code this}.
	 * @return the calls, in the order of the class files
	 */
	public List<SelfCall> getCalls() {
		return this.calls;
	}

	/**
	 * Return what is wrong, as a sentence, before the list of calls.
	 * @return the problem
	 */
	public String getProblem() {
		return problem(this.beanName, this.beanClassName, this.calls);
	}

	/**
	 * Return what to do about it, as sentences.
	 * @return the action
	 */
	public String getAction() {
		return action(this.calls);
	}

	/**
	 * One call from a bean to one of its own locked methods through {@code this}.
	 *
	 * @param caller the method that makes the call, as
	 * {@code Class.method(ParamType, ...)}, with how it makes it when that is not a plain
	 * call: in a lambda, through a method reference, or from an inner, local or anonymous
	 * class
	 * @param location where the call is, as {@code File.java:line}, as far as the class
	 * file says
	 * @param annotation the locked method's annotation, as {@code @DistributedLock}
	 * @param lockedMethod the locked method, as {@code Class.method(ParamType, ...)}
	 * @param lockedMethodName the locked method's name, as
	 * {@link UnlockedSelfCall @UnlockedSelfCall} takes it
	 */
	public record SelfCall(String caller, String location, String annotation, String lockedMethod,
			String lockedMethodName) {

		/**
		 * Describe the call in one line.
		 * @return the description
		 */
		public String describe() {
			return this.caller + " (" + this.location + ") calls " + this.annotation + " " + this.lockedMethod;
		}

		/**
		 * Return whether the called method is {@code @LeaderOnly} rather than locked.
		 * @return whether it is leader-only
		 */
		public boolean isLeaderOnly() {
			return LEADER_ONLY.equals(this.annotation);
		}

	}

}
