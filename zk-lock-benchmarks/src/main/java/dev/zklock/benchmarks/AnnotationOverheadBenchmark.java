package dev.zklock.benchmarks;

import java.lang.reflect.Method;
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
import org.springframework.aop.support.AopUtils;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.aop.LockKeyExpressionEvaluator;
import dev.zklock.aop.LockOperation;
import dev.zklock.aop.LockOperationSource;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;

/**
 * Scenario 4 (JMH): what a call costs when the thread already holds the lock — through
 * {@code @DistributedLock} and through the engine — and what evaluating a key expression costs.
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

	private LockKeyExpressionEvaluator evaluator;

	private LockOperation operation;

	private Object[] args;

	private Object target;

	@Setup(Level.Trial)
	public void setUp() throws Exception {
		this.context = BenchContext.start(this.connectString);
		this.counter = this.context.getBean(AnnotatedCounter.class);
		this.held = this.context.getBean(ZkLockRegistry.class).obtain("stock:sku-1");
		// This benchmark thread holds the lock, so every measured call takes the reentrant path
		this.held.lock();
		Method method = AnnotatedCounter.class.getMethod("touch", String.class);
		this.target = AopUtils.getTargetClass(this.counter).getDeclaredConstructor().newInstance();
		this.operation = this.context.getBean(LockOperationSource.class).getOperation(method, AnnotatedCounter.class);
		this.evaluator = new LockKeyExpressionEvaluator(this.context.getBeanFactory());
		this.args = new Object[] { "sku-1" };
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
	public Object keyEvaluation() {
		return this.evaluator.evaluate(this.operation, this.args, this.target);
	}

}
