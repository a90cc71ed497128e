package dev.zklock.aop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.template.LockContext;
import dev.zklock.annotation.UnlockedSelfCall;
import dev.zklock.aop.SelfInvocationException.SelfCall;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.JdkSensitive;
import dev.zklock.template.LockAssert;

import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A bean that calls one of its own locked methods through {@code this} bypasses the proxy
 * and runs it without its lock: every shape of such a call fails startup, naming the
 * caller, the locked method and the call's line; calls through the proxy, on other beans
 * or instances, or declared deliberate, do not. The lines are found in this file by the
 * {@code // call:} comments at the ends of the calls' lines.
 */
@JdkSensitive
@Timeout(60)
class SelfInvocationTests {

	private static final String FILE = "SelfInvocationTests.java";

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void directCall() {
		assertCalls(Direct.class, new SelfCall(name(Direct.class) + ".caller()", at("direct"), "@DistributedLock",
				name(Direct.class) + ".locked()", "locked"));
	}

	@Test
	void callInALambda() {
		assertCalls(InLambda.class, new SelfCall("a lambda in " + name(InLambda.class) + ".caller()", at("lambda"),
				"@DistributedLock", name(InLambda.class) + ".locked(String)", "locked"));
	}

	@Test
	void callInALambdaInALambda() {
		assertCalls(InNestedLambda.class, new SelfCall("a lambda in " + name(InNestedLambda.class) + ".caller()",
				at("nested-lambda"), "@DistributedLock", name(InNestedLambda.class) + ".locked()", "locked"));
	}

	@Test
	void methodReference() {
		assertCalls(MethodReference.class,
				new SelfCall("the method reference this::locked in " + name(MethodReference.class) + ".caller()",
						at("method-reference"), "@DistributedLock", name(MethodReference.class) + ".locked()",
						"locked"));
	}

	@Test
	void callFromAnInnerClassThroughTheEnclosingInstance() {
		assertCalls(FromInnerClass.class,
				new SelfCall(name(FromInnerClass.class) + "$Worker.work(), on FromInnerClass.this", at("inner"),
						"@DistributedLock", name(FromInnerClass.class) + ".locked()", "locked"),
				new SelfCall(name(FromInnerClass.class) + "$Worker$Deeper.work(), on FromInnerClass.this",
						at("inner-inner"), "@DistributedLock", name(FromInnerClass.class) + ".locked()", "locked"));
	}

	@Test
	void methodReferenceOnTheEnclosingInstance() {
		assertCalls(ReferenceFromInnerClass.class,
				new SelfCall(
						"the method reference ReferenceFromInnerClass.this::locked in "
								+ name(ReferenceFromInnerClass.class) + "$Worker.work()",
						at("inner-reference"), "@DistributedLock", name(ReferenceFromInnerClass.class) + ".locked()",
						"locked"));
	}

	@Test
	void callFromAnAnonymousClassThroughTheEnclosingInstance() {
		assertCalls(FromAnonymousClass.class,
				new SelfCall(
						name(FromAnonymousClass.class) + "$1.run() (in a class written in "
								+ name(FromAnonymousClass.class) + ".caller()), on FromAnonymousClass.this",
						at("anonymous"), "@DistributedLock", name(FromAnonymousClass.class) + ".locked()", "locked"));
	}

	@Test
	void callToAnInheritedLockedMethod() {
		assertCalls(InheritsLocked.class, new SelfCall(name(InheritsLocked.class) + ".caller()", at("inherited"),
				"@DistributedLock", name(InheritsLocked.class) + ".locked()", "locked"));
	}

	@Test
	void callFromASuperclassMethod() {
		assertCalls(CalledFromSuperclass.class, new SelfCall(name(CallingBase.class) + ".caller()", at("superclass"),
				"@DistributedLock", name(CalledFromSuperclass.class) + ".locked()", "locked"));
	}

	@Test
	void callFromAnInterfaceDefaultMethod() {
		assertCalls(GreetsTwice.class, new SelfCall(name(Greeter.class) + ".greetTwice()", at("default-method"),
				"@DistributedLock", name(GreetsTwice.class) + ".greet()", "greet"));
	}

	@Test
	void callThroughAGenericBridge() {
		assertCalls(StringProcessor.class, new SelfCall(name(Processor.class) + ".processAll(List)", at("bridge"),
				"@DistributedLock", name(StringProcessor.class) + ".process(String)", "process"));
	}

	@Test
	void callToASemaphoreMethod() {
		assertCalls(SemaphoreCaller.class, new SelfCall(name(SemaphoreCaller.class) + ".caller()", at("semaphore"),
				"@DistributedSemaphore", name(SemaphoreCaller.class) + ".render()", "render"));
	}

	@Test
	void callWithBranchesNestedCallsAndATryInItsArgumentsIsReportedOnce() {
		assertCalls(ComplexArguments.class, new SelfCall(name(ComplexArguments.class) + ".caller(boolean, String)",
				at("complex"), "@DistributedLock", name(ComplexArguments.class) + ".locked(String, int)", "locked"));
	}

	@Test
	void everyCallOfTheBeanIsListedInClassFileOrder() {
		assertCalls(ManyCalls.class,
				new SelfCall("the constructor " + name(ManyCalls.class) + "()", at("many-4"), "@DistributedLock",
						name(ManyCalls.class) + ".locked()", "locked"),
				new SelfCall(name(ManyCalls.class) + ".first()", at("many-1"), "@DistributedLock",
						name(ManyCalls.class) + ".locked()", "locked"),
				new SelfCall(name(ManyCalls.class) + ".second()", at("many-2"), "@DistributedLock",
						name(ManyCalls.class) + ".other()", "other"),
				new SelfCall(name(ManyCalls.class) + ".second()", at("many-3"), "@DistributedLock",
						name(ManyCalls.class) + ".locked()", "locked"));
	}

	@Test
	void aMarkerCoversOnlyTheMethodsItNames() {
		assertCalls(MarkerNamesAnother.class, new SelfCall(name(MarkerNamesAnother.class) + ".caller()", at("unnamed"),
				"@DistributedLock", name(MarkerNamesAnother.class) + ".locked()", "locked"));
	}

	@Test
	void theMessageListsTheCallsAndTheRemedies() {
		SelfInvocationException failure = startupFailure(Direct.class);
		assertThat(failure.getMessage()).isEqualTo("The bean 'direct' (" + name(Direct.class) + ") calls its own "
				+ "locked methods through 'this', which does not go through the proxy that takes their locks, so "
				+ "they would run without them:" + System.lineSeparator() + "\t- " + name(Direct.class) + ".caller() ("
				+ at("direct") + ") calls @DistributedLock " + name(Direct.class) + ".locked()" + System.lineSeparator()
				+ "Lock the caller instead, or call through the proxy: inject the bean into "
				+ "itself (@Lazy, or ObjectProvider) and call the method on that reference, e.g. self.locked(...). If "
				+ "a call is meant to run without its lock, say so at the caller with @UnlockedSelfCall(\"locked\")");
	}

	@Test
	void aSelfCallInAnInitializationCallbackFailsStartupBeforeItRuns() {
		PostConstructCaller.calls.set(0);
		assertCalls(PostConstructCaller.class, new SelfCall(name(PostConstructCaller.class) + ".afterPropertiesSet()",
				at("post-construct"), "@DistributedLock", name(PostConstructCaller.class) + ".locked()", "locked"));
		assertThat(PostConstructCaller.calls).hasValue(0);
	}

	@Test
	void callsThroughTheProxyAreLockedAndNotReported() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk, (registrar) -> {
			registrar.registerBean(ThroughLazySelf.class);
			registrar.registerBean(ThroughObjectProvider.class);
		})) {
			// The locked methods assert their lock: these calls went through the proxy
			context.getBean(ThroughLazySelf.class).caller();
			context.getBean(ThroughObjectProvider.class).caller();
			assertThat(context.getBean(ThroughLazySelf.class).lockedRuns()).isOne();
			assertThat(context.getBean(ThroughObjectProvider.class).lockedRuns()).isOne();
		}
	}

	@Test
	void callsOnOtherBeansOrInstancesAndDeliberateCallsAreNotReported() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk, (registrar) -> {
			registrar.registerBean(Direct.Other.class);
			registrar.registerBean(OnOtherBean.class);
			registrar.registerBean(OnOtherInstance.class);
			registrar.registerBean(MaybeThis.class);
			registrar.registerBean(Deliberate.class);
			registrar.registerBean(OverrideCallsSuper.class);
		})) {
			context.getBean(OnOtherBean.class).caller();
			Deliberate deliberate = context.getBean(Deliberate.class);
			deliberate.caller();
			deliberate.lambda().run();
			deliberate.anonymous().run();
			// Ran without their lock, as the marker said
			assertThat(deliberate.unlockedRuns()).isEqualTo(3);
			context.getBean(OverrideCallsSuper.class).locked();
		}
	}

	@Test
	void aClassWithoutAClassFileIsNotCheckedAndStarts() throws Exception {
		// Defined at runtime from bytes: no class file to read, so its self-call is not
		// seen, and startup goes on
		Class<?> generated = MethodHandles.lookup().defineClass(generatedSelfCaller());
		assertThat(generated.getClassLoader().getResource(generated.getName().replace('.', '/') + ".class")).isNull();
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk,
				(registrar) -> registrar.registerBean(generated))) {
			Object bean = context.getBean(generated);
			assertThatCode(() -> generated.getMethod("caller").invoke(bean)).doesNotThrowAnyException();
		}
	}

	/**
	 * A class {@code Generated} in this package with a locked method and a method that
	 * calls it through this.
	 */
	private static byte[] generatedSelfCaller() {
		String name = SelfInvocationTests.class.getPackageName().replace('.', '/') + "/Generated";
		ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
		writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, name, null, "java/lang/Object", null);
		MethodVisitor constructor = writer.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
		constructor.visitCode();
		constructor.visitVarInsn(Opcodes.ALOAD, 0);
		constructor.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
		constructor.visitInsn(Opcodes.RETURN);
		constructor.visitMaxs(0, 0);
		constructor.visitEnd();
		MethodVisitor locked = writer.visitMethod(Opcodes.ACC_PUBLIC, "locked", "()V", null, null);
		AnnotationVisitor annotation = locked.visitAnnotation(Type.getDescriptor(DistributedLock.class), true);
		annotation.visit("key", "'generated'");
		annotation.visitEnd();
		locked.visitCode();
		locked.visitInsn(Opcodes.RETURN);
		locked.visitMaxs(0, 0);
		locked.visitEnd();
		MethodVisitor caller = writer.visitMethod(Opcodes.ACC_PUBLIC, "caller", "()V", null, null);
		caller.visitCode();
		caller.visitVarInsn(Opcodes.ALOAD, 0);
		caller.visitMethodInsn(Opcodes.INVOKEVIRTUAL, name, "locked", "()V", false);
		caller.visitInsn(Opcodes.RETURN);
		caller.visitMaxs(0, 0);
		caller.visitEnd();
		writer.visitEnd();
		return writer.toByteArray();
	}

	private void assertCalls(Class<?> beanClass, SelfCall... expected) {
		assertThat(startupFailure(beanClass).getCalls()).containsExactly(expected);
	}

	private SelfInvocationException startupFailure(Class<?> beanClass) {
		Throwable failure = catchThrowable(() -> LockedContext.start(this.zk, (context) -> context.registerBean(
				beanClass.getSimpleName().substring(0, 1).toLowerCase() + beanClass.getSimpleName().substring(1),
				beanClass))
			.close());
		assertThat(failure).as("startup of a context with %s", beanClass.getSimpleName()).isNotNull();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SelfInvocationException selfInvocation) {
				return selfInvocation;
			}
		}
		throw new AssertionError("Not a SelfInvocationException", failure);
	}

	private static String name(Class<?> type) {
		return type.getName();
	}

	/**
	 * Where the call whose line ends with {@code // call:<marker>} is.
	 */
	static String at(String marker) {
		Path source = Path.of("src/test/java", SelfInvocationTests.class.getPackageName().replace('.', '/'), FILE);
		List<String> lines;
		try {
			lines = Files.readAllLines(source);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Integer> found = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).endsWith("// call:" + marker)) {
				found.add(i + 1);
			}
		}
		assertThat(found).as("lines marked %s", marker).hasSize(1);
		return FILE + ":" + found.get(0);
	}

	static class Direct {

		@DistributedLock(key = "'direct'")
		public void locked() {
		}

		public void caller() {
			locked(); // call:direct
		}

		static class Other {

			@DistributedLock(key = "'other'")
			public void locked() {
				LockAssert.assertLocked("other");
			}

		}

	}

	static class InLambda {

		@DistributedLock(key = "#text")
		public void locked(String text) {
		}

		public Consumer<String> caller() {
			return (text) -> locked(text.trim()); // call:lambda
		}

	}

	static class InNestedLambda {

		@DistributedLock(key = "'nested'")
		public void locked() {
		}

		public Supplier<Runnable> caller() {
			return () -> () -> {
				String unused = "a line apart";
				locked(); // call:nested-lambda
			};
		}

	}

	static class MethodReference {

		@DistributedLock(key = "'reference'")
		public void locked() {
		}

		public Runnable caller() {
			return this::locked; // call:method-reference
		}

	}

	static class FromInnerClass {

		@DistributedLock(key = "'inner'")
		public void locked() {
		}

		public Worker worker() {
			return new Worker();
		}

		class Worker {

			void work() {
				locked(); // call:inner
			}

			class Deeper {

				void work() {
					FromInnerClass.this.locked(); // call:inner-inner
				}

			}

		}

	}

	static class ReferenceFromInnerClass {

		@DistributedLock(key = "'inner-reference'")
		public void locked() {
		}

		class Worker {

			Runnable work() {
				return ReferenceFromInnerClass.this::locked; // call:inner-reference
			}

		}

	}

	static class FromAnonymousClass {

		@DistributedLock(key = "'anonymous'")
		public void locked() {
		}

		public Runnable caller() {
			return new Runnable() {

				@Override
				public void run() {
					locked(); // call:anonymous
				}

			};
		}

	}

	static class LockedBase {

		@DistributedLock(key = "'base'")
		public void locked() {
		}

	}

	static class InheritsLocked extends LockedBase {

		public void caller() {
			locked(); // call:inherited
		}

	}

	abstract static class CallingBase {

		public void caller() {
			locked(); // call:superclass
		}

		public abstract void locked();

	}

	static class CalledFromSuperclass extends CallingBase {

		@Override
		@DistributedLock(key = "'sub'")
		public void locked() {
		}

	}

	interface Greeter {

		default void greetTwice() {
			greet(); // call:default-method
		}

		void greet();

	}

	static class GreetsTwice implements Greeter {

		@Override
		@DistributedLock(key = "'greet'")
		public void greet() {
		}

	}

	abstract static class Processor<T> {

		public void processAll(List<T> items) {
			for (T item : items) {
				process(item); // call:bridge
			}
		}

		public abstract void process(T item);

	}

	static class StringProcessor extends Processor<String> {

		@Override
		@DistributedLock(key = "#item")
		public void process(String item) {
		}

	}

	static class SemaphoreCaller {

		@DistributedSemaphore(key = "'render'", permits = 2)
		public void render() {
		}

		public void caller() {
			render(); // call:semaphore
		}

	}

	static class ComplexArguments {

		@DistributedLock(key = "#text")
		public String locked(String text, int number) {
			return text;
		}

		public String caller(boolean flag, String text) {
			return locked(flag ? String.valueOf(describe(text).length()) : describe(describe(text)), // call:complex
					switch (text) {
						case "x" -> {
							try {
								yield Integer.parseInt(describe(text));
							}
							catch (NumberFormatException ex) {
								yield -1;
							}
						}
						default -> text.isEmpty() ? 0 : describe(text).length();
					});
		}

		String describe(String text) {
			return text;
		}

	}

	static class ManyCalls {

		ManyCalls() {
			locked(); // call:many-4
		}

		@DistributedLock(key = "'locked'")
		public void locked() {
		}

		@DistributedLock(key = "'other'")
		public void other() {
		}

		public void first() {
			locked(); // call:many-1
		}

		public void second() {
			other(); // call:many-2
			locked(); // call:many-3
		}

	}

	static class MarkerNamesAnother {

		@DistributedLock(key = "'locked'")
		public void locked() {
		}

		@DistributedLock(key = "'other'")
		public void other() {
		}

		@UnlockedSelfCall("other")
		public void caller() {
			other();
			locked(); // call:unnamed
		}

	}

	static class PostConstructCaller implements InitializingBean {

		static final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(key = "'post-construct'")
		public void locked() {
			calls.incrementAndGet();
		}

		@Override
		public void afterPropertiesSet() {
			locked(); // call:post-construct
		}

	}

	static class ThroughLazySelf {

		final AtomicInteger lockedRuns = new AtomicInteger();

		// Read through the proxy, whose own fields are not set
		public int lockedRuns() {
			return this.lockedRuns.get();
		}

		@Autowired
		@Lazy
		private ThroughLazySelf self;

		@DistributedLock(key = "'lazy-self'")
		public void locked() {
			LockAssert.assertLocked("lazy-self");
			this.lockedRuns.incrementAndGet();
		}

		public void caller() {
			this.self.locked();
		}

	}

	static class ThroughObjectProvider {

		final AtomicInteger lockedRuns = new AtomicInteger();

		// Read through the proxy, whose own fields are not set
		public int lockedRuns() {
			return this.lockedRuns.get();
		}

		private final ObjectProvider<ThroughObjectProvider> self;

		ThroughObjectProvider(ObjectProvider<ThroughObjectProvider> self) {
			this.self = self;
		}

		@DistributedLock(key = "'provided-self'")
		public void locked() {
			LockAssert.assertLocked("provided-self");
			this.lockedRuns.incrementAndGet();
		}

		public void caller() {
			this.self.getObject().locked();
		}

	}

	static class OnOtherBean {

		private final Direct.Other other;

		OnOtherBean(Direct.Other other) {
			this.other = other;
		}

		@DistributedLock(key = "'on-other-bean'")
		public void locked() {
		}

		public void caller() {
			this.other.locked();
		}

	}

	static class OnOtherInstance {

		@DistributedLock(key = "'other-instance'")
		public void locked() {
		}

		public void caller(OnOtherInstance other) {
			other.locked();
		}

		public void callerWithALocal() {
			OnOtherInstance other = new OnOtherInstance();
			other.locked();
		}

	}

	/**
	 * A call whose receiver is this on one path only is not a call on this.
	 */
	static class MaybeThis {

		@DistributedLock(key = "'maybe'")
		public void locked() {
		}

		public void caller(boolean flag, MaybeThis other) {
			(flag ? this : other).locked();
		}

	}

	static class Deliberate {

		final AtomicInteger unlockedRuns = new AtomicInteger();

		// Read through the proxy, whose own fields are not set
		public int unlockedRuns() {
			return this.unlockedRuns.get();
		}

		@DistributedLock(key = "'deliberate'")
		public void locked() {
			assertThat(LockContext.find()).isNull();
			this.unlockedRuns.incrementAndGet();
		}

		@UnlockedSelfCall("locked")
		public void caller() {
			locked();
		}

		@UnlockedSelfCall({ "other", "locked" })
		public Runnable lambda() {
			return () -> locked();
		}

		@UnlockedSelfCall("locked")
		public Runnable anonymous() {
			return new Runnable() {

				@Override
				public void run() {
					locked();
				}

			};
		}

	}

	/**
	 * super.locked() from the override runs under the override's lock.
	 */
	static class OverrideCallsSuper extends LockedBase {

		@Override
		public void locked() {
			assertThatCode(() -> LockAssert.assertLocked("base")).doesNotThrowAnyException();
			super.locked();
		}

	}

}
