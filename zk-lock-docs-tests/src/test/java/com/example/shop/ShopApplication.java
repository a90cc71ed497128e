package com.example.shop;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.PropertySource;

import dev.zklock.jdbc.JdbcFencing;

/**
 * The reader's application in the testing page's three tests: an order service, a billing
 * service with fenced writes, a nightly job that skips when busy.
 */
@SpringBootApplication
@PropertySource("classpath:com/example/shop/shop.properties")
public class ShopApplication {

	@Bean
	JdbcFencing jdbcFencing(DataSource dataSource) {
		return new JdbcFencing(dataSource);
	}

}
