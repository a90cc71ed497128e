package dev.zklock.core.registry;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.internal.mutex.MutexEntry;
import dev.zklock.core.internal.readwrite.ReadWriteEntry;

/**
 * Opens the registry's package-private test hooks to tests in other packages: the
 * registry sits in its own package, above the API and the engine, and its tests stay with
 * the API's.
 */
public final class RegistryAccess {

	private RegistryAccess() {
	}

	public static @Nullable MutexEntry mutexEntry(ZkLockRegistry registry, String key) {
		return registry.entry(key);
	}

	public static @Nullable ReadWriteEntry readWriteEntry(ZkLockRegistry registry, String key) {
		return registry.readWriteEntry(key);
	}

}
