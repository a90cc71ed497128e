/**
 * Auto-configuration for zk-lock: the Curator client, the lock registry and
 * {@code @DistributedLock} support, configured under {@code zklock.*}.
 */
@NullMarked
package dev.zklock.autoconfigure;

import org.jspecify.annotations.NullMarked;
