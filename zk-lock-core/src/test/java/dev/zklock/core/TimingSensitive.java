package dev.zklock.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * Marks a test, or every test of a class, that asserts how long something takes (a wait
 * bounded, a release prompt, a failover within a session timeout, a share of grants that
 * depends on how fast a reply travels). The build runs the tests of a module in two JVMs
 * side by side, except the tests of this tag ({@value #TAG}): they run afterwards, one at
 * a time in one JVM, so that their bounds are measured beside the machine's own load
 * only, not beside a second test JVM of the same build. A test that only waits for an
 * outcome (a fault scenario that checks exclusion, fencing and cleanup within a generous
 * bound) is not of this tag, even in a class where other tests are. Shared with the other
 * modules' tests through this module's test jar.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(TimingSensitive.TAG)
public @interface TimingSensitive {

	/**
	 * The JUnit tag, for surefire's {@code groups}.
	 */
	String TAG = "timing-sensitive";

}
