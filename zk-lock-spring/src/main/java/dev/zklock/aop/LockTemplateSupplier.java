package dev.zklock.aop;

import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.MinimumHoldScheduler;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.function.SingletonSupplier;

/**
 * Supplies the template that locked calls run through, resolved at the first call: the
 * application's {@link ZkLockTemplate}, or one of our own made from its
 * {@link ZkLockRegistry}. The application's template is a bean, stopped and closed with
 * the context; our own is stopped and closed here in the same way, so that its minimum
 * holds outlive a graceful shutdown too.
 */
final class LockTemplateSupplier implements Supplier<ZkLockTemplate>, SmartLifecycle, DisposableBean {

	private final SingletonSupplier<ZkLockTemplate> template;

	private volatile @Nullable ZkLockTemplate own;

	LockTemplateSupplier(ObjectProvider<ZkLockTemplate> template, ObjectProvider<ZkLockRegistry> registry,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<ZkLockAcquireObservationConvention> acquireObservationConvention,
			ObjectProvider<ZkLockHeldObservationConvention> heldObservationConvention) {
		this.template = SingletonSupplier.of(() -> template.getIfUnique(() -> {
			ZkLockTemplate own = new ZkLockTemplate(registry.getObject(),
					observationRegistry.getIfAvailable(() -> ObservationRegistry.NOOP));
			acquireObservationConvention.ifAvailable(own::setAcquireObservationConvention);
			heldObservationConvention.ifAvailable(own::setHeldObservationConvention);
			this.own = own;
			return own;
		}));
	}

	@Override
	public ZkLockTemplate get() {
		return this.template.obtain();
	}

	@Override
	public void start() {
		ZkLockTemplate own = this.own;
		if (own != null) {
			own.start();
		}
	}

	@Override
	public void stop(Runnable callback) {
		ZkLockTemplate own = this.own;
		if (own != null) {
			own.stop(callback);
		}
		else {
			callback.run();
		}
	}

	@Override
	public void stop() {
		ZkLockTemplate own = this.own;
		if (own != null) {
			own.stop();
		}
	}

	/**
	 * Return whether our own template exists and runs: only then is there anything to
	 * stop.
	 */
	@Override
	public boolean isRunning() {
		ZkLockTemplate own = this.own;
		return own != null && own.isRunning();
	}

	@Override
	public int getPhase() {
		return MinimumHoldScheduler.SHUTDOWN_PHASE;
	}

	@Override
	public void destroy() {
		ZkLockTemplate own = this.own;
		if (own != null) {
			own.close();
		}
	}

}
