/**
 * Actuator health for the ZooKeeper session behind zk-lock.
 */
@NullMarked
package dev.zklock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
