package dev.zklock.viewapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application on the starter and Actuator with nothing of its own: what
 * {@code ClusterViewPageBrowserTests} starts twice, to look at their locks through the
 * live page. Outside the shop's package, so the shop's component scan does not find it.
 */
@SpringBootApplication
public class LockViewApplication {

	public static void main(String[] args) {
		SpringApplication.run(LockViewApplication.class, args);
	}

}
