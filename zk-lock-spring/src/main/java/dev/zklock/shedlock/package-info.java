/**
 * ShedLock on zk-lock: a {@link net.javacrumbs.shedlock.core.LockProvider LockProvider}
 * for {@code @SchedulerLock} and {@code LockingTaskExecutor}. Needs {@code shedlock-core}
 * on the class path.
 */
@NullMarked
package dev.zklock.shedlock;

import org.jspecify.annotations.NullMarked;
