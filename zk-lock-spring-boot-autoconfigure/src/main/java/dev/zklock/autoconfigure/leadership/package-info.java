/**
 * Auto-configuration of leader election: the {@code ZkLeadership} bean, set from
 * {@code zklock.leadership.*}.
 */
@NullMarked
package dev.zklock.autoconfigure.leadership;

import org.jspecify.annotations.NullMarked;
