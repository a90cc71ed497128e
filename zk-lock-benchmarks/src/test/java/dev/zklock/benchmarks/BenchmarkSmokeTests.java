package dev.zklock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the benchmark compiling and running: the smoke mode (tiny sizes) against a real
 * standalone ZooKeeper in its own JVM. Asserts correctness only; timings are reported,
 * never asserted.
 */
// Scenario 6 starts PostgreSQL twice (fsync off and on). On 2 cores that other builds
// kept
// at a load average of 26, the whole smoke run took 308 s (the first five scenarios alone
// passed 180 s there)
@Timeout(420)
class BenchmarkSmokeTests {

	@Test
	void smokeRunHasNoCorrectnessFailure() throws Exception {
		Path output = Path.of("target", "benchmark-smoke");
		// Scenario 8 runs on its own, below
		Report report = BenchmarkMain.run(true, "1,2,3,4,5,6,7", output);
		assertThat(report.hasFailures()).isFalse();
		assertThat(Files.readString(output.resolve("benchmark-results.md"))).contains("Scenario 1", "Scenario 2",
				"Scenario 3", "Scenario 4", "Scenario 5", "Scenario 6", "Scenario 7", LatencyScenario.BARE_PIPELINED,
				"Goals");
		List<String> csv = Files.readAllLines(output.resolve("benchmark-results.csv"));
		assertThat(csv).hasSizeGreaterThan(10);
		// Scenario 5: a row for each run, each with no violation (overlap or fencing)
		assertThat(csv).filteredOn((line) -> line.startsWith(LingerScenario.TITLE) && line.contains("violations"))
			.hasSize(2)
			.allSatisfy((line) -> assertThat(line).endsWith(",violations,0"));
		// Scenario 6: the three ways on H2 and on PostgreSQL with fsync off and on (the
		// title has a comma, so its CSV cell is quoted)
		assertThat(csv).filteredOn((line) -> line.contains(FencingScenario.TITLE) && line.contains("(median)"))
			.hasSize(9)
			.anySatisfy((line) -> assertThat(line).contains("H2").contains(FencingScenario.RECORD))
			.anySatisfy((line) -> assertThat(line).contains("PostgreSQL").contains(FencingScenario.TRANSACTION));
		// Scenario 7: a row for each way of stepping down, each with no violation (two
		// leaders at once, an epoch that did not increase; the title has a comma too)
		assertThat(csv).filteredOn((line) -> line.contains(LeadershipScenario.TITLE) && line.contains("violations"))
			.hasSize(3)
			.allSatisfy((line) -> assertThat(line).endsWith(",violations,0"));
	}

	/**
	 * Scenario 8 at a small scale (50 keys, 100 zk-lock waiting calls, 150 Curator
	 * waiters): every read of the view showed every holder, waiter node and instance set
	 * up (the scenario reports a read that did not as a correctness failure).
	 */
	@Test
	@Timeout(240)
	void clusterViewSmokeRunSeesEveryHolderAndWaiter() throws Exception {
		Path output = Path.of("target", "benchmark-smoke-view");
		Report report = BenchmarkMain.run(true, "8", output);
		assertThat(report.hasFailures()).isFalse();
		ClusterViewScenario.Sizes sizes = ClusterViewScenario.Sizes.of(true);
		int rounds = sizes.warmUp() + sizes.reads();
		List<String> csv = Files.readAllLines(output.resolve("benchmark-results.csv"));
		assertThat(csv)
			.filteredOn((line) -> line.contains(ClusterViewScenario.TITLE) && line.contains("clusterView")
					&& line.contains("what it read"))
			.singleElement()
			.satisfies((line) -> assertThat(line)
				.contains(sizes.keys() + " holders, " + sizes.waiterNodes() + " waiter nodes")
				.contains(rounds + " of " + rounds + " reads complete"));
		assertThat(Files.readString(output.resolve("benchmark-results.md"))).contains("S8: clusterView");
	}

}
