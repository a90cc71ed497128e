package dev.zklock.sample;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.leadership.ZkLeadership;

/**
 * Who leads the restock job: {@code GET /demo/leader} on any instance shows the same
 * queue, and whether this instance leads; {@code POST /demo/leader/yield} makes this
 * instance step down if it leads.
 *
 * @author zk-lock
 */
@RestController
public class LeaderController {

	private static final String GROUP = "restock";

	private final ZkLeadership leadership;

	private final RestockJob restockJob;

	public LeaderController(ZkLeadership leadership, RestockJob restockJob) {
		this.leadership = leadership;
		this.restockJob = restockJob;
	}

	/**
	 * Show the group's leader and candidates, as every instance reads them.
	 * @return the view
	 * @throws Exception if ZooKeeper could not be read
	 */
	@GetMapping("/demo/leader")
	public LeaderView leader() throws Exception {
		LeaderTerm term = this.leadership.currentTerm(GROUP);
		return new LeaderView(GROUP, term != null, (term != null) ? term.epoch() : null, this.leadership.members(GROUP),
				this.restockJob.restocks());
	}

	/**
	 * Step down if this instance leads; another instance leads next.
	 * @return the view after the request
	 * @throws Exception if ZooKeeper could not be read
	 */
	@PostMapping("/demo/leader/yield")
	public LeaderView yieldLeadership() throws Exception {
		this.leadership.yieldLeadership(GROUP);
		return leader();
	}

	/**
	 * What {@code /demo/leader} shows.
	 *
	 * @param group the group
	 * @param thisInstanceLeads whether the instance that answered leads
	 * @param epoch its term's epoch if it leads
	 * @param members the leader first, then the candidates in queue order
	 * @param restocks how many restocks the job recorded
	 */
	public record LeaderView(String group, boolean thisInstanceLeads, @Nullable Long epoch, List<GroupMember> members,
			int restocks) {
	}

}
