/**
 * Actuator health for the ZooKeeper session behind zk-lock. Its auto-configuration is in
 * {@code dev.zklock.autoconfigure.health}.
 */
@NullMarked
package dev.zklock.health;

import org.jspecify.annotations.NullMarked;
