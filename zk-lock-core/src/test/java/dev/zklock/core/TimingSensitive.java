package dev.zklock.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that asserts how long something takes (a wait bounded, a release
 * prompt, a failover within a session timeout) or runs a timed fault scenario. The build
 * runs the test classes of a module in two JVMs side by side, except the classes of this
 * tag ({@value #TAG}): they run afterwards, one at a time, so that their bounds are
 * measured beside the machine's own load only, not beside a second test JVM of the same
 * build. Shared with the other modules' tests through this module's test jar.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(TimingSensitive.TAG)
public @interface TimingSensitive {

	/**
	 * The JUnit tag, for surefire's {@code groups}.
	 */
	String TAG = "timing-sensitive";

}
