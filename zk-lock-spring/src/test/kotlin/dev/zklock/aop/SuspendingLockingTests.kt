package dev.zklock.aop

import dev.zklock.annotation.DistributedLock
import dev.zklock.annotation.DistributedSemaphore
import dev.zklock.annotation.EnableDistributedLocks
import dev.zklock.template.LockMode
import dev.zklock.test.InProcessZooKeeper
import dev.zklock.core.JdkSensitive
import dev.zklock.test.InProcessZooKeeper.eventually
import dev.zklock.core.registry.ZkLockRegistry
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.apache.curator.framework.CuratorFramework
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/**
 * A Kotlin `suspend` function under `@DistributedLock`: Spring's coroutine bridge runs it as a
 * `Mono`, the lock is held around that `Mono`, and the caller suspends (never blocks) until it
 * completes; a cancelled coroutine releases the lock.
 */
@JdkSensitive
@Timeout(60)
class SuspendingLockingTests {

	@RegisterExtension
	@JvmField
	val zk = InProcessZooKeeper.perClass()

	private var context: AnnotationConfigApplicationContext? = null

	@AfterEach
	fun close() {
		context?.close()
	}

	private fun start(): Jobs {
		val client = zk.newClient()
		val started = AnnotationConfigApplicationContext()
		started.registerBean(CuratorFramework::class.java, java.util.function.Supplier { client })
		started.register(LockConfiguration::class.java)
		started.refresh()
		context = started
		return started.getBean(Jobs::class.java)
	}

	@Test
	fun suspendFunctionsOfSeveralCoroutinesNeverOverlap() {
		val jobs = start()
		val inside = AtomicInteger()
		val overlaps = AtomicInteger()
		val results = runBlocking {
			(1..8).map { async(Dispatchers.Default) { jobs.work("shared", inside, overlaps) } }.awaitAll()
		}
		assertThat(results).hasSize(8).containsOnly("done shared")
		assertThat(overlaps).hasValue(0)
		assertThat(zk.children("/locks/job:shared")).isEmpty()
	}

	@Test
	fun theLockIsHeldWhileTheFunctionIsSuspendedAndReleasedWhenItIsCancelled() {
		val jobs = start()
		val otherJvm = zk.newRegistry()
		runBlocking {
			val started = CompletableDeferred<Unit>()
			val job = launch(Dispatchers.Default) { jobs.waitForever("suspended", started) }
			withTimeout(20_000) { started.await() }
			assertThat(otherJvm.obtain("job:suspended").tryLock()).isFalse()
			assertThat(zk.children("/locks/job:suspended")).hasSize(1)
			job.cancel()
		}
		eventually().untilAsserted { assertThat(zk.children("/locks/job:suspended")).isEmpty() }
		assertThat(context!!.getBean(ZkLockRegistry::class.java).heldCount()).isZero()
	}

	@Test
	fun aSemaphorePermitFollowsTheCoroutine() {
		val jobs = start()
		val inside = AtomicInteger()
		val most = AtomicInteger()
		val results = runBlocking {
			(1..6).map { async(Dispatchers.Default) { jobs.render(inside, most) } }.awaitAll()
		}
		assertThat(results).hasSize(6).containsOnly("rendered")
		assertThat(most.get()).isBetween(1, 2)
		assertThat(context!!.getBean(ZkLockRegistry::class.java).heldCount()).isZero()
	}

	@Test
	fun aReadSideOnASuspendFunctionFailsStartup() {
		val client = zk.newClient()
		val started = AnnotationConfigApplicationContext()
		started.registerBean(CuratorFramework::class.java, java.util.function.Supplier { client })
		started.register(ReaderConfiguration::class.java)
		assertThatThrownBy { started.refresh() }.rootCause()
			.isInstanceOf(InvalidLockDeclarationException::class.java)
			.hasMessageStartingWith("Invalid @DistributedLock on " + Reader::class.java.name + ".read(String, Continuation)")
			.hasMessageContaining("mode = READ holds the read side of a read/write lock, which belongs to the thread "
					+ "that took it, and it is a Kotlin suspend function")
		started.close()
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	open class ReaderConfiguration {

		@Bean
		open fun zkLockRegistry(client: CuratorFramework) = ZkLockRegistry(client)

		@Bean
		open fun reader() = Reader()

	}

	open class Reader {

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.READ)
		open suspend fun read(id: String): String {
			delay(1)
			return "read $id"
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	open class LockConfiguration {

		@Bean
		open fun zkLockRegistry(client: CuratorFramework) = ZkLockRegistry(client)

		@Bean
		open fun jobs() = Jobs()

	}

	open class Jobs {

		@DistributedLock(key = "'job:' + #name")
		open suspend fun work(name: String, inside: AtomicInteger, overlaps: AtomicInteger): String {
			if (inside.incrementAndGet() > 1) {
				overlaps.incrementAndGet()
			}
			delay(20)
			inside.decrementAndGet()
			return "done $name"
		}

		@DistributedSemaphore(key = "'render'", permits = 2, waitAtMost = "20s")
		open suspend fun render(inside: AtomicInteger, most: AtomicInteger): String {
			most.accumulateAndGet(inside.incrementAndGet(), Math::max)
			delay(50)
			inside.decrementAndGet()
			return "rendered"
		}

		@DistributedLock(key = "'job:' + #name")
		open suspend fun waitForever(name: String, started: CompletableDeferred<Unit>): String {
			started.complete(Unit)
			awaitCancellation()
		}

	}

}
