/**
 * An in-process ZooKeeper server for development and tests, switched on with
 * {@code zklock.embedded.enabled=true}.
 */
@NullMarked
package dev.zklock.autoconfigure.embedded;

import org.jspecify.annotations.NullMarked;
