/**
 * The {@link dev.zklock.annotation.DistributedLock @DistributedLock} and
 * {@link dev.zklock.annotation.DistributedSemaphore @DistributedSemaphore} annotations.
 */
@NullMarked
package dev.zklock.annotation;

import org.jspecify.annotations.NullMarked;
