package dev.zklock.aop;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.UnlockedSelfCall;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;

/**
 * The calls on {@code this} in one class file: every method call (or bound method
 * reference) whose receiver the bytecode proves to be the instance the method runs on or,
 * in an inner, local or anonymous class, the enclosing instance reached through the
 * synthetic {@code this$N} fields. Lambda bodies are methods of the class (with
 * {@code this} in local 0 when they captured it), so they need nothing special.
 *
 * <p>
 * The receiver is found by following the operand stack and local variables through the
 * method, branches, exception handlers and loops included, until nothing changes: each
 * slot holds {@code this}, an enclosing instance of a given class, or anything else, and
 * two paths that disagree leave anything else. So {@code self.m()}, {@code other.m()} and
 * {@code (flag ? this : other).m()} are not calls on {@code this}, and an argument
 * expression with branches, nested calls or a {@code try} does not hide one. A local that
 * held {@code this} holds it until something else is stored in it, local 0 included.
 *
 * <p>
 * Nothing here knows which methods are locked: what a class file says is the same for
 * every bean that has the class in its hierarchy, and {@link SelfInvocationChecker}
 * decides per bean.
 *
 * @param className the class, as an internal name
 * @param superName its superclass, as an internal name
 * @param sourceFile its source file, if the class file says
 * @param outerClass for a local or anonymous class, the class it is declared in
 * @param enclosingMethod for a local or anonymous class declared in a method, that
 * method's name and descriptor
 * @param innerClasses the non-static classes declared in this one, as internal names
 * @param sites the calls on {@code this} or an enclosing instance, in class-file order
 * @param markers the method names each method's {@link UnlockedSelfCall} gives, by method
 * name and descriptor
 * @param lambdaParents the method that creates each lambda body of the class, both by
 * name and descriptor
 */
record SelfCallSites(String className, @Nullable String superName, @Nullable String sourceFile,
		@Nullable String outerClass, @Nullable String enclosingMethod, List<String> innerClasses, List<Site> sites,
		Map<String, List<String>> markers, Map<String, String> lambdaParents) {

	/**
	 * Read a class file.
	 * @param classFile the class file's bytes
	 * @param names the names of the called methods that matter: only methods that call
	 * one of them are followed, which spares most of the work
	 * @return what it says about calls on {@code this}
	 * @throws IOException if the stream cannot be read
	 * @throws RuntimeException if the class file is not one this ASM version can read
	 */
	static SelfCallSites read(InputStream classFile, Set<String> names) throws IOException {
		Reader reader = new Reader(names);
		new ClassReader(classFile).accept(reader, ClassReader.SKIP_FRAMES);
		return reader.result();
	}

	/**
	 * Return a method's key in {@link #markers()} and {@link #lambdaParents()}.
	 * @param name the method's name
	 * @param descriptor the method's descriptor
	 * @return the key
	 */
	static String methodKey(String name, String descriptor) {
		return name + descriptor;
	}

	/**
	 * One call on {@code this} (or on an enclosing instance).
	 *
	 * @param caller the calling method's name
	 * @param callerDescriptor the calling method's descriptor
	 * @param line the line of the call, or 0 if the class file has no line numbers
	 * @param special whether the call names its method exactly ({@code invokespecial}:
	 * {@code super.m()}), rather than being dispatched on the instance's class
	 * @param methodReference whether it is a bound method reference ({@code this::m})
	 * rather than a call
	 * @param owner the class the call names, as an internal name
	 * @param name the called method's name
	 * @param descriptor the called method's descriptor
	 * @param enclosingType {@code null} if the receiver is the caller's own {@code this};
	 * otherwise the class of the enclosing instance it is, as an internal name
	 */
	record Site(String caller, String callerDescriptor, int line, boolean special, boolean methodReference,
			String owner, String name, String descriptor, @Nullable String enclosingType) {

	}

	/**
	 * Reads one class file: its names, its inner classes, and through a
	 * {@link MethodFlow} per method, its calls on {@code this}.
	 */
	static final class Reader extends ClassVisitor {

		String className = "";

		@Nullable String superName;

		@Nullable String sourceFile;

		@Nullable String outerClass;

		@Nullable String enclosingMethod;

		final List<String> innerClasses = new ArrayList<>();

		final List<Site> sites = new ArrayList<>();

		final Map<String, List<String>> markers = new HashMap<>();

		final Map<String, String> lambdaParents = new HashMap<>();

		/** The classes of enclosing instances met, by value (value - OUTER). */
		final List<String> enclosingTypes = new ArrayList<>();

		final Set<String> names;

		Reader(Set<String> names) {
			super(SpringAsmInfo.ASM_VERSION);
			this.names = names;
		}

		@Override
		public void visit(int version, int access, String name, @Nullable String signature, @Nullable String superName,
				String @Nullable [] interfaces) {
			this.className = name;
			this.superName = superName;
		}

		@Override
		public void visitSource(@Nullable String source, @Nullable String debug) {
			this.sourceFile = source;
		}

		@Override
		public void visitOuterClass(String owner, @Nullable String name, @Nullable String descriptor) {
			this.outerClass = owner;
			if (name != null && descriptor != null) {
				this.enclosingMethod = methodKey(name, descriptor);
			}
		}

		@Override
		public void visitInnerClass(String name, @Nullable String outerName, @Nullable String innerName, int access) {
			// Member classes name this class as their outer one; local and anonymous
			// classes name none, and are told by their name
			boolean declaredHere = this.className.equals(outerName)
					|| (outerName == null && name.startsWith(this.className + "$"));
			if (declaredHere && (access & Opcodes.ACC_STATIC) == 0 && (access & Opcodes.ACC_INTERFACE) == 0) {
				this.innerClasses.add(name);
			}
		}

		@Override
		public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor,
				@Nullable String signature, String @Nullable [] exceptions) {
			if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
				return null;
			}
			// A bridge calls the method it stands for on this: the call that reaches the
			// bridge is the one that counts
			boolean bridge = (access & Opcodes.ACC_BRIDGE) != 0;
			return new MethodFlow(this, name, descriptor, (access & Opcodes.ACC_STATIC) != 0, bridge);
		}

		int enclosingValue(String type) {
			int index = this.enclosingTypes.indexOf(type);
			if (index < 0) {
				index = this.enclosingTypes.size();
				this.enclosingTypes.add(type);
			}
			return ReceiverFlow.OUTER + index;
		}

		SelfCallSites result() {
			return new SelfCallSites(this.className, this.superName, this.sourceFile, this.outerClass,
					this.enclosingMethod, List.copyOf(this.innerClasses), List.copyOf(this.sites),
					Map.copyOf(this.markers), Map.copyOf(this.lambdaParents));
		}

	}

}
