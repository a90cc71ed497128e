/**
 * The cluster view's machinery: the reader of one view ({@code ClusterReader}), the
 * report an instance publishes of itself ({@code InstanceReport}) and its publisher
 * ({@code InstanceReporter}). <strong>Not API</strong>. The vocabulary is
 * {@link dev.zklock.core.view}'s.
 */
@NullMarked
package dev.zklock.core.internal.view;

import org.jspecify.annotations.NullMarked;
