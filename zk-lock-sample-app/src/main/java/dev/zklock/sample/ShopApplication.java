package dev.zklock.sample;

import javax.sql.DataSource;

import dev.zklock.jdbc.JdbcFencing;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A shop whose stock must never be oversold, even with several instances taking orders:
 * each order decrements stock under {@code @DistributedLock} inside a transaction, and
 * one instance, the leader, restocks ({@link RestockJob}).
 *
 * @author zk-lock
 */
@SpringBootApplication
@EnableScheduling
public class ShopApplication {

	public static void main(String[] args) {
		SpringApplication.run(ShopApplication.class, args);
	}

	/**
	 * Fenced writes on the shop's database.
	 * @param dataSource the data source
	 * @return the fencing helper
	 */
	@Bean
	JdbcFencing jdbcFencing(DataSource dataSource) {
		return new JdbcFencing(dataSource);
	}

}
