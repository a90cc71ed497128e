/**
 * Auto-configuration of a Spring Integration {@code LockRegistry} backed by zk-lock.
 */
@NullMarked
package dev.zklock.autoconfigure.integration;

import org.jspecify.annotations.NullMarked;
