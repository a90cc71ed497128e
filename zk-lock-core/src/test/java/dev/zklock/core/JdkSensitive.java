package dev.zklock.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * Marks a test class whose outcome can change with the Java runtime, not only with the
 * bytecode: virtual threads and their pinning, {@code CompletableFuture}'s default async
 * pool (the common pool even with one worker from Java 25 on, a thread per task before),
 * Kotlin coroutines, reflection and the reading of class files. Every test runs on Java
 * 17; {@code .ci/run} runs the classes of this tag ({@value #TAG}) again on Java 25, and
 * the {@code test-jdk-all} profile runs them all there. Shared with the other modules'
 * tests through this module's test jar.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(JdkSensitive.TAG)
public @interface JdkSensitive {

	/**
	 * The JUnit tag, for surefire's {@code groups}.
	 */
	String TAG = "jdk-sensitive";

}
