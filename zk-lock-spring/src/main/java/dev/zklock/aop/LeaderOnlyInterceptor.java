package dev.zklock.aop;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.leader.LeadershipLostException;
import dev.zklock.core.leader.TermEnd;
import dev.zklock.leadership.LeaderWork;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@code @LeaderOnly} method only where this instance leads its group: as leader
 * work admitted by {@link ZkLeadership#startWork}, open while the method runs; elsewhere
 * the call is skipped and returns what a skipped {@code onLocked = SKIP} call returns.
 * When the term is lost or in doubt while the method runs, its thread is interrupted, and
 * the call ends with a {@link LeadershipLostException} (the method's own exception
 * suppressed in it, its own interrupt cleared), as a {@code @DistributedLock(onLost =
 * INTERRUPT)} call ends with a {@code LockLostException}.
 *
 * <p>
 * For a leader-only component, it keeps the application context's hands off: the
 * context's {@code start()} and {@code stop()} do nothing and {@code isAutoStartup()} is
 * {@code false}, as the leadership starts and stops the component's target itself.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	private final LeaderOperationSource operationSource;

	private final Supplier<ZkLeadership> leadership;

	/** The groups known to be added to the leadership. */
	private final Set<String> groups = ConcurrentHashMap.newKeySet();

	/**
	 * @param leadership supplies the application's leadership, resolved on first use so
	 * that the advisor can be created before the ZooKeeper client
	 */
	LeaderOnlyInterceptor(LeaderOperationSource operationSource, Supplier<ZkLeadership> leadership) {
		this.operationSource = operationSource;
		this.leadership = leadership;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LeaderOperation operation = this.operationSource.getOperation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		return switch (operation.kind()) {
			case WORK -> work(operation, invocation);
			case AUTO_STARTUP -> false;
			case START, STOP -> {
				if (logger.isDebugEnabled()) {
					logger.debug("Ignored " + invocation.getMethod().getName() + "() of leader-only component "
							+ operation.targetClass().getName() + ": the leadership of group '" + operation.group()
							+ "' starts and stops it");
				}
				yield null;
			}
			case STOP_WITH_CALLBACK -> {
				Runnable callback = (Runnable) invocation.getArguments()[0];
				if (callback != null) {
					callback.run();
				}
				yield null;
			}
		};
	}

	private @Nullable Object work(LeaderOperation operation, MethodInvocation invocation) throws Throwable {
		ZkLeadership leadership = this.leadership.get();
		// Added at startup; unless called before, by a bean being initialized
		if (this.groups.add(operation.group())) {
			leadership.addGroup(operation.group());
		}
		LeaderWork work = leadership.startWork(operation.group());
		if (work == null) {
			if (logger.isTraceEnabled()) {
				logger.trace("Skipped " + operation.describeMethod() + ": this instance does not lead group '"
						+ operation.group() + "'");
			}
			return Objects.requireNonNull(operation.skip(), "leader work has a skip").nothing();
		}
		@Nullable Object result = null;
		Throwable failure = null;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
		}
		finally {
			work.close();
		}
		// Closed: the work is interrupted no more, so the interrupt, if any, was its own
		TermEnd stoppedBy = work.stoppedBy();
		if (stoppedBy != null) {
			Thread.interrupted();
			LeadershipLostException lost = new LeadershipLostException(work.group(), work.epoch(),
					why(stoppedBy) + " while " + operation.describeMethod() + " ran, and its thread was interrupted");
			if (failure != null) {
				lost.addSuppressed(failure);
			}
			throw lost;
		}
		if (failure != null) {
			throw failure;
		}
		return notDeferred(operation, result);
	}

	private static String why(TermEnd end) {
		return switch (end) {
			case LOST -> "the term's node was lost (the session expired, or another client deleted it)";
			case SUSPENDED -> "the connection was suspended, and the leader steps down then";
			case REVOKED, YIELDED, CLOSED -> "the leader handed over (" + end + ") and the hand-off timeout passed";
		};
	}

	/**
	 * A method declared to return a plain value (an {@code Object}, a type variable) may
	 * still return work that runs later, after the leader work ended: say so rather than
	 * let it run unwatched.
	 */
	private static @Nullable Object notDeferred(LeaderOperation operation, @Nullable Object result) {
		if (result == null || !ReturnTypes.isPendingWork(result)) {
			return result;
		}
		throw new IllegalStateException(operation.describeMethod() + " is declared to return "
				+ operation.method().getGenericReturnType().getTypeName() + " but returned a "
				+ result.getClass().getName() + ", whose work would run after its leader work ended, maybe while "
				+ "another instance leads; @LeaderOnly methods must finish their work before they return");
	}

}
