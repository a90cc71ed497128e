/**
 * Benchmarks of zk-lock against plain Curator, Spring Integration's lock registry and
 * hand-written ZooKeeper locks, all against one standalone ZooKeeper in its own JVM. Run
 * {@link dev.zklock.benchmarks.BenchmarkMain}.
 */
@NullMarked
package dev.zklock.benchmarks;

import org.jspecify.annotations.NullMarked;
