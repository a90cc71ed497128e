package dev.zklock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Collects measurements, goals and correctness failures; prints them as tables and writes
 * CSV and Markdown.
 */
final class Report {

	private final Map<String, List<String[]>> tables = new LinkedHashMap<>();

	private final Map<String, String[]> headers = new LinkedHashMap<>();

	private final List<String[]> csv = new ArrayList<>();

	private final List<String> goals = new ArrayList<>();

	private final List<String> failures = new ArrayList<>();

	void table(String title, String... header) {
		this.headers.put(title, header);
		this.tables.put(title, new ArrayList<>());
	}

	void row(String title, String... cells) {
		List<String[]> rows = this.tables.get(title);
		String[] header = this.headers.get(title);
		if (rows == null || header == null) {
			throw new IllegalStateException("No table '" + title + "': declare it with table(title, header...) first");
		}
		rows.add(cells);
		for (int i = 1; i < cells.length; i++) {
			this.csv.add(new String[] { title, cells[0], header[i], cells[i] });
		}
		System.out.println("  " + title + " | " + String.join(" | ", cells));
	}

	void goal(String description, boolean met, String detail) {
		String line = (met ? "PASS" : "MISS") + " " + description + " — " + detail;
		this.goals.add(line);
		System.out.println("  goal: " + line);
	}

	void failure(String description) {
		this.failures.add(description);
		System.out.println("  CORRECTNESS FAILURE: " + description);
	}

	boolean hasFailures() {
		return !this.failures.isEmpty();
	}

	String markdown(String machine, String command) {
		StringBuilder sb = new StringBuilder();
		sb.append("Machine: ").append(machine).append("  \nCommand: `").append(command).append("`\n\n");
		this.tables.forEach((title, rows) -> {
			String[] header = Objects.requireNonNull(this.headers.get(title), "table() puts a header with each table");
			sb.append("**").append(title).append("**\n\n| ").append(String.join(" | ", header)).append(" |\n|");
			sb.append("---|".repeat(header.length)).append('\n');
			rows.forEach((cells) -> sb.append("| ").append(String.join(" | ", cells)).append(" |\n"));
			sb.append('\n');
		});
		sb.append("**Goals**\n\n");
		this.goals.forEach((goal) -> sb.append("- ").append(goal).append('\n'));
		sb.append('\n')
			.append(this.failures.isEmpty() ? "Correctness: no wrong count, no overlapping holders.\n"
					: "Correctness FAILURES:\n");
		this.failures.forEach((failure) -> sb.append("- ").append(failure).append('\n'));
		return sb.toString();
	}

	void write(Path dir, String machine, String command) throws Exception {
		Files.createDirectories(dir);
		List<String> lines = new ArrayList<>();
		lines.add("scenario,implementation,metric,value");
		this.csv.forEach((cells) -> lines.add(String.join(",", quote(cells))));
		Files.write(dir.resolve("benchmark-results.csv"), lines);
		String markdown = markdown(machine, command);
		Files.writeString(dir.resolve("benchmark-results.md"), markdown);
		System.out.println();
		System.out.println(markdown);
	}

	private static List<String> quote(String[] cells) {
		List<String> quoted = new ArrayList<>();
		for (String cell : cells) {
			quoted.add(cell.contains(",") ? "\"" + cell.replace("\"", "\"\"") + "\"" : cell);
		}
		return quoted;
	}

	static String ms(long nanos) {
		return String.format(Locale.ROOT, "%.1f", nanos / 1_000_000.0);
	}

	static String fixed(double value, int decimals) {
		return String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

}
