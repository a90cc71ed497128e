/**
 * The zk-lock sample: a shop, an oversell demo, on an embedded ZooKeeper.
 */
@NullMarked
package dev.zklock.sample;

import org.jspecify.annotations.NullMarked;
