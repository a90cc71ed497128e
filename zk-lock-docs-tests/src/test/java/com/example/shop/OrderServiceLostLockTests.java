package com.example.shop;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.zklock.core.LockLostException;
import dev.zklock.test.ZkLockTestKit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@SpringBootTest
class OrderServiceLostLockTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create();

	@Autowired
	OrderService orders;

	@Autowired
	JdbcClient jdbc;

	@Test
	void anOrderWhoseLockIsLostMidWayRollsBackAndWritesNothing() {
		zk.onAcquired("order:7", zk::expireSession); // inside the locked window, before
														// the insert
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> this.orders.place(7, "book"));
		assertThat(this.jdbc.sql("select count(*) from orders where id = 7").query(Integer.class).single()).isZero();
		zk.assertThatKey("order:7").wasLost().isNotHeld();
	}

}
