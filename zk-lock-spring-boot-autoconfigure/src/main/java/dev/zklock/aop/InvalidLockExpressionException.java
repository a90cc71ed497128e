package dev.zklock.aop;

/**
 * Thrown when a {@code @DistributedLock} declaration cannot work: its key expression does not
 * parse, refers to a parameter the method does not have, or its wait is invalid. Raised when
 * the bean is created, so the application fails to start rather than at the first call.
 *
 * @author zk-lock
 */
public class InvalidLockExpressionException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String method;

	private final String expression;

	/**
	 * Create a new instance.
	 * @param method the method, as {@code Class.method(ParamType, ...)}
	 * @param expression the key expression
	 * @param problem what is wrong, as a sentence
	 * @param cause the parser's exception, if any
	 */
	public InvalidLockExpressionException(String method, String expression, String problem,
			@org.jspecify.annotations.Nullable Throwable cause) {
		super("Invalid @DistributedLock on " + method + " with key expression \"" + expression + "\": " + problem,
				cause);
		this.method = method;
		this.expression = expression;
	}

	/**
	 * Return the method, as {@code Class.method(ParamType, ...)}.
	 * @return the method
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Return the key expression.
	 * @return the expression
	 */
	public String getExpression() {
		return this.expression;
	}

}
