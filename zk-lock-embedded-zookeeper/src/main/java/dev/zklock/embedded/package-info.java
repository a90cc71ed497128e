/**
 * An in-process ZooKeeper server for development and tests, switched on with
 * {@code zklock.embedded.enabled=true}: its auto-configuration, which points zk-lock's
 * client at it, the report of a port in use, and default log levels that keep ZooKeeper
 * quiet while it runs. A module of its own, dev.zklock:zk-lock-embedded-zookeeper, so
 * that the server and the libraries it needs stay out of applications that use a real
 * ensemble.
 */
@NullMarked
package dev.zklock.embedded;

import org.jspecify.annotations.NullMarked;
