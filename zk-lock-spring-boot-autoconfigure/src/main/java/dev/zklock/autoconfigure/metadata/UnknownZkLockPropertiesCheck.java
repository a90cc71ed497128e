package dev.zklock.autoconfigure.metadata;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginLookup;
import org.springframework.boot.origin.TextResourceOrigin;
import org.springframework.core.env.CommandLinePropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Fails startup when the environment has a {@code zklock.*} key that no zk-lock module on
 * the classpath declares ({@link ZkLockConfigurationMetadata}), a misspelled name most
 * often, which zk-lock would otherwise ignore in favour of its default. Every such key of
 * every enumerable property source is reported at once, with where it came from and the
 * property nearest to it; with {@code zklock.fail-on-unknown-properties=false} they are
 * logged in one warning line instead.
 * <p>
 * A bean factory post-processor of zk-lock's auto-configuration: it runs once per context
 * refresh, only where that auto-configuration is active, and before any bean exists, so
 * that the client never connects with a configuration the user did not mean. A key is
 * known when Spring Boot would bind it to a declared property, in any of the relaxed
 * forms Boot accepts.
 *
 * @author zk-lock
 */
public final class UnknownZkLockPropertiesCheck implements BeanFactoryPostProcessor {

	/**
	 * The switch that turns the failure into a warning.
	 */
	static final String FAIL_ON_UNKNOWN_PROPERTIES = "zklock.fail-on-unknown-properties";

	private static final Logger logger = LoggerFactory.getLogger(UnknownZkLockPropertiesCheck.class);

	private final Environment environment;

