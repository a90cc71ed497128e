package com.example.shop;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import dev.zklock.core.ZkLock;
import dev.zklock.jdbc.FencingTokenRejectedException;
import dev.zklock.jdbc.JdbcFencing;
import dev.zklock.test.ZkLockTestKit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@SpringBootTest
class BillingServiceStaleWriteTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create();

	@Autowired
	BillingService billing;

	@Autowired
	JdbcFencing fencing;

	@Autowired
	TransactionTemplate tx;

	@Autowired
	JdbcClient jdbc;

	@Test
	void thePausedInstancesStaleWriteIsRefused() {
		ZkLock otherInstance = zk.newParticipant().obtain("invoice:acme");
		zk.onAcquired("invoice:acme", () -> zk.pauseHolder("invoice:acme", () -> {
			otherInstance.acquire(Duration.ofSeconds(5)); // takes the key meanwhile
			this.tx.executeWithoutResult(
					(status) -> this.fencing.fenceTransaction("invoice:acme", otherInstance.fencingToken()));
			otherInstance.unlock();
		}));
		assertThatExceptionOfType(FencingTokenRejectedException.class)
			.isThrownBy(() -> this.billing.invoice("acme", 100));
		assertThat(this.jdbc.sql("select count(*) from invoices").query(Integer.class).single()).isZero();
	}

}
