package dev.zklock.autoconfigure.web;

import java.net.URI;

import dev.zklock.jdbc.FencingTokenRejectedException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The problem for a {@link FencingTokenRejectedException}, apart from
 * {@link LockProblems} so that this class, which needs spring-tx, is loaded only where
 * spring-tx is present.
 *
 * @author zk-lock
 */
final class FencedWriteProblems {

	/** The {@code type} of the problem for a fenced JDBC write that was refused. */
	static final String FENCED_WRITE_REFUSED_TYPE = "https://zk-lock.dev/problems/fenced-write-refused";

	private FencedWriteProblems() {
	}

	static boolean isRefusal(Throwable ex) {
		return ex instanceof FencingTokenRejectedException;
	}

	/**
	 * Return the problem for a refused fenced write: {@code 409}, nothing of it applied.
	 * @param ex the refusal, a {@link FencingTokenRejectedException}
	 * @param exposeLockDetails whether the body names the fenced key or record and the
	 * tokens
	 * @return the problem
	 */
	static ProblemDetail problem(RuntimeException ex, boolean exposeLockDetails) {
		FencingTokenRejectedException refused = (FencingTokenRejectedException) ex;
		ProblemDetail problem = ProblemDetail.forStatus(HttpStatus.CONFLICT);
		problem.setType(URI.create(FENCED_WRITE_REFUSED_TYPE));
		problem.setTitle("Fenced write refused");
		if (exposeLockDetails) {
			problem.setDetail(refused.getMessage());
			problem.setProperty("fenced", refused.getKey());
			problem.setProperty("fencingToken", refused.getToken());
			problem.setProperty("storedToken", refused.getStoredToken());
			problem.setProperty("holderLock", refused.getHolderLock().name());
		}
		else {
			problem.setDetail("The data holds a newer fencing token than this request's lock; "
					+ "nothing of this write was applied.");
		}
		return problem;
	}

}
