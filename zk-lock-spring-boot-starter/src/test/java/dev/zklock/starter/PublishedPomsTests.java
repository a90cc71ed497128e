package dev.zklock.starter;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Maven Central requires of every POM we publish, read from this source tree's POMs:
 * a name, a description, and (from {@code zk-lock-parent}, or stated by the BOM, which
 * has no parent) the URL, license, SCM and developers. {@code zk-lock-bom} manages
 * exactly the published modules, at this version, and nothing else.
 */
class PublishedPomsTests {

	/** Built by the parent's reactor, never published. */
	private static final Set<String> UNPUBLISHED = Set.of("zk-lock-sample-app", "zk-lock-benchmarks",
			"zk-lock-docs-tests", "zk-lock-architecture-tests");

	private static final String BOM = "zk-lock-bom";

	private static final List<String> INHERITED = List.of("url", "licenses", "scm", "developers");

	private final Path sourceRoot = Path.of(property("zklock.sourceRoot"));

	@Test
	void everyPublishedPomCarriesWhatMavenCentralRequires() throws Exception {
		Element parent = pom("pom.xml");
		assertThat(text(parent, "version")).isEqualTo(property("zklock.version"));
		for (String element : INHERITED) {
			assertThat(child(parent, element)).as("zk-lock-parent's <%s>", element).isNotNull();
		}
		assertThat(text(child(child(parent, "licenses"), "license"), "name")).isEqualTo("Apache-2.0");
		List<String> published = new ArrayList<>(published());
		published.add(".");
		for (String module : published) {
			Element pom = pom(module + "/pom.xml");
			assertThat(text(pom, "name")).as("%s's <name>", module).isNotBlank();
			assertThat(text(pom, "description")).as("%s's <description>", module).isNotBlank();
			Element parentReference = child(pom, "parent");
			if (parentReference != null) {
				assertThat(text(parentReference, "artifactId")).as("%s's parent", module).isEqualTo("zk-lock-parent");
				for (String element : INHERITED) {
					assertThat(child(pom, element)).as("%s inherits <%s> from zk-lock-parent", module, element)
						.isNull();
				}
			}
		}
	}

	@Test
	void theBomManagesEveryPublishedModuleAndNothingElse() throws Exception {
		Element bom = pom(BOM + "/pom.xml");
		Element parent = pom("pom.xml");
		// No parent: an import brings the BOM's whole dependencyManagement, inherited
		// entries included
		assertThat(child(bom, "parent")).isNull();
		assertThat(text(bom, "groupId")).isEqualTo("dev.zklock");
		assertThat(text(bom, "version")).isEqualTo(text(parent, "version"));
		assertThat(text(bom, "packaging")).isEqualTo("pom");
		for (String element : INHERITED) {
			assertThat(child(bom, element)).as("the BOM's <%s>", element).isNotNull();
			assertThat(child(bom, element).getTextContent().replaceAll("\\s+", " "))
				.as("the BOM's <%s> is zk-lock-parent's", element)
				.isEqualTo(child(parent, element).getTextContent().replaceAll("\\s+", " "));
		}
		Set<String> managed = new TreeSet<>();
		NodeList dependencies = child(child(bom, "dependencyManagement"), "dependencies")
			.getElementsByTagName("dependency");
		for (int i = 0; i < dependencies.getLength(); i++) {
			Element dependency = (Element) dependencies.item(i);
			assertThat(text(dependency, "groupId")).isEqualTo("dev.zklock");
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			assertThat(child(dependency, "scope")).as("a managed scope would change users' trees").isNull();
			managed.add(text(dependency, "artifactId"));
		}
		Set<String> expected = new TreeSet<>(published());
		expected.remove(BOM);
		assertThat(managed).isEqualTo(expected);
	}

	/** The parent's modules that are published, the BOM among them. */
	private List<String> published() throws Exception {
		List<String> modules = new ArrayList<>();
		NodeList nodes = child(pom("pom.xml"), "modules").getElementsByTagName("module");
		for (int i = 0; i < nodes.getLength(); i++) {
			String module = nodes.item(i).getTextContent().trim();
			if (!UNPUBLISHED.contains(module)) {
				modules.add(module);
			}
		}
		assertThat(modules).contains(BOM, "zk-lock-core", "zk-lock-spring-boot-starter");
		return modules;
	}

	private Element pom(String path) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setNamespaceAware(false);
		Document document = factory.newDocumentBuilder().parse(this.sourceRoot.resolve(path).toFile());
		return document.getDocumentElement();
	}

	/** The direct child element of that name, or null. */
	private static Element child(Element parent, String name) {
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element;
			}
		}
		return null;
	}

	private static String text(Element parent, String name) {
		Element element = child(parent, name);
		return (element != null) ? element.getTextContent().trim() : null;
	}

	private static String property(String name) {
		String value = System.getProperty(name);
		assertThat(value).as("system property %s (set by the pom's surefire configuration)", name).isNotBlank();
		return value;
	}

}
