package dev.zklock.core;

import dev.zklock.core.internal.fixture.EngineFixture;

/**
 * Stands for an API type (package {@code dev.zklock.core}) that names an engine type; a
 * test class of this module, never a main class.
 */
public class ApiFixture {

	/**
	 * Gives away an engine type.
	 * @return the engine
	 */
	public EngineFixture engine() {
		return new EngineFixture();
	}

}
