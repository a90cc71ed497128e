/**
 * Testcontainers {@code @ServiceConnection} support for ZooKeeper.
 */
@NullMarked
package dev.zklock.autoconfigure.testcontainers;

import org.jspecify.annotations.NullMarked;
