package com.example.shop;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.zklock.test.ZkLockTestKit;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@ExtendWith(OutputCaptureExtension.class)
class NightlyReportOutageTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create();

	@Autowired
	NightlyReport report;

	@Test
	void whileZooKeeperIsDownTheJobNeitherRunsNorLogsAnError(CapturedOutput output) {
		zk.stopServer(); // returns once the application has noticed
		this.report.run();
		assertThat(this.report.runs()).isZero();
		assertThat(output).doesNotContain("ERROR");
		zk.restartServer();
		this.report.run();
		assertThat(this.report.runs()).isOne();
	}

}
