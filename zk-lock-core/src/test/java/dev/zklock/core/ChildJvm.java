package dev.zklock.core;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a main class in a child JVM on this JVM's classpath, with its output in a file:
 * how the tests of every module put lock clients in real separate processes. Shared
 * through this module's test jar.
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
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(List.of(args));
		return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
	}

	/**
	 * Wait for child JVMs to exit with status 0, killing all of them if one does not end
	 * in time; a failure message carries the child's output.
	 * @param processes the children
	 * @param outputs their output files, in the same order
	 * @param timeout how long to wait for each
	 * @throws Exception if waiting fails
	 */
	public static void awaitSuccess(List<Process> processes, List<Path> outputs, java.time.Duration timeout)
			throws Exception {
		for (int i = 0; i < processes.size(); i++) {
			Process process = processes.get(i);
			boolean exited = process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
			if (!exited) {
				processes.forEach(Process::destroyForcibly);
			}
			String output = java.nio.file.Files.readString(outputs.get(i));
			org.assertj.core.api.Assertions.assertThat(exited)
				.as("JVM %d ended in time; output:%n%s", i, output)
				.isTrue();
			org.assertj.core.api.Assertions.assertThat(process.exitValue())
				.as("JVM %d exit code; output:%n%s", i, output)
				.isZero();
		}
	}

}