	/**
	 * Create a new instance.
	 * @param environment the environment whose {@code zklock.*} keys are checked
	 */
	public UnknownZkLockPropertiesCheck(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		if (!(this.environment instanceof ConfigurableEnvironment environment)) {
			return;
		}
		long start = System.nanoTime();
		List<Candidate> candidates = candidates(environment);
		List<UnknownZkLockProperty> unknown = candidates.isEmpty() ? List.of()
				: unknown(candidates, beanFactory.getBeanClassLoader());
		if (logger.isDebugEnabled()) {
			logger.debug("Checked {} zklock.* keys against the configuration metadata in {} us: {} unknown",
					candidates.size(), TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start), unknown.size());
		}
		if (unknown.isEmpty()) {
			return;
		}
		if (Binder.get(environment).bind(FAIL_ON_UNKNOWN_PROPERTIES, Boolean.class).orElse(true)) {
			throw new UnknownZkLockPropertiesException(unknown);
		}
		logger.warn("zk-lock ignores {} that it does not know ({}=false): {}", UnknownZkLockProperty.count(unknown),
				FAIL_ON_UNKNOWN_PROPERTIES, UnknownZkLockProperty.list(unknown));
	}

	/**
	 * The {@code zklock.*} keys of every enumerable property source, in order of
	 * precedence and, within a source, of line, then name.
	 */
	private static List<Candidate> candidates(ConfigurableEnvironment environment) {
		List<Candidate> candidates = new ArrayList<>();
		// Boot's attached "configurationProperties" source is not enumerable: no key is
		// seen twice through it
		for (PropertySource<?> source : environment.getPropertySources()) {
			if (source instanceof EnumerablePropertySource<?> enumerable) {
				boolean systemEnvironment = isSystemEnvironment(source);
				List<Candidate> ofSource = new ArrayList<>();
				for (String name : enumerable.getPropertyNames()) {
					if (isZkLockKey(name, systemEnvironment)) {
						ofSource
							.add(new Candidate(source, name, systemEnvironment, OriginLookup.getOrigin(source, name)));
					}
				}
				ofSource.sort(Comparator.comparingInt(Candidate::line).thenComparing(Candidate::name));
				candidates.addAll(ofSource);
			}
		}
		return candidates;
	}

	/**
	 * Whether Spring Boot maps a key to a name whose first element is {@code zklock}, as
	 * it does for {@code zklock.x}, {@code ZKLOCK_X} and {@code zk-lock.x}.
	 */
	static boolean isZkLockKey(String name, boolean systemEnvironment) {
		// Cheap test first: environments hold hundreds of names, few of them zk-lock's
		if (name.length() < ZkLockConfigurationMetadata.PREFIX.length() || !name.regionMatches(true, 0, "zk", 0, 2)) {
			return false;
		}
		return firstElementIsPrefix(name, '.') || (systemEnvironment && firstElementIsPrefix(name, '_'));
	}

	private static boolean firstElementIsPrefix(String name, char separator) {
		try {
			ConfigurationPropertyName adapted = ConfigurationPropertyName.adapt(name, separator);
			return !adapted.isEmpty() && ZkLockConfigurationMetadata.PREFIX.equals(adapted.getElement(0, Form.UNIFORM));
		}
		catch (RuntimeException ex) {
			// Not a name Boot binds from
			return false;
		}
	}

	private static List<UnknownZkLockProperty> unknown(List<Candidate> candidates, @Nullable ClassLoader classLoader) {
		// zk-lock's auto-configuration module first: every metadata file on the classpath
		// is read only for a key that is not one of its properties
		ZkLockConfigurationMetadata metadata = ZkLockConfigurationMetadata.load(classLoader, true);
		List<Candidate> unknown = unknown(candidates, metadata);
		if (unknown.isEmpty()) {
			return List.of();
		}
		metadata = ZkLockConfigurationMetadata.load(classLoader, false);
		if (metadata.isEmpty()) {
			logger.warn("No zklock.* property is declared in the configuration metadata on the classpath "
					+ "(META-INF/spring-configuration-metadata.json): zklock.* keys are not checked. Were the "
					+ "zk-lock modules built without spring-boot-configuration-processor?");
			return List.of();
		}
		List<UnknownZkLockProperty> properties = new ArrayList<>();
		for (Candidate candidate : unknown(unknown, metadata)) {
			String nearest = metadata.nearest(candidate.adaptedName());
			String suggestion = (nearest == null || !candidate.systemEnvironment()) ? nearest
					: nearest + " (" + environmentVariable(nearest) + ")";
			properties.add(new UnknownZkLockProperty(candidate.name(), candidate.describeOrigin(), suggestion));
		}
		return properties;
	}

	private static List<Candidate> unknown(List<Candidate> candidates, ZkLockConfigurationMetadata metadata) {
		return candidates.stream()
			.filter((candidate) -> !metadata.isKnown(candidate.asConfigurationPropertySource()))
			.toList();
	}

	/**
	 * Spring Boot's own test for the source whose names it maps as environment variables.
	 */
	private static boolean isSystemEnvironment(PropertySource<?> source) {
		String name = source.getName();
		return source instanceof SystemEnvironmentPropertySource
				&& (StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(name)
						|| name.endsWith("-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME));
	}

	/**
	 * The environment variable form Spring Boot recommends for a property:
	 * {@code zklock.lock.default-wait} is {@code ZKLOCK_LOCK_DEFAULTWAIT}.
	 */
	private static String environmentVariable(String property) {
		ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
		StringJoiner variable = new StringJoiner("_");
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			variable.add(name.getElement(i, Form.UNIFORM).toUpperCase(Locale.ROOT));
		}
		return variable.toString();
	}

	/**
	 * A {@code zklock.*} key of a property source.
	 */
	private record Candidate(PropertySource<?> source, String name, boolean systemEnvironment,
			@Nullable Origin origin) {

		/**
		 * The key alone in a source of its own kind, so that Spring Boot applies the
		 * mapping rules of the original source (the environment variable forms among
		 * them) when asked whether it binds to a declared property.
		 */
		ConfigurationPropertySource asConfigurationPropertySource() {
			Object value = this.source.getProperty(this.name);
			Map<String, Object> entry = Map.of(this.name, (value != null) ? value : "");
			PropertySource<?> single = this.systemEnvironment
					? new SystemEnvironmentPropertySource(this.source.getName(), entry)
					: new MapPropertySource(this.source.getName(), entry);
			// null only for Boot's attached "configurationProperties" source
			return Objects.requireNonNull(ConfigurationPropertySource.from(single));
		}

		/**
		 * The key split into elements as Spring Boot splits it.
		 */
		ConfigurationPropertyName adaptedName() {
			boolean variable = this.systemEnvironment && this.name.indexOf('.') < 0;
			return ConfigurationPropertyName.adapt(this.name, variable ? '_' : '.');
		}

		int line() {
			return (this.origin instanceof TextResourceOrigin text && text.getLocation() != null)
					? text.getLocation().getLine() : Integer.MAX_VALUE;
		}

		String describeOrigin() {
			if (this.systemEnvironment) {
				return "environment variable";
			}
			if (StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(this.source.getName())) {
				return "system property";
			}
			if (this.source instanceof CommandLinePropertySource) {
				return "command-line argument";
			}
			if (this.origin instanceof TextResourceOrigin text && text.getResource() != null) {
				TextResourceOrigin.Location location = text.getLocation();
				return text.getResource().getDescription()
						+ ((location != null) ? ", line " + (location.getLine() + 1) : "");
			}
			if (this.origin != null) {
				return this.origin.toString();
			}
			return "property source '" + this.source.getName() + "'";
		}

	}

}
