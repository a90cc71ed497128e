/**
 * Auto-configuration of a ShedLock {@code LockProvider} backed by zk-lock.
 */
@NullMarked
package dev.zklock.autoconfigure.shedlock;

import org.jspecify.annotations.NullMarked;
