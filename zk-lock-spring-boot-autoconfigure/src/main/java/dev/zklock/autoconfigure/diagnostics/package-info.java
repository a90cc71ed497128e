/**
 * Startup failures of zk-lock and their reports: the exceptions the auto-configuration
 * throws, each with the {@link org.springframework.boot.diagnostics.FailureAnalyzer} that
 * turns it into Spring Boot's "APPLICATION FAILED TO START" description and action, and
 * the analyzers of the declaration errors that {@code @DistributedLock} support reports.
 */
@NullMarked
package dev.zklock.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
