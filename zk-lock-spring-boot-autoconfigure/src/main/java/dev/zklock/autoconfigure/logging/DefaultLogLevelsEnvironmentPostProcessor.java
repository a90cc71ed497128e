package dev.zklock.autoconfigure.logging;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Contributes default {@code logging.level.*} values as a property source of the lowest
 * precedence, so that any level the application sets for the same loggers, anywhere,
 * wins. zk-lock's modules use it to keep ZooKeeper's and Curator's routine chatter out of
 * the log; being levels, not a filter, it works with any logging system Spring Boot
 * supports.
 *
 * @author zk-lock
 */
public abstract class DefaultLogLevelsEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	private final String name;

	/**
	 * @param name the name of the property source, so that it is added once and can be
	 * found
	 */
	protected DefaultLogLevelsEnvironmentPostProcessor(String name) {
		this.name = name;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (environment.getPropertySources().contains(this.name)) {
			return;
		}
		Map<String, Object> levels = levels(environment);
		if (!levels.isEmpty()) {
			environment.getPropertySources().addLast(new MapPropertySource(this.name, levels));
		}
	}

	/**
	 * The levels to contribute, as {@code logging.level.<logger>} keys.
	 * @param environment the environment, with the application's configuration files read
	 * @return the levels, empty for none
	 */
	protected abstract Map<String, Object> levels(ConfigurableEnvironment environment);

	/**
	 * After the application's configuration files have been read, so that a property set
	 * there counts in {@link #levels}.
	 * @return the lowest precedence
	 */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
