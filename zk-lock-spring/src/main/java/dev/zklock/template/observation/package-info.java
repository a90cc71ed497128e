/**
 * The observations of {@link dev.zklock.template.ZkLockTemplate}, in Spring's shape:
 * their {@link dev.zklock.template.observation.ZkLockObservationDocumentation
 * documentation}, their {@link dev.zklock.template.observation.ZkLockObservationContext
 * context}, and the conventions that name and tag them, which an application may replace.
 */
@NullMarked
package dev.zklock.template.observation;

import org.jspecify.annotations.NullMarked;
