package dev.zklock.docs;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```java} block of the repository's Markdown compiles against the current
 * code. A block that declares a top-level type is a compilation unit; one that starts
 * with an annotation, a method or a field is the body of a class extending
 * {@code SnippetSupport}; anything else is the body of a method of such a class. {@code {
 * ... }} stands for a body the reader writes. See CONTRIBUTING.md.
 */
class JavaSnippetsTests {

	/** What every snippet may use without importing it. */
	static final List<String> IMPORTS = List.of("java.io.*", "java.time.*", "java.util.*", "java.util.concurrent.*",
			"javax.sql.DataSource", "dev.zklock.annotation.*", "dev.zklock.core.*", "dev.zklock.template.*",
			"dev.zklock.template.observation.*", "dev.zklock.jdbc.*", "dev.zklock.integration.*",
			"dev.zklock.shedlock.*", "dev.zklock.leadership.*", "dev.zklock.core.leader.*", "dev.zklock.docs.support.*",
			"io.micrometer.common.KeyValues", "org.apache.curator.framework.CuratorFramework",
			"org.apache.curator.framework.CuratorFrameworkFactory",
			"org.apache.curator.framework.recipes.leader.LeaderLatch",
			"org.apache.curator.retry.ExponentialBackoffRetry", "org.springframework.boot.SpringApplication",
			"org.springframework.boot.test.context.SpringBootTest",
			"org.springframework.boot.testcontainers.service.connection.ServiceConnection",
			"org.springframework.context.SmartLifecycle", "org.springframework.context.annotation.*",
			"org.springframework.context.event.EventListener", "org.springframework.jdbc.core.JdbcTemplate",
			"org.springframework.http.*", "org.springframework.integration.support.leader.LockRegistryLeaderInitiator",
			"org.springframework.integration.support.locks.LockRegistry", "org.springframework.scheduling.annotation.*",
			"org.springframework.stereotype.*", "org.springframework.transaction.annotation.Transactional",
			"org.springframework.web.bind.annotation.*", "org.testcontainers.containers.GenericContainer",
			"org.testcontainers.containers.wait.strategy.Wait", "org.testcontainers.junit.jupiter.Container",
			"org.testcontainers.junit.jupiter.Testcontainers", "reactor.core.publisher.Flux",
			"reactor.core.publisher.Mono");

	private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(static\\s+)?[\\w.*]+;[ \\t]*$");

	/** A snippet that is a whole source file keeps its package. */
	private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+);[ \\t]*$");

	private static final Pattern TYPE = Pattern
		.compile("(?m)^(?:(public|final|abstract)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)");

	private static final Pattern PUBLIC_TYPE = Pattern
		.compile("(?m)^public\\s+(?:(?:final|abstract)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)");

	private static final Pattern MEMBER = Pattern.compile(
			"^(?:@\\w+|(?:(?:public|protected|private|static|final|abstract|synchronized)\\s+)+\\S|[\\w.<>\\[\\]?, ]+\\s+\\w+\\s*\\([^)]*\\)\\s*(?:throws\\s+[\\w., ]+)?\\{)");

	@TempDir
	Path output;

	@Test
	void everyJavaSnippetCompiles() throws IOException {
		List<Unit> units = new ArrayList<>();
		List<String> skipped = new ArrayList<>();
		for (Markdown page : Markdown.all()) {
			List<Markdown.Block> blocks = page.blocks()
				.stream()
				.filter((block) -> block.language().equals("java"))
				.toList();
			Set<String> pageImports = new LinkedHashSet<>();
			for (Markdown.Block block : blocks) {
				if (IMPORT.matcher(block.code()).replaceAll("").isBlank()) {
					pageImports.addAll(imports(block.code()));
				}
			}
			for (Markdown.Block block : blocks) {
				if (block.notCompiledReason() != null) {
					assertThat(block.notCompiledReason()).as("%s: why it is not compiled", block.where()).isNotBlank();
					skipped.add(block.where());
					continue;
				}
				units.add(Unit.of(units.size(), block, pageImports));
			}
		}
		assertThat(units).as("Java snippets").hasSizeGreaterThan(20);
		assertThat(skipped).as("snippets not compiled").hasSizeLessThan(3);
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		List<String> options = List.of("-proc:none", "-d", this.output.toString(), "-classpath", classPath(),
				"--release", "17", "-Xlint:none", "-parameters");
		Boolean compiled = compiler
			.getTask(null, compiler.getStandardFileManager(diagnostics, Locale.ROOT, null), diagnostics, options, null,
					units.stream().map(Unit::source).toList())
			.call();
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				Unit unit = units.stream().filter((u) -> u.source() == diagnostic.getSource()).findFirst().orElse(null);
				String where = (unit != null) ? unit.where(diagnostic.getLineNumber())
						: String.valueOf(diagnostic.getSource());
				errors.add(where + ": " + diagnostic.getMessage(Locale.ROOT));
			}
		}
		assertThat(errors).as("compilation errors of the Markdown's Java snippets").isEmpty();
		assertThat(compiled).isTrue();
	}

	private static String classPath() {
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
	}

	private static List<String> imports(String code) {
		List<String> imports = new ArrayList<>();
		Matcher matcher = IMPORT.matcher(code);
		while (matcher.find()) {
			imports.add(matcher.group().strip());
		}
		return imports;
	}

	/**
	 * One snippet as a compilation unit.
	 *
	 * @param source the unit
	 * @param block the snippet
	 * @param header the lines before the snippet's first line
	 */
	record Unit(JavaFileObject source, Markdown.Block block, int header) {

		static Unit of(int index, Markdown.Block block, Set<String> pageImports) {
			String code = block.code();
			Set<String> imports = new LinkedHashSet<>(imports(code));
			imports.addAll(pageImports);
			for (String name : IMPORTS) {
				imports.add("import " + name + ";");
			}
			// Keep the snippet's lines where they are: its imports become blank lines
			String body = IMPORT.matcher(code).replaceAll("");
			body = body.replaceAll("\\)(\\s*(?:throws [\\w., ]+)?)\\{\\s*\\.\\.\\.\\s*}",
					")$1{ throw new UnsupportedOperationException(); }");
			body = body.replaceAll("\\{\\s*\\.\\.\\.\\s*}", "{ }");
			Matcher ownPackage = PACKAGE.matcher(body);
			String packageName = ownPackage.find() ? ownPackage.group(1) : "snippets.s" + index;
			body = PACKAGE.matcher(body).replaceAll("");
			StringBuilder header = new StringBuilder("package " + packageName + ";\n");
			imports.forEach((line) -> header.append(line).append('\n'));
			String name;
			String text;
			String first = body.lines()
				.map(String::strip)
				.filter((line) -> !line.isEmpty() && !line.startsWith("//"))
				.findFirst()
				.orElse("");
			if (TYPE.matcher(body).find()) {
				Matcher publicType = PUBLIC_TYPE.matcher(body);
				name = publicType.find() ? publicType.group(1) : "Snippet";
				text = header + body;
			}
			else if (MEMBER.matcher(first).find()) {
				name = "Snippet";
				header.append("abstract class Snippet extends SnippetSupport {\n");
				text = header + body + "\n}\n";
			}
			else {
				name = "Snippet";
				header.append("abstract class Snippet extends SnippetSupport {\nvoid snippet() throws Exception {\n");
				text = header + body + "\n}\n}\n";
			}
			int headerLines = (int) header.toString().lines().count();
			URI uri = URI.create("string:///" + packageName.replace('.', '/') + "/" + name + ".java");
			JavaFileObject source = new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
				@Override
				public CharSequence getCharContent(boolean ignoreEncodingErrors) {
					return text;
				}
			};
			return new Unit(source, block, headerLines);
		}

		String where(long line) {
			long inBlock = line - this.header - 1;
			return this.block.page().name() + ":" + (this.block.line() + Math.max(0, inBlock));
		}

	}

}
