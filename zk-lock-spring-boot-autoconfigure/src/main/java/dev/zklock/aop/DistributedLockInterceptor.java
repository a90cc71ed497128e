package dev.zklock.aop;

import java.time.Duration;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@code @DistributedLock} method while holding the lock for its key: evaluates the key,
 * then lets the {@link ZkLockTemplate} acquire within the method's wait, proceed, and release
 * however the method ends. The key expression names the lock in metrics.
 *
 * @author zk-lock
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private final LockOperationSource operationSource;

	private final LockKeyExpressionEvaluator evaluator;

	private final Supplier<ZkLockTemplate> template;

	/**
	 * Create a new instance.
	 * @param operationSource the source of lock operations
	 * @param evaluator the key expression evaluator
	 * @param template supplies the template, resolved on first use so the advisor can be
	 * created before the ZooKeeper client
	 */
	public DistributedLockInterceptor(LockOperationSource operationSource, LockKeyExpressionEvaluator evaluator,
			Supplier<ZkLockTemplate> template) {
		this.operationSource = operationSource;
		this.evaluator = evaluator;
		this.template = template;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operationSource.getOperation(invocation.getMethod(), targetClass);
		if (operation == null || target == null) {
			return invocation.proceed();
		}
		String key = evaluateKey(operation, invocation.getArguments(), target);
		Duration wait = (operation.waitMs() < 0) ? null : Duration.ofMillis(operation.waitMs());
		return this.template.get().execute(operation.keyExpression(), key, wait, invocation::proceed);
	}

	private String evaluateKey(LockOperation operation, Object[] args, Object target) {
		Object value = this.evaluator.evaluate(operation, args, target);
		if (value == null || value.toString().isBlank()) {
			throw new IllegalArgumentException("@DistributedLock key expression \"" + operation.keyExpression()
					+ "\" on " + operation.describeMethod() + " evaluated to "
					+ ((value == null) ? "null" : "'" + value + "'") + "; a lock key must not be null or blank");
		}
		String key = value.toString();
		try {
			LockPaths.validateKey(key);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("@DistributedLock key expression \"" + operation.keyExpression()
					+ "\" on " + operation.describeMethod() + " gave an invalid key: " + ex.getMessage(), ex);
		}
		return key;
	}

}
