/**
 * The {@link dev.zklock.annotation.DistributedLock @DistributedLock},
 * {@link dev.zklock.annotation.DistributedSemaphore @DistributedSemaphore} and
 * {@link dev.zklock.annotation.LeaderOnly @LeaderOnly} annotations.
 */
@NullMarked
package dev.zklock.annotation;

import org.jspecify.annotations.NullMarked;
