package dev.zklock.test;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The kit's flakiness check: runs its scenario suites {@code N} times in one JVM (as
 * {@code ../shared/tools/under-load} runs it on a busy machine) and exits non-zero if any
 * run failed, printing each failure. Not a test; started by hand:
 * {@code java -cp <test class path> dev.zklock.test.RepeatedScenarios 50}.
 */
public final class RepeatedScenarios {

	private RepeatedScenarios() {
	}

	public static void main(String[] args) {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : 10;
		LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
			.selectors(selectClass(ZkLockTestKitScenarioTests.class), selectClass(ZkLockTestKitReconnectTests.class))
			.build();
		Launcher launcher = LauncherFactory.create();
		List<String> failures = new ArrayList<>();
		long tests = 0;
		for (int run = 1; run <= runs; run++) {
			SummaryGeneratingListener listener = new SummaryGeneratingListener();
			launcher.execute(request, listener);
			TestExecutionSummary summary = listener.getSummary();
			tests += summary.getTestsSucceededCount() + summary.getTestsFailedCount();
			for (TestExecutionSummary.Failure failure : summary.getFailures()) {
				failures.add("run " + run + ": " + failure.getTestIdentifier().getDisplayName() + ": "
						+ failure.getException());
			}
			System.out.println(
					"run " + run + ": " + summary.getTestsSucceededCount() + " passed, " + summary.getTestsFailedCount()
							+ " failed, " + summary.getTimeFinished() + " - " + summary.getTimeStarted() + " ms");
			if (summary.getTestsFailedCount() > 0) {
				summary.printFailuresTo(new PrintWriter(System.out), 20);
			}
		}
		System.out.println(runs + " runs, " + tests + " scenarios, " + failures.size() + " failed");
		failures.forEach(System.out::println);
		System.exit(failures.isEmpty() ? 0 : 1);
	}

}
