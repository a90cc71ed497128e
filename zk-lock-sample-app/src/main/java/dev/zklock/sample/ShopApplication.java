package dev.zklock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A shop whose stock must never be oversold, even with several instances taking orders:
 * each order decrements stock under {@code @DistributedLock} inside a transaction.
 *
 * @author zk-lock
 */
@SpringBootApplication
public class ShopApplication {

	public static void main(String[] args) {
		SpringApplication.run(ShopApplication.class, args);
	}

}
