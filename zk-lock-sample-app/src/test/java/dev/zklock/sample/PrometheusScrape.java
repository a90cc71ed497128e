package dev.zklock.sample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of {@code /actuator/prometheus} in Prometheus's text format: its samples by
 * series name, each with its labels and value.
 */
final class PrometheusScrape {

	private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+).*$");

	private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	private final Map<String, List<Sample>> samples;

	private PrometheusScrape(Map<String, List<Sample>> samples) {
		this.samples = samples;
	}

	static PrometheusScrape parse(String text) {
		Map<String, List<Sample>> samples = new LinkedHashMap<>();
		for (String line : text.split("\n")) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			Matcher sample = SAMPLE.matcher(line);
			if (!sample.matches()) {
				throw new IllegalArgumentException("Not a sample line: " + line);
			}
			Map<String, String> labels = new LinkedHashMap<>();
			if (sample.group(2) != null) {
				Matcher label = LABEL.matcher(sample.group(2));
				while (label.find()) {
					labels.put(label.group(1), label.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
				}
			}
			samples.computeIfAbsent(sample.group(1), (name) -> new ArrayList<>())
				.add(new Sample(labels, value(sample.group(3))));
		}
		return new PrometheusScrape(samples);
	}

	private static double value(String text) {
		return switch (text) {
			case "+Inf" -> Double.POSITIVE_INFINITY;
			case "-Inf" -> Double.NEGATIVE_INFINITY;
			default -> Double.parseDouble(text);
		};
	}

	/**
	 * The samples of a series name.
	 * @param name the series name
	 * @return its samples, none if the scrape has no such series
	 */
	List<Sample> samples(String name) {
		return this.samples.getOrDefault(name, List.of());
	}

	boolean has(String name) {
		return this.samples.containsKey(name);
	}

	/**
	 * The sum of the samples of a series name whose labels include the given ones.
	 * @param name the series name
	 * @param labels label names and values, alternating
	 * @return the sum, 0 if none matches
	 */
	double sum(String name, String... labels) {
		double sum = 0;
		for (Sample sample : samples(name)) {
			boolean matches = true;
			for (int i = 0; i < labels.length; i += 2) {
				matches &= labels[i + 1].equals(sample.labels().get(labels[i]));
			}
			if (matches) {
				sum += sample.value();
			}
		}
		return sum;
	}

	/**
	 * A sample.
	 *
	 * @param labels its labels
	 * @param value its value
	 */
	record Sample(Map<String, String> labels, double value) {
	}

}
