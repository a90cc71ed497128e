/**
 * What the documentation's Java snippets use without declaring it: the shop's types, and
 * the fields and methods of the class a snippet is written in.
 */
package dev.zklock.docs.support;
