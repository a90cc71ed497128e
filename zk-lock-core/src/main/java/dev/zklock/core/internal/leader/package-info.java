/**
 * The engine behind {@link dev.zklock.core.leader leadership}: a candidate is a lease on
 * the group's exclusive lock, waited for without end on the candidate's own thread
 * ({@code DefaultLeaderCandidate}), and a term is one holding of it ({@code Term}).
 * <strong>Not API.</strong> The group's lock is taken through a mutex engine whose nodes
 * never linger, and only once per group in a registry, so that every term has a node of
 * its own and so a greater epoch.
 */
@NullMarked
package dev.zklock.core.internal.leader;

import org.jspecify.annotations.NullMarked;
