package dev.zklock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

/**
 * Scenario 4 (JMH): what a call costs when the thread already holds the lock: through
 * {@code @DistributedLock} (key evaluation, interceptor, template, engine), through
 * {@link ZkLockTemplate} (template and engine) and through the engine alone. Public API
 * only.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AnnotationOverheadBenchmark {

	@Param("127.0.0.1:2181")
	public String connectString;

	private ConfigurableApplicationContext context;

	private AnnotatedCounter counter;

	private ZkLock held;

	private ZkLockTemplate template;

	@Setup(Level.Trial)
	public void setUp() throws Exception {
		this.context = BenchContext.start(this.connectString);
		this.counter = this.context.getBean(AnnotatedCounter.class);
		this.held = this.context.getBean(ZkLockRegistry.class).obtain("stock:sku-1");
		// This benchmark thread holds the lock, so every measured call takes the
		// reentrant path
		this.held.lock();
		this.template = this.context.getBean(ZkLockTemplate.class);
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.held.unlock();
		this.context.close();
	}

	@Benchmark
	public String annotatedReentrant() {
		return this.counter.touch("sku-1");
	}

	@Benchmark
	public void engineReentrant() {
		this.held.lock();
		this.held.unlock();
	}

	@Benchmark
	public String templateReentrant() {
		return this.template.execute("stock", "stock:sku-1", Duration.ZERO, () -> "sku-1");
	}

}
