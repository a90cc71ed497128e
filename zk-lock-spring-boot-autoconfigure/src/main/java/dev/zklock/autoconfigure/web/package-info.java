/**
 * RFC 9457 problem responses, with Spring MVC or WebFlux, for a
 * {@link dev.zklock.core.LockAcquisitionException} that the application does not handle
 * itself.
 */
@NullMarked
package dev.zklock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
