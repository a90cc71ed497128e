/**
 * Tests that keep the repository's Markdown true to the code.
 */
package dev.zklock.docs;
