package dev.zklock.core.internal;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.ZkLockListener;

/**
 * The listeners of a registry. Each is told in turn and on its own: one that throws is
 * logged and the others are still told, and the engine has already changed its own state
 * before any is called, so no listener can stop the engine from tracking its nodes.
 */
public final class ZkLockListeners {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockListeners.class);

	private final List<ZkLockListener> listeners = new CopyOnWriteArrayList<>();

	public void add(ZkLockListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
	}

	public void remove(ZkLockListener listener) {
		this.listeners.remove(listener);
	}

	/**
	 * Tell every listener of an event.
	 * @param event the call to make on each listener
	 * @param description what happened, for the log line of a listener that throws
	 */
	public void tell(Consumer<ZkLockListener> event, String description) {
		for (ZkLockListener listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (VirtualMachineError ex) {
				throw ex;
			}
			catch (Throwable ex) {
				logger.warn("ZkLockListener {} threw while being told that {}; the lock state is not affected",
						listener, description, ex);
			}
		}
	}

}
