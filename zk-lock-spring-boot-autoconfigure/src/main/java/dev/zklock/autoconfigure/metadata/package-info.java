/**
 * The {@code zklock.*} properties that the modules on the classpath declare in their
 * configuration metadata, and the startup check that fails on a key none of them
 * declares, with its exception and failure analyzer.
 */
@NullMarked
package dev.zklock.autoconfigure.metadata;

import org.jspecify.annotations.NullMarked;
