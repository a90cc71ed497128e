package dev.zklock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The repository's Markdown files, read as GitHub renders them: fenced code blocks, the
 * anchors that headings make, and the text outside code blocks.
 */
final class Markdown {

	private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([\\w+-]*).*$");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern NOT_COMPILED = Pattern.compile("<!--\\s*not compiled:\\s*(.*?)\\s*-->");

	/** The repository's root, set by the module's surefire configuration. */
	static final Path ROOT = Path.of(System.getProperty("docs.sourceRoot", "..")).toAbsolutePath().normalize();

	private final Path file;

	private final List<String> lines;

	private Markdown(Path file) {
		this.file = file;
		try {
			this.lines = Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Every Markdown file of the repository, build output, hidden directories and
	 * dependencies excluded.
	 * @return the files, in path order
	 */
	static List<Markdown> all() {
		try (Stream<Path> paths = Files.walk(ROOT)) {
			return paths.filter((path) -> path.toString().endsWith(".md"))
				.filter((path) -> ROOT.relativize(path)
					.toString()
					.replace('\\', '/')
					.matches("(?!.*(^|/)(target|node_modules|\\.[^/]+)/).*"))
				.sorted()
				.map(Markdown::new)
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Markdown of(String relativePath) {
		return new Markdown(ROOT.resolve(relativePath));
	}

	Path file() {
		return this.file;
	}

	/**
	 * The file's path relative to the repository's root, for messages.
	 * @return the path
	 */
	String name() {
		return ROOT.relativize(this.file).toString().replace('\\', '/');
	}

	/**
	 * Every line of the file.
	 * @return the lines, the first at index 0
	 */
	List<String> lines() {
		return this.lines;
	}

	/**
	 * The lines outside fenced code blocks, each with its line number.
	 * @return line number to line
	 */
	Map<Integer, String> prose() {
		Map<Integer, String> prose = new LinkedHashMap<>();
		String fence = null;
		for (int i = 0; i < this.lines.size(); i++) {
			String line = this.lines.get(i);
			Matcher matcher = FENCE.matcher(line);
			if (fence == null && matcher.matches()) {
				fence = matcher.group(2);
			}
			else if (fence != null && line.strip().startsWith(fence) && line.strip().matches("[`~]+")) {
				fence = null;
			}
			else if (fence == null) {
				prose.put(i + 1, line);
			}
		}
		return prose;
	}

	/**
	 * The fenced code blocks.
	 * @return the blocks, in order
	 */
	List<Block> blocks() {
		List<Block> blocks = new ArrayList<>();
		for (int i = 0; i < this.lines.size(); i++) {
			Matcher matcher = FENCE.matcher(this.lines.get(i));
			if (!matcher.matches()) {
				continue;
			}
			String fence = matcher.group(2);
			String indent = matcher.group(1);
			String language = matcher.group(3).toLowerCase(Locale.ROOT);
			String previous = (i > 0) ? this.lines.get(i - 1) : "";
			Matcher skip = NOT_COMPILED.matcher(previous);
			StringBuilder body = new StringBuilder();
			int start = i + 1;
			i++;
			while (i < this.lines.size()
					&& !(this.lines.get(i).strip().startsWith(fence) && this.lines.get(i).strip().matches("[`~]+"))) {
				String line = this.lines.get(i);
				body.append(line.startsWith(indent) ? line.substring(indent.length()) : line).append('\n');
				i++;
			}
			blocks.add(new Block(this, language, start + 1, body.toString(), skip.find() ? skip.group(1) : null));
		}
		return blocks;
	}

	/**
	 * The anchors GitHub makes for this file's headings: lower case, punctuation but
	 * {@code -} and {@code _} dropped, spaces to {@code -}, and {@code -1}, {@code -2}
	 * after a repeated one.
	 * @return the anchors
	 */
	Set<String> anchors() {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : prose().values()) {
			Matcher matcher = HEADING.matcher(line);
			if (matcher.matches()) {
				String slug = slug(matcher.group(1));
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
		}
		return anchors;
	}

	static String slug(String heading) {
		String text = heading.replaceAll("<[^>]+>", "").strip().toLowerCase(Locale.ROOT);
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

	@Override
	public String toString() {
		return name();
	}

	/**
	 * A fenced code block.
	 *
	 * @param page the file it is in
	 * @param language its info string's first word, lower case
	 * @param line the line number of its first line of code
	 * @param code its code
	 * @param notCompiledReason why it is not compiled, from an HTML comment on the line
	 * before the fence, or {@code null}
	 */
	record Block(Markdown page, String language, int line, String code, String notCompiledReason) {

		String where() {
			return this.page.name() + ":" + this.line;
		}

	}

}
