/**
 * {@link dev.zklock.template.ZkLockTemplate}: run code under a lock, observed.
 */
@NullMarked
package dev.zklock.template;

import org.jspecify.annotations.NullMarked;
