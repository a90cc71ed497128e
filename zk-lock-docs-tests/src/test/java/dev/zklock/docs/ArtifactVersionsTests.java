package dev.zklock.docs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documentation tells one version story. It documents the next release, the project's
 * version without {@code -SNAPSHOT} ({@code 0.1.0} while the build is
 * {@code 0.1.0-SNAPSHOT}): every version it gives a {@code dev.zklock} artifact (a
 * {@code <version>} next to {@code <groupId>dev.zklock</groupId>}, or
 * {@code dev.zklock:artifact:version} coordinates) is that release, and the note that
 * says to use the {@code -SNAPSHOT} until the release is on Maven Central is a prose line
 * within {@value #NOTE_DISTANCE} lines of it. A jar of this build named by its file name
 * ({@code zk-lock-sample-app-0.1.0-SNAPSHOT.jar}) has the project's version.
 */
class ArtifactVersionsTests {

	/**
	 * How far, in lines, the note may be from the version (or the code block) it
	 * qualifies.
	 */
	static final int NOTE_DISTANCE = 4;

	private static final Pattern XML_ELEMENT = Pattern.compile("(?s)<(dependency|parent|plugin)>(.*?)</\\1>");

	private static final Pattern XML_VERSION = Pattern.compile("<version>\\s*([^<\\s]+)\\s*</version>");

	private static final Pattern COORDINATES = Pattern.compile("\\bdev\\.zklock:([\\w.-]+):([\\w.${}-]*\\w)");

	private static final Pattern JAR = Pattern.compile("\\bzk-lock-[a-z-]+?-(\\d[\\w.]*?(?:-SNAPSHOT)?)\\.jar\\b");

	/** The build's version, set by the module's surefire configuration. */
	private static final String PROJECT_VERSION = System.getProperty("docs.projectVersion", "");

	@Test
	void everyZkLockVersionIsTheDocumentedReleaseWithTheSnapshotNoteNextToIt() {
		assertThat(PROJECT_VERSION).as("docs.projectVersion").isNotBlank();
		List<String> problems = new ArrayList<>();
		int versions = 0;
		for (Markdown page : Markdown.all()) {
			if (page.name().equals("CHANGELOG.md")) {
				continue; // a history of versions, not instructions
			}
			versions += check(page, PROJECT_VERSION, problems);
		}
		assertThat(versions).as("versions of zk-lock artifacts in the Markdown").isGreaterThanOrEqualTo(3);
		assertThat(problems)
			.as("versions that tell another story than " + release(PROJECT_VERSION) + " (with the " + PROJECT_VERSION
					+ " note next to it)")
			.isEmpty();
	}

	@Test
	void aWrongVersionOrAMissingNoteIsCaught() {
		List<String> problems = new ArrayList<>();
		check(List.of("```xml", "<dependency>", "    <groupId>dev.zklock</groupId>",
				"    <artifactId>zk-lock-bom</artifactId>", "    <version>0.0.9</version>", "</dependency>", "```",
				"With Gradle, `dev.zklock:zk-lock-spring-boot-starter:1.2.0-SNAPSHOT`.", "", "", "", "", "", "", "", "",
				"", "", "`dev.zklock:zk-lock-core:1.2.0` and `target/zk-lock-core-1.1.0.jar`"), "p.md",
				"1.2.0-SNAPSHOT", problems);
		assertThat(problems).hasSize(4);
		assertThat(String.join("\n", problems)).contains("p.md:5: zk-lock-bom 0.0.9",
				"p.md:8: zk-lock-spring-boot-starter", "p.md:19: zk-lock-core 1.2.0: no note",
				"zk-lock-core-1.1.0.jar");
		problems.clear();
		check(List.of("<version>1.2.0</version> of `dev.zklock:zk-lock-bom` is for Maven: <dependency>",
				"<groupId>dev.zklock</groupId><version>1.2.0</version></dependency>",
				"Until 1.2.0 is on Maven Central, use `1.2.0-SNAPSHOT`."), "p.md", "1.2.0-SNAPSHOT", problems);
		assertThat(problems).isEmpty();
	}

	static String release(String projectVersion) {
		return projectVersion.replaceFirst("-SNAPSHOT$", "");
	}

	private static int check(Markdown page, String projectVersion, List<String> problems) {
		return check(page.lines(), page.prose(), page.name(), projectVersion, problems);
	}

	private static int check(List<String> lines, String name, String projectVersion, List<String> problems) {
		Map<Integer, String> prose = new LinkedHashMap<>();
		boolean code = false;
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).strip().startsWith("```")) {
				code = !code;
			}
			else if (!code) {
				prose.put(i + 1, lines.get(i));
			}
		}
		return check(lines, prose, name, projectVersion, problems);
	}

	private static int check(List<String> lines, Map<Integer, String> prose, String name, String projectVersion,
			List<String> problems) {
		String release = release(projectVersion);
		String text = String.join("\n", lines);
		int found = 0;
		Matcher element = XML_ELEMENT.matcher(text);
		while (element.find()) {
			String body = element.group(2);
			Matcher version = XML_VERSION.matcher(body);
			if (body.matches("(?s).*<groupId>\\s*dev\\.zklock\\s*</groupId>.*") && version.find()) {
				found++;
				int line = lineOf(text, element.start(2) + version.start(1));
				String artifact = body.replaceFirst("(?s).*<artifactId>\\s*([^<\\s]+)\\s*</artifactId>.*", "$1");
				check(artifact.equals(body) ? "a dev.zklock artifact" : artifact, version.group(1), line, name, release,
						prose, lines.size(), projectVersion, problems);
			}
		}
		for (int i = 0; i < lines.size(); i++) {
			Matcher coordinates = COORDINATES.matcher(lines.get(i));
			while (coordinates.find()) {
				found++;
				check(coordinates.group(1), coordinates.group(2), i + 1, name, release, prose, lines.size(),
						projectVersion, problems);
			}
			Matcher jar = JAR.matcher(lines.get(i));
			while (jar.find()) {
				found++;
				if (!jar.group(1).equals(projectVersion)) {
					problems.add(name + ":" + (i + 1) + ": " + jar.group() + " is a file of this build: its version is "
							+ projectVersion);
				}
			}
		}
		return found;
	}

	private static void check(String artifact, String version, int line, String name, String release,
			Map<Integer, String> prose, int lineCount, String projectVersion, List<String> problems) {
		String where = name + ":" + line + ": " + artifact + " " + version;
		if (!version.equals(release)) {
			problems.add(where + ": the documentation gives zk-lock's artifacts the version " + release);
			return;
		}
		// A version in a code block is noted beside the block: measure from its fences
		int first = line;
		while (first > 1 && !prose.containsKey(first)) {
			first--;
		}
		int last = line;
		while (last < lineCount && !prose.containsKey(last)) {
			last++;
		}
		int from = first;
		int to = last;
		boolean noted = prose.entrySet()
			.stream()
			.anyMatch((entry) -> entry.getKey() >= from - NOTE_DISTANCE && entry.getKey() <= to + NOTE_DISTANCE
					&& entry.getValue().contains(projectVersion));
		if (!noted) {
			problems.add(where + ": no note within " + NOTE_DISTANCE + " lines saying to use " + projectVersion
					+ " until " + release + " is on Maven Central (as under the README's quick start)");
		}
	}

	private static int lineOf(String text, int offset) {
		int line = 1;
		for (int i = 0; i < offset; i++) {
			if (text.charAt(i) == '\n') {
				line++;
			}
		}
		return line;
	}

}
