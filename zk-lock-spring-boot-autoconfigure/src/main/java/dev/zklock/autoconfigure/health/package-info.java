/**
 * Auto-configuration of the Actuator health contributor for the ZooKeeper session behind
 * zk-lock ({@link dev.zklock.health.ZkLockHealthIndicator}).
 */
@NullMarked
package dev.zklock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
