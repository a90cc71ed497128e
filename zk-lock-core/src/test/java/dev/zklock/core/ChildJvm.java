package dev.zklock.core;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a main class in a child JVM on this JVM's classpath, with its output in a file: how the
 * tests of every module put lock clients in real separate processes. Shared through this
 * module's test jar.
 */
public final class ChildJvm {

	private ChildJvm() {
	}

	/**
	 * Start a child JVM.
	 * @param mainClass the class to run
	 * @param output the file that receives its standard output and error
	 * @param args its arguments
	 * @return the process
	 * @throws IOException if it cannot be started
	 */
	public static Process start(Class<?> mainClass, Path output, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(List.of(args));
		return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
	}

}
