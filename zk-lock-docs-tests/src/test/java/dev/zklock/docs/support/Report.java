package dev.zklock.docs.support;

/**
 * A type of the reader's application that the documentation's snippets use.
 */
public class Report {

}
