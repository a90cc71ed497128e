package com.example.shop;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.jdbc.JdbcFencing;

/**
 * Invoices a customer under its lock, in a fenced transaction.
 */
@Service
public class BillingService {

	private final JdbcFencing fencing;

	private final JdbcClient jdbc;

	public BillingService(JdbcFencing fencing, JdbcClient jdbc) {
		this.fencing = fencing;
		this.jdbc = jdbc;
	}

	@DistributedLock(key = "'invoice:' + #customer")
	@Transactional
	public void invoice(String customer, int amount) {
		this.fencing.fenceTransaction(); // refused once a later holder has fenced
		this.jdbc.sql("insert into invoices (customer, amount) values (:customer, :amount)")
			.param("customer", customer)
			.param("amount", amount)
			.update();
	}

}
