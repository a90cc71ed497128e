package dev.zklock.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the repository's Markdown resolves: its file exists and, for a
 * link to an anchor, a heading of the target makes that anchor (GitHub's rules).
 */
class MarkdownLinksTests {

	/**
	 * An inline link or image, {@code [text](target)} or {@code [text](target "title")}.
	 */
	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

	/** A reference definition, {@code [label]: target}. */
	private static final Pattern REFERENCE = Pattern.compile("^\\s*\\[[^\\]]+\\]:\\s*(\\S+)");

	@Test
	void everyRelativeLinkAndAnchorResolves() {
		List<Markdown> pages = Markdown.all();
		assertThat(pages).extracting(Markdown::name).contains("README.md", "docs/configuration-properties.md");
		List<String> broken = new ArrayList<>();
		int checked = 0;
		for (Markdown page : pages) {
			for (Map.Entry<Integer, String> line : page.prose().entrySet()) {
				// Code spans are not links
				String text = line.getValue().replaceAll("`[^`]*`", "");
				List<String> targets = new ArrayList<>();
				Matcher link = LINK.matcher(text);
				while (link.find()) {
					targets.add(link.group(1));
				}
				Matcher reference = REFERENCE.matcher(text);
				if (reference.find()) {
					targets.add(reference.group(1));
				}
				for (String target : targets) {
					if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
						continue; // https:, mailto: and the like
					}
					checked++;
					String problem = problem(page, target);
					if (problem != null) {
						broken.add(page.name() + ":" + line.getKey() + ": " + target + ": " + problem);
					}
				}
			}
		}
		assertThat(checked).as("relative links checked").isGreaterThan(100);
		assertThat(broken).as("broken relative links").isEmpty();
	}

	@Test
	void anchorsFollowGitHubsRules() {
		assertThat(Markdown.slug("Read/write locks: `mode = READ | WRITE`"))
			.isEqualTo("readwrite-locks-mode--read--write");
		assertThat(Markdown.slug("The embedded ZooKeeper's port is in use"))
			.isEqualTo("the-embedded-zookeepers-port-is-in-use");
		assertThat(Markdown.slug("Linger: `zklock.lock.linger`")).isEqualTo("linger-zklocklocklinger");
	}

	private static String problem(Markdown page, String target) {
		int hash = target.indexOf('#');
		String path = (hash < 0) ? target : target.substring(0, hash);
		String anchor = (hash < 0) ? null : target.substring(hash + 1);
		Path file = path.isEmpty() ? page.file() : page.file().getParent().resolve(path).normalize();
		if (!file.startsWith(Markdown.ROOT)) {
			return "outside the repository";
		}
		if (!Files.exists(file)) {
			return "no such file";
		}
		if (anchor != null && file.toString().endsWith(".md")) {
			Markdown linked = file.equals(page.file()) ? page : Markdown.of(Markdown.ROOT.relativize(file).toString());
			if (!linked.anchors().contains(anchor)) {
				return "no heading makes the anchor #" + anchor + " in " + linked.name();
			}
		}
		return null;
	}

}
