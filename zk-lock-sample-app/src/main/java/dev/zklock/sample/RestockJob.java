package dev.zklock.sample;

import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import dev.zklock.annotation.LeaderOnly;
import dev.zklock.jdbc.JdbcFencing;
import dev.zklock.leadership.LeaderContext;

/**
 * Tops up every SKU that runs low, on one instance only: the leader of the group
 * {@code restock}. Each run is one transaction fenced with the term's epoch, so a leader
 * that was paused past its session and wakes up after another took over cannot restock
 * twice: its transaction is refused once the new leader has fenced. Every restock is
 * recorded with the epoch that wrote it.
 *
 * @author zk-lock
 */
@Component
public class RestockJob {

	private final JdbcTemplate jdbc;

	private final JdbcFencing fencing;

	private final int below;

	private final int upTo;

	public RestockJob(JdbcTemplate jdbc, JdbcFencing fencing, @Value("${shop.restock.below:10}") int below,
			@Value("${shop.restock.up-to:100}") int upTo) {
		this.jdbc = jdbc;
		this.fencing = fencing;
		this.below = below;
		this.upTo = upTo;
	}

	/**
	 * Restock every SKU below the threshold but the demos' ({@code demo-...}); skipped
	 * where this instance does not lead.
	 */
	@LeaderOnly(group = "restock")
	@Scheduled(fixedDelayString = "${shop.restock.every:10s}")
	@Transactional
	public void restock() {
		// The fence first: from here on, an older leader's transaction is refused
		this.fencing.fenceTransaction();
		long epoch = LeaderContext.current().epoch();
		// The demos' SKUs (demo-...) keep what their run left, for its report to be read
		List<String> low = this.jdbc.queryForList("SELECT sku FROM stock WHERE qty < ? AND sku NOT LIKE 'demo-%'",
				String.class, this.below);
		for (String sku : low) {
			this.jdbc.update("UPDATE stock SET qty = ? WHERE sku = ?", this.upTo, sku);
			this.jdbc.update("INSERT INTO restock (sku, qty, epoch) VALUES (?, ?, ?)", sku, this.upTo, epoch);
		}
	}

	/**
	 * How many restocks were recorded.
	 * @return the count
	 */
	public int restocks() {
		Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM restock", Integer.class);
		return (count != null) ? count : 0;
	}

}
