/**
 * AOP support for {@link dev.zklock.annotation.DistributedLock @DistributedLock} and
 * {@link dev.zklock.annotation.DistributedSemaphore @DistributedSemaphore}: one advisor
 * made of an annotation-matching pointcut and a method interceptor, built the way Spring
 * builds {@code @Transactional}.
 */
@NullMarked
package dev.zklock.aop;

import org.jspecify.annotations.NullMarked;
