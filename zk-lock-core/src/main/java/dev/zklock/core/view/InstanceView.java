package dev.zklock.core.view;

import java.time.Instant;

import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * One instance as it reports itself.
 *
 * @param participantId its participant id, {@code pid@host}: the data of its lock nodes
 * @param host the host part of the participant id
 * @param sessionId the ZooKeeper session the report belongs to
 * @param state the connection state the instance reported last, {@code null} before its
 * first event
 * @param stateSince since when, by its clock
 * @param reportedAt when it wrote the report, by ZooKeeper's clock
 * @param self whether this is the instance that read the view: its state is current, not
 * reported
 * @param silent whether its report has not been rewritten for three heartbeats while
 * others' were: its holds are in doubt
 * @param holds how many holds it reports
 * @param waiting how many of its calls wait
 * @author zk-lock
 */
public record InstanceView(String participantId, String host, long sessionId, @Nullable ConnectionState state,
		Instant stateSince, Instant reportedAt, boolean self, boolean silent, int holds, int waiting) {

}
