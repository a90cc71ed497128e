/**
 * Auto-configuration for zk-lock: the Curator client, the lock registry and
 * {@code @DistributedLock} support, configured under {@code zklock.*}. What applications
 * use sits here: {@link dev.zklock.autoconfigure.ZkLockProperties},
 * {@link dev.zklock.autoconfigure.ZkLockConnectionDetails} and
 * {@link dev.zklock.autoconfigure.CuratorFrameworkBuilderCustomizer}. Startup failures
 * and their reports are in {@code diagnostics}, the check of {@code zklock.*} keys in
 * {@code metadata}, log level defaults in {@code logging}, and each optional integration
 * (health, metrics, endpoint, web, integration, shedlock, testcontainers) in a package of
 * its own.
 */
@NullMarked
package dev.zklock.autoconfigure;

import org.jspecify.annotations.NullMarked;
