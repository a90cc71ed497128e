package dev.zklock.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The packages that the sources' {@code import} lines make depend on each other, and
 * their cycles. Bytecode does not show every import: one used only by a Javadoc
 * {@code {@link}} compiles to nothing, yet the two packages' sources still need each
 * other (to read, to move, to compile the Javadoc). So each import line counts, whatever
 * uses it.
 */
final class SourceImports {

	private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

	private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;");

	/** Each package, with the packages it imports and the import lines that do. */
	private final Map<String, Map<String, Set<String>>> imports = new TreeMap<>();

	private SourceImports() {
	}

	/**
	 * Reads the {@code .java} files under these directories.
	 * @param sourceDirectories the source roots
	 * @param packagePrefix the packages to consider ({@code dev.zklock.}); imports of
	 * others are left out
	 * @return the imports between those packages
	 */
	static SourceImports read(List<Path> sourceDirectories, String packagePrefix) {
		SourceImports sourceImports = new SourceImports();
		for (Path directory : sourceDirectories) {
			try (Stream<Path> files = Files.walk(directory)) {
				files.filter((file) -> file.toString().endsWith(".java"))
					.sorted()
					.forEach(
							(file) -> sourceImports.add(directory.relativize(file), Modules.read(file), packagePrefix));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return sourceImports;
	}

	private void add(Path file, String source, String packagePrefix) {
		Matcher packageLine = PACKAGE.matcher(source);
		if (!packageLine.find()) {
			return;
		}
		String from = packageLine.group(1);
		if (!from.startsWith(packagePrefix)) {
			return;
		}
		Map<String, Set<String>> targets = this.imports.computeIfAbsent(from, (key) -> new TreeMap<>());
		Matcher importLine = IMPORT.matcher(source);
		while (importLine.find()) {
			String to = packageOf(importLine.group(2), importLine.group(1) != null, importLine.group(3) != null);
			if (to.startsWith(packagePrefix) && !to.equals(from)) {
				targets.computeIfAbsent(to, (key) -> new TreeSet<>())
					.add(file.getFileName() + ": " + importLine.group().trim());
			}
		}
	}

	/**
	 * The package of an imported name: the segments before the first type's name (types
	 * start with a capital letter, packages do not).
	 */
	private static String packageOf(String name, boolean isStatic, boolean isWildcard) {
		String[] segments = name.split("\\.");
		List<String> packageSegments = new ArrayList<>();
		for (String segment : segments) {
			if (Character.isUpperCase(segment.charAt(0))) {
				break;
			}
			packageSegments.add(segment);
		}
		if (packageSegments.size() == segments.length && !isStatic && !isWildcard) {
			// A lower-case type name: the last segment is the type
			packageSegments.remove(packageSegments.size() - 1);
		}
		return String.join(".", packageSegments);
	}

	/**
	 * The package cycles: each group of packages that import each other, directly or
	 * through others, with the import lines between them.
	 * @return one description per cycle; empty when there is none
	 */
	List<String> cycles() {
		List<String> cycles = new ArrayList<>();
		for (Set<String> component : stronglyConnectedComponents()) {
			if (component.size() < 2) {
				continue;
			}
			StringBuilder description = new StringBuilder("Packages importing each other: " + component);
			for (String from : component) {
				this.imports.getOrDefault(from, Map.of()).forEach((to, lines) -> {
					if (component.contains(to)) {
						description.append("\n  ").append(from).append(" -> ").append(to).append(": ").append(lines);
					}
				});
			}
			cycles.add(description.toString());
		}
		return cycles;
	}

	/**
	 * How many package-to-package imports were read.
	 * @return the number of edges
	 */
	int edges() {
		return this.imports.values().stream().mapToInt(Map::size).sum();
	}

	/**
	 * Tarjan's algorithm, recursive (a few dozen packages), over sorted maps for a stable
	 * report.
	 */
	private List<Set<String>> stronglyConnectedComponents() {
		Map<String, Integer> index = new HashMap<>();
		Map<String, Integer> lowLink = new HashMap<>();
		Deque<String> stack = new ArrayDeque<>();
		Set<String> onStack = new TreeSet<>();
		List<Set<String>> components = new ArrayList<>();
		int[] counter = { 0 };
		for (String start : this.imports.keySet()) {
			if (!index.containsKey(start)) {
				strongConnect(start, index, lowLink, stack, onStack, components, counter);
			}
		}
		return components;
	}

	private void strongConnect(String node, Map<String, Integer> index, Map<String, Integer> lowLink,
			Deque<String> stack, Set<String> onStack, List<Set<String>> components, int[] counter) {
		index.put(node, counter[0]);
		lowLink.put(node, counter[0]);
		counter[0]++;
		stack.push(node);
		onStack.add(node);
		for (String next : this.imports.getOrDefault(node, Map.of()).keySet()) {
			if (!index.containsKey(next)) {
				strongConnect(next, index, lowLink, stack, onStack, components, counter);
				lowLink.put(node, Math.min(lowLink.get(node), lowLink.get(next)));
			}
			else if (onStack.contains(next)) {
				lowLink.put(node, Math.min(lowLink.get(node), index.get(next)));
			}
		}
		if (lowLink.get(node).equals(index.get(node))) {
			Set<String> component = new TreeSet<>();
			String member;
			do {
				member = stack.pop();
				onStack.remove(member);
				component.add(member);
			}
			while (!member.equals(node));
			components.add(component);
		}
	}

}
