/**
 * Auto-configuration of the cluster view: this instance's report for other instances'
 * views, and the switch that exposes the {@code zkcluster} endpoint.
 */
@NullMarked
package dev.zklock.autoconfigure.view;

import org.jspecify.annotations.NullMarked;
