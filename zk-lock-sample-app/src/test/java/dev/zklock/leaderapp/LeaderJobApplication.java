package dev.zklock.leaderapp;

import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import dev.zklock.annotation.LeaderOnly;
import dev.zklock.core.leader.LeadershipLostException;
import dev.zklock.jdbc.FencingTokenRejectedException;
import dev.zklock.jdbc.JdbcFencing;
import dev.zklock.leadership.LeaderContext;
import dev.zklock.leadership.LeaderGrantedEvent;
import dev.zklock.leadership.LeaderRevokedEvent;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * An application on the starter whose leader-only job posts to a ledger in PostgreSQL,
 * run in several JVMs by {@code LeadershipAcrossJvmsTests}: each run reads the balance,
 * works for {@code job.work}, then writes the balance plus one in a transaction fenced
 * with its term's epoch, and records the write. It prints what happens, one line each,
 * for the test to read: {@code GRANTED}, {@code REVOKED}, {@code READ}, {@code WROTE},
 * {@code REFUSED} (the fence refused a stale epoch) and {@code STOPPED} (the work was
 * interrupted as its term was lost). Outside the shop's package, so the shop's component
 * scan does not find it.
 */
@SpringBootApplication
@EnableScheduling
public class LeaderJobApplication {

	public static void main(String[] args) {
		SpringApplication.run(LeaderJobApplication.class, args);
	}

	@Bean
	JdbcFencing jdbcFencing(DataSource dataSource) {
		return new JdbcFencing(dataSource);
	}

	static void say(String line) {
		System.out.println("LEDGER " + line + " " + System.currentTimeMillis());
		System.out.flush();
	}

	@EventListener
	void granted(LeaderGrantedEvent event) {
		say("GRANTED " + event.getEpoch());
	}

	@EventListener
	void revoked(LeaderRevokedEvent event) {
		say("REVOKED " + event.getEpoch() + " " + event.getWhy());
	}

	/**
	 * Ticks on every instance; the ledger skips its run where this instance does not
	 * lead.
	 */
	@Component
	static class Ticker {

		private final Ledger ledger;

		Ticker(Ledger ledger) {
			this.ledger = ledger;
		}

		@Scheduled(fixedDelayString = "${job.tick:50}")
		void tick() {
			try {
				this.ledger.post();
			}
			catch (LeadershipLostException ex) {
				say("STOPPED " + ex.getEpoch());
			}
			catch (FencingTokenRejectedException ex) {
				say("REFUSED " + ex.getMessage().replace('\n', ' '));
			}
		}

	}

	@Component
	static class Ledger {

		private final JdbcTemplate jdbc;

		private final JdbcFencing fencing;

		private final TransactionTemplate transactions;

		private final long workMs;

		private final String instance;

		Ledger(JdbcTemplate jdbc, JdbcFencing fencing, TransactionTemplate transactions,
				@Value("${job.work:1000}") long workMs, @Value("${job.instance}") String instance) {
			this.jdbc = jdbc;
			this.fencing = fencing;
			this.transactions = transactions;
			this.workMs = workMs;
			this.instance = instance;
		}

		@LeaderOnly(group = "ledger")
		public void post() {
			long epoch = LeaderContext.current().epoch();
			Integer balance = this.jdbc.queryForObject("SELECT balance FROM ledger WHERE id = 1", Integer.class);
			say("READ " + epoch + " " + balance);
			try {
				// The in-flight window: a paused leader is frozen here
				Thread.sleep(this.workMs);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			this.transactions.executeWithoutResult((status) -> {
				this.fencing.fenceTransaction("ledger", epoch);
				int current = this.jdbc.queryForObject("SELECT balance FROM ledger WHERE id = 1", Integer.class);
				this.jdbc.update("UPDATE ledger SET balance = ? WHERE id = 1", current + 1);
				this.jdbc.update("INSERT INTO ledger_write (epoch, instance, balance) VALUES (?, ?, ?)", epoch,
						this.instance, current + 1);
			});
			say("WROTE " + epoch);
		}

	}

}
