/**
 * The {@code zklocks} Actuator endpoint: who holds and waits for which lock.
 */
@NullMarked
package dev.zklock.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
