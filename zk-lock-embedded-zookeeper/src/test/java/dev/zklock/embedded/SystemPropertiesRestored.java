package dev.zklock.embedded;

import java.util.Properties;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Puts the system properties back after each test: ZooKeeper's server turns unknown
 * {@code zoo.cfg} keys into system properties, which would leak into the next test.
 */
final class SystemPropertiesRestored implements BeforeEachCallback, AfterEachCallback {

	private Properties saved = new Properties();

	@Override
	public void beforeEach(ExtensionContext context) {
		this.saved = (Properties) System.getProperties().clone();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		System.setProperties(this.saved);
	}

}
