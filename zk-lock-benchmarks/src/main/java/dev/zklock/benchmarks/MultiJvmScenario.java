package dev.zklock.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Scenario 3: J worker JVMs × T threads × K keys on a real three-server ensemble, for a
 * fixed time per cell. In each cell the raw write floor, Curator and zk-lock run in turn,
 * each in fresh JVMs, so no run inherits another's JIT, connections or nodes. Grants per
 * second, p50/p99/max wait, each JVM's share of grants and violations (overlapping holds
 * of a key) per cell, and per JVM its grants, p99 wait and the server it talked to (the
 * leader's clients skip a network hop, which shows in their share).
 */
final class MultiJvmScenario {

	static final String TITLE = "Scenario 3: J JVMs × T threads × K keys on a 3-server ensemble, fixed duration";

	static final String PER_JVM_TITLE = "Scenario 3, per JVM (for diagnosis)";

	/**
	 * Run order in a cell: the floor first, then the baseline, then zk-lock.
	 */
	static final List<String> IMPLEMENTATIONS = List.of("raw", "curator", "zklock");

	static final long READY_TIMEOUT_MS = 60_000;

	/**
	 * A worker gives up 60 s after the end; the harness kills it 30 s after that.
	 */
	private static final long EXIT_TIMEOUT_MS = 90_000;

	private MultiJvmScenario() {
	}

	/**
	 * The sizes, from {@code bench.jvms}, {@code bench.threads}, {@code bench.keys},
	 * {@code bench.cellSeconds} and {@code bench.workMicros}, by default those of the
	 * mode.
	 *
	 * @param jvms worker JVM counts
	 * @param threads threads per worker JVM
	 * @param keys key counts
	 * @param cellSeconds measured time per cell
	 * @param workMicros busy spin while holding
	 * @param smoke whether the workers start with C1 only: a smoke cell is too short for
	 * C2 to pay off, and on a loaded CI machine starting the workers is most of its time
	 */
	record Sizes(List<Integer> jvms, int threads, List<Integer> keys, double cellSeconds, long workMicros,
			boolean smoke) {

		static Sizes of(boolean smoke) {
			return new Sizes(ints(property("bench.jvms", smoke ? "1,2" : "1,2,4")),
					Integer.parseInt(property("bench.threads", smoke ? "2" : "8")),
					ints(property("bench.keys", smoke ? "1,4" : "1,64")),
					Double.parseDouble(property("bench.cellSeconds", smoke ? "1.5" : "10")),
					Long.parseLong(property("bench.workMicros", "50")), smoke);
		}

		static String property(String name, String fallback) {
			// The exec plugin passes every property, empty when not set
			String value = System.getProperty(name, "");
			return value.isBlank() ? fallback : value.trim();
		}

		private static List<Integer> ints(String list) {
			return List.of(list.split(",")).stream().map(String::trim).map(Integer::valueOf).toList();
		}

	}

	/**
	 * One implementation in one cell.
	 *
	 * @param implementation {@code raw}, {@code curator} or {@code zklock}
	 * @param jvms worker JVMs
	 * @param keys keys
	 */
	record Cell(String implementation, int jvms, int keys) {

		String label(int threads) {
			String name = switch (this.implementation) {
				case "raw" -> "raw floor (create + delete)";
				case "curator" -> "Curator InterProcessMutex";
				default -> "zk-lock engine (ZkLock)";
			};
			return name + ", " + this.jvms + ((this.jvms == 1) ? " JVM" : " JVMs") + " × " + threads + " threads, "
					+ this.keys + ((this.keys == 1) ? " key" : " keys");
		}

	}

	static Map<Cell, CellResult> run(Sizes sizes, Path workDir, Report report) throws Exception {
		report.table(TITLE, "run", "grants/s (raw: pairs/s)", "p50 wait (ms)", "p99 wait (ms)", "max wait (ms)",
				"share per JVM", "violations");
		report.table(PER_JVM_TITLE, "run", "grants per JVM", "p99 wait per JVM (ms)", "server per JVM");
		Map<Cell, CellResult> results = new LinkedHashMap<>();
		long began = System.nanoTime();
		try (ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble()) {
			System.out.println("ZooKeeper ensemble " + ensemble.connectString() + " " + ensemble.modes()
					+ ", formed after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began) + " ms");
			for (int jvms : sizes.jvms()) {
				for (int keys : sizes.keys()) {
					for (String implementation : IMPLEMENTATIONS) {
						Cell cell = new Cell(implementation, jvms, keys);
						CellResult result = runCell(ensemble, cell, sizes, workDir, report);
						if (result != null) {
							results.put(cell, result);
						}
					}
				}
			}
		}
		return results;
	}

	private static @Nullable CellResult runCell(ZooKeeperEnsemble ensemble, Cell cell, Sizes sizes, Path workDir,
			Report report) throws Exception {
		String label = cell.label(sizes.threads());
		String name = cell.implementation() + "-" + cell.jvms() + "x" + sizes.threads() + "-" + cell.keys() + "keys";
		List<Path> outputs = new ArrayList<>();
		List<Process> workers = new ArrayList<>();
		long launched = System.nanoTime();
		try {
			for (int j = 0; j < cell.jvms(); j++) {
				Path out = workDir.resolve(name + "-jvm" + j + ".csv");
				outputs.add(out);
				workers.add(start(ensemble, cell, sizes, j, out));
			}
			List<String> servers = awaitReady(workers, outputs);
			if (servers == null) {
				report.failure(label + ": worker JVMs not ready within " + READY_TIMEOUT_MS / 1000 + " s; see "
						+ workDir.resolve(name + "-jvm*.csv.log"));
				return null;
			}
			// Printed, not reported: on a busy machine this is most of a smoke run
			System.out.println("  " + label + ": workers ready after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launched) + " ms");
			ZooKeeperEnsemble.Packets before = ensemble.packets();
			long start = go(workers, sizes.cellSeconds());
			long end = start + (long) (sizes.cellSeconds() * 1e9);
			awaitExit(workers, outputs, end, label, report);
			ZooKeeperEnsemble.Packets traffic = ensemble.packets().since(before);
			CellResult result = CellResult.read(outputs, start, end);
			// Printed, not reported: pings and session closes are in it too
			System.out.println("  " + label + ": " + traffic.perGrant(result.recorded()));
			report(ensemble, cell, label, servers, result, report);
			return result;
		}
		catch (IOException ex) {
			report.failure(label + ": " + ex);
			return null;
		}
		finally {
			cleanUp(workers, outputs);
		}
	}

	/**
	 * Stop the workers, whatever state they are in, and delete their files.
	 */
	static void cleanUp(List<Process> workers, List<Path> outputs) throws IOException {
		for (Process worker : workers) {
			worker.destroyForcibly();
		}
		for (Path output : outputs) {
			Files.deleteIfExists(output);
			Files.deleteIfExists(Path.of(output + ".ready"));
		}
	}

	private static Process start(ZooKeeperEnsemble ensemble, Cell cell, Sizes sizes, int j, Path out)
			throws IOException {
		return launch(List.of(cell.implementation(), ensemble.addressFor(j), Integer.toString(cell.keys()),
				Integer.toString(sizes.threads()), Long.toString(sizes.workMicros()), "jvm" + j, out.toString()), out,
				sizes.smoke());
	}

	/**
	 * Start a {@link MultiJvmWorker} with these arguments, its output going to
	 * {@code out.log}.
	 * @param smoke whether to start it with C1 only
	 */
	static Process launch(List<String> arguments, Path out, boolean smoke) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// A small heap that allocates little: the serial collector, no collector threads
		// to compete with the workers' on a small machine
		command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC"));
		if (smoke) {
			command.add("-XX:TieredStopAtLevel=1");
		}
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), MultiJvmWorker.class.getName()));
		command.addAll(arguments);
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(Path.of(out + ".log").toFile())
			.start();
	}

	/**
	 * Wait for each worker's ready file; return the client port of the server each talks
	 * to, or null if one died or did not get ready in time.
	 */
	static @Nullable List<String> awaitReady(List<Process> workers, List<Path> outputs)
			throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
		List<Path> ready = outputs.stream().map((out) -> Path.of(out + ".ready")).toList();
		while (!ready.stream().allMatch(Files::exists)) {
			if (System.nanoTime() > deadline || workers.stream().anyMatch((worker) -> !worker.isAlive())) {
				return null;
			}
			Thread.sleep(20);
		}
		List<String> servers = new ArrayList<>();
		for (Path file : ready) {
			servers.add(Files.readString(file).trim());
		}
		return servers;
	}

	/**
	 * Tell ready workers when to start and end: 200 ms from now, for {@code seconds}.
	 * @return the start, in {@link System#nanoTime()}
	 */
	static long go(List<Process> workers, double seconds) throws IOException {
		// nanoTime is one clock for every process of the machine; the margin lets every
		// worker read the line before the start
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
		long end = start + (long) (seconds * 1e9);
		for (Process worker : workers) {
			OutputStream in = worker.getOutputStream();
			in.write((start + " " + end + "\n").getBytes(StandardCharsets.US_ASCII));
			in.flush();
		}
		return start;
	}

	/**
	 * Wait for the workers to exit, at most {@link #EXIT_TIMEOUT_MS} after the end;
	 * report a worker that hung or failed as a correctness failure.
	 */
	static void awaitExit(List<Process> workers, List<Path> outputs, long end, String label, Report report)
			throws InterruptedException {
		long deadline = end + TimeUnit.MILLISECONDS.toNanos(EXIT_TIMEOUT_MS);
		for (int j = 0; j < workers.size(); j++) {
			Process worker = workers.get(j);
			long left = Math.max(1, deadline - System.nanoTime());
			if (!worker.waitFor(left, TimeUnit.NANOSECONDS)) {
				worker.destroyForcibly();
				report.failure(label + ": worker jvm" + j + " hung and was killed; see " + outputs.get(j) + ".log");
			}
			else if (worker.exitValue() != 0) {
				report.failure(label + ": worker jvm" + j + " failed (exit " + worker.exitValue() + "); see "
						+ outputs.get(j) + ".log");
			}
		}
	}

	private static void report(ZooKeeperEnsemble ensemble, Cell cell, String label, List<String> servers,
			CellResult result, Report report) {
		boolean raw = cell.implementation().equals("raw");
		if (!raw && result.violations() > 0) {
			report.failure(label + ": " + result.violations() + " overlapping holds");
		}
		report.row(TITLE, label, Report.fixed(result.throughput(), 0), CellResult.ms(result.p50()),
				CellResult.ms(result.p99()), CellResult.ms(result.max()), CellResult.percents(result.shares()),
				raw ? "not checked" : Integer.toString(result.violations()));
		Map<Integer, String> modes = ensemble.modes();
		List<String> roles = servers.stream().map((port) -> role(modes, port)).toList();
		report.row(PER_JVM_TITLE, label,
				CellResult.joined(result.grantsPerJvm().stream().map(String::valueOf).toList()),
				CellResult.joined(result.p99PerJvm().stream().map(CellResult::ms).toList()), CellResult.joined(roles));
	}

	private static String role(Map<Integer, String> modes, String port) {
		try {
			String mode = modes.getOrDefault(Integer.parseInt(port), "?");
			return (mode.equals("leader") ? "L" : mode.equals("follower") ? "F" : "?") + " :" + port;
		}
		catch (NumberFormatException ex) {
			return "?";
		}
	}

}
