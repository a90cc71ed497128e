/**
 * Spring Integration on zk-lock: a
 * {@link org.springframework.integration.support.locks.LockRegistry LockRegistry} for
 * {@code LockRegistryLeaderInitiator}, aggregators and {@code executeLocked}. Needs
 * {@code spring-integration-core} on the class path.
 */
@NullMarked
package dev.zklock.integration;

import org.jspecify.annotations.NullMarked;
