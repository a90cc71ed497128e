/**
 * Tests that keep zk-lock's layering: the rules ({@link LayeringRules}), applied to every
 * module's main classes and sources ({@link LayeringTests}), each seen to fail on a
 * deliberately broken fixture ({@link LayeringRulesBreakTests}), and the published jars'
 * module names ({@link PublishedJarsTests}).
 */
package dev.zklock.architecture;
