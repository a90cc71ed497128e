package dev.zklock.benchmarks;

/**
 * One thread's handle on a lock implementation under test.
 */
interface Contender {

	void lock() throws Exception;

	void unlock() throws Exception;

}
