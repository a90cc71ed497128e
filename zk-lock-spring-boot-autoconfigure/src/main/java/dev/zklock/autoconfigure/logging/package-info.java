/**
 * zk-lock's logging defaults: the {@code logging.level.*} values that keep the ZooKeeper
 * client's and Curator's routine lines out of the log, and the listener that logs the
 * Curator errors those levels would hide.
 */
@NullMarked
package dev.zklock.autoconfigure.logging;

import org.jspecify.annotations.NullMarked;
