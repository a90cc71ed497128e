package com.example.shop;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.template.LockContext;

/**
 * Places an order under its lock, in one transaction.
 */
@Service
public class OrderService {

	private final JdbcClient jdbc;

	public OrderService(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@DistributedLock(key = "'order:' + #id")
	@Transactional
	public void place(long id, String sku) {
		this.jdbc.sql("insert into orders (id, sku) values (:id, :sku)").param("id", id).param("sku", sku).update();
		LockContext.current().checkHeld(); // before the commit: throws unless the lease
											// is still HELD
	}

}
