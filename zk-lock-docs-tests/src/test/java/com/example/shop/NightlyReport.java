package com.example.shop;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;

/**
 * A job every instance runs on a schedule; one of them does the work.
 */
@Component
public class NightlyReport {

	private final AtomicInteger runs = new AtomicInteger();

	@DistributedLock(key = "'nightly-report'", waitAtMost = "0s", onLocked = OnLocked.SKIP)
	public void run() {
		this.runs.incrementAndGet();
	}

	public int runs() {
		return this.runs.get();
	}

}
