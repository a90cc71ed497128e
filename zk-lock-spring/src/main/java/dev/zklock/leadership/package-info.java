/**
 * Leadership for Spring applications: {@link dev.zklock.leadership.ZkLeadership} joins
 * this instance's groups when the application starts, runs leader work only while a term
 * goes on, starts and stops leader-only components with the term, and tells the
 * application through events.
 *
 * <h2>Vocabulary</h2> The engine's words ({@code dev.zklock.core.leader}: group,
 * candidate, term, epoch, member, hand-off) keep their meaning here; this package adds
 * these.
 * <dl>
 * <dt>leader work</dt>
 * <dd>One call that runs because this instance leads
 * ({@link dev.zklock.leadership.LeaderWork}): a {@code @LeaderOnly} method, or code run
 * through {@link dev.zklock.leadership.ZkLeadership#startWork}. It is admitted only while
 * a term goes on; it is interrupted at once when the term's node is lost or in doubt, and
 * waited for, up to the hand-off timeout, when the leader hands over.</dd>
 * <dt>leader context</dt>
 * <dd>Leader work seen from inside it ({@link dev.zklock.leadership.LeaderContext}): the
 * group, the epoch, whether the term goes on.</dd>
 * <dt>leader-only component</dt>
 * <dd>A {@link org.springframework.context.Lifecycle} bean started when a term begins and
 * stopped when it ends, instead of with the application.</dd>
 * <dt>drain</dt>
 * <dd>Between the end of a term handed over and the delete of its node: no new leader
 * work is admitted, the leader-only components stop, and the leader work that runs is
 * waited for.</dd>
 * </dl>
 */
@NullMarked
package dev.zklock.leadership;

import org.jspecify.annotations.NullMarked;
