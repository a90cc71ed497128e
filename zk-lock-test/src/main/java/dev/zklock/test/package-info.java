/**
 * zk-lock's test kit: test your own locked code against a lost lock, an outage and a
 * paused holder. Start with {@link dev.zklock.test.ZkLockTestKit ZkLockTestKit}.
 * <p>
 * The names, each with one meaning here:
 * <ul>
 * <li><em>application</em>: the code under test and its registry, the Spring application
 * context's or, on a plain test class, the one the kit makes; it connects to the kit's
 * server through the fault proxy, and every fault of the kit is aimed at its client.</li>
 * <li><em>participant</em>: another instance in the same test, on a session of its own,
 * connected to the server directly, which no fault reaches.</li>
 * <li><em>fault</em>: something done to the application's client or to the server (an
 * expired session, a cut connection, delayed or lost replies, a stopped server, a held
 * node deleted, a paused holder); the kit lifts every fault after each test.</li>
 * <li><em>hook</em>: a test's action run on the application's thread that acquires a key,
 * inside the locked window, through
 * {@link dev.zklock.core.ZkLockListener#acquired(String, String)}.</li>
 * </ul>
 * <p>
 * {@link dev.zklock.test.InProcessZooKeeper}, {@link dev.zklock.test.ZkFaultProxy} and
 * {@link dev.zklock.test.ServerSideExpiry} are the parts the kit is made of, for tests
 * that need a server of their own or the proxy's finer faults.
 */
@NullMarked
package dev.zklock.test;

import org.jspecify.annotations.NullMarked;
