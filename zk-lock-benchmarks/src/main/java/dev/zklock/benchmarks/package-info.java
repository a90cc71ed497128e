/**
 * Benchmarks of zk-lock against plain Curator, Spring Integration's lock registry and
 * hand-written ZooKeeper locks, against a standalone ZooKeeper in its own JVM and, for
 * the multi-JVM scenario, a three-server ensemble. Run
 * {@link dev.zklock.benchmarks.BenchmarkMain}.
 */
@NullMarked
package dev.zklock.benchmarks;

import org.jspecify.annotations.NullMarked;
