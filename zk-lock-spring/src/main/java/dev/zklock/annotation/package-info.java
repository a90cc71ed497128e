/**
 * The {@link dev.zklock.annotation.DistributedLock @DistributedLock} annotation.
 */
@NullMarked
package dev.zklock.annotation;

import org.jspecify.annotations.NullMarked;
