package dev.zklock.aop;

import java.time.Duration;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;

import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@code @DistributedLock} method while holding the lock for its key: evaluates the key,
 * acquires within the method's wait, proceeds, and releases however the method ends.
 *
 * @author zk-lock
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private final LockOperationSource operationSource;

	private final LockKeyExpressionEvaluator evaluator;

	private final Supplier<ZkLockRegistry> registry;

	/**
	 * Create a new instance.
	 * @param operationSource the source of lock operations
	 * @param evaluator the key expression evaluator
	 * @param registry supplies the registry, resolved on first use so the advisor can be
	 * created before the ZooKeeper client
	 */
	public DistributedLockInterceptor(LockOperationSource operationSource, LockKeyExpressionEvaluator evaluator,
			Supplier<ZkLockRegistry> registry) {
		this.operationSource = operationSource;
		this.evaluator = evaluator;
		this.registry = registry;
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
		ZkLockRegistry registry = this.registry.get();
		Duration wait = (operation.waitMs() < 0) ? registry.getOptions().defaultWait()
				: Duration.ofMillis(operation.waitMs());
		ZkLock lock = registry.obtain(key);
		lock.acquire(wait);
		Throwable failure = null;
		try {
			return invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			release(lock, failure);
		}
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

	/**
	 * Release; a failure to release (a lost lease) must not hide the method's own exception.
	 */
	private void release(ZkLock lock, @Nullable Throwable failure) {
		try {
			lock.unlock();
		}
		catch (RuntimeException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
	}

}
