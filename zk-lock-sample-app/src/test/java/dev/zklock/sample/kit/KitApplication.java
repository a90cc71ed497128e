package dev.zklock.sample.kit;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.stereotype.Service;

import dev.zklock.annotation.DistributedLock;

/**
 * An application built on the starter alone, for the test kit's Spring tests.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class KitApplication {

	@Service
	static class Stock {

		@DistributedLock(key = "'stock:' + #sku", waitAtMost = "2s")
		String reserve(String sku) {
			return sku;
		}

	}

}
