package dev.zklock.aop;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.UnlockedSelfCall;

import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

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

	private static final String MARKER = Type.getDescriptor(UnlockedSelfCall.class);

	private static final String LAMBDA_METAFACTORY = "java/lang/invoke/LambdaMetafactory";

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

	private static final class Reader extends ClassVisitor {

		private String className = "";

		private @Nullable String superName;

		private @Nullable String sourceFile;

		private @Nullable String outerClass;

		private @Nullable String enclosingMethod;

		private final List<String> innerClasses = new ArrayList<>();

		private final List<Site> sites = new ArrayList<>();

		private final Map<String, List<String>> markers = new HashMap<>();

		private final Map<String, String> lambdaParents = new HashMap<>();

		/** The classes of enclosing instances met, by value (value - OUTER). */
		private final List<String> enclosingTypes = new ArrayList<>();

		private final Set<String> names;

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
			return MethodFlow.OUTER + index;
		}

		SelfCallSites result() {
			return new SelfCallSites(this.className, this.superName, this.sourceFile, this.outerClass,
					this.enclosingMethod, List.copyOf(this.innerClasses), List.copyOf(this.sites),
					Map.copyOf(this.markers), Map.copyOf(this.lambdaParents));
		}

	}

	/**
	 * Records one method's instructions, then follows which stack and local slots hold
	 * {@code this} (an abstract interpretation over three kinds of value, to a fixed
	 * point), and keeps the calls whose receiver is {@code this} or an enclosing
	 * instance. Long and double values take two slots, as in the JVM, so that the
	 * {@code DUP} and {@code POP} families need no type information.
	 */
	private static final class MethodFlow extends MethodVisitor {

		/** Anything but {@code this} or an enclosing instance. */
		static final int OTHER = 0;

		/** The instance the method runs on. */
		static final int THIS = 1;

		/** The first value for an enclosing instance; one per class. */
		static final int OUTER = 2;

		private static final int GENERIC = 0;

		private static final int LOAD_REFERENCE = 1;

		private static final int STORE = 2;

		private static final int STACK = 3;

		private static final int UNCHANGED = 4;

		private static final int ENCLOSING_FIELD = 5;

		private static final int CALL = 6;

		private static final int JUMP = 7;

		private static final int SWITCH = 8;

		private static final int END = 9;

		private static final int SUBROUTINE = 10;

		private final Reader reader;

		private final String name;

		private final String descriptor;

		private final boolean isStatic;

		private final boolean bridge;

		private final List<Insn> insns = new ArrayList<>();

		private final Map<Label, Integer> labels = new HashMap<>();

		private final List<Label[]> tryCatchBlocks = new ArrayList<>();

		private final List<String> markerNames = new ArrayList<>();

		private boolean hasSites;

		private int line;

		private int maxStack;

		private int maxLocals;

		MethodFlow(Reader reader, String name, String descriptor, boolean isStatic, boolean bridge) {
			super(SpringAsmInfo.ASM_VERSION);
			this.reader = reader;
			this.name = name;
			this.descriptor = descriptor;
			this.isStatic = isStatic;
			this.bridge = bridge;
		}

		@Override
		public @Nullable AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
			if (!MARKER.equals(descriptor)) {
				return null;
			}
			return new AnnotationVisitor(SpringAsmInfo.ASM_VERSION) {

				@Override
				public AnnotationVisitor visitArray(String name) {
					return this;
				}

				@Override
				public void visit(@Nullable String name, Object value) {
					if (value instanceof String text) {
						MethodFlow.this.markerNames.add(text.trim());
					}
				}

			};
		}

		@Override
		public void visitLabel(Label label) {
			this.labels.put(label, this.insns.size());
		}

		@Override
		public void visitLineNumber(int line, Label start) {
			this.line = line;
		}

		@Override
		public void visitTryCatchBlock(Label start, Label end, Label handler, @Nullable String type) {
			this.tryCatchBlocks.add(new Label[] { start, end, handler });
		}

		@Override
		public void visitInsn(int opcode) {
			if (opcode >= Opcodes.POP && opcode <= Opcodes.SWAP) {
				add(new Insn(STACK, opcode, 0, 0));
			}
			else if ((opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) || opcode == Opcodes.ATHROW) {
				add(new Insn(END, opcode, 0, 0));
			}
			else {
				add(new Insn(GENERIC, opcode, pops(opcode), pushes(opcode)));
			}
		}

		@Override
		public void visitIntInsn(int opcode, int operand) {
			add(new Insn(GENERIC, opcode, (opcode == Opcodes.NEWARRAY) ? 1 : 0, 1));
		}

		@Override
		public void visitVarInsn(int opcode, int varIndex) {
			Insn insn;
			if (opcode == Opcodes.ALOAD) {
				insn = new Insn(LOAD_REFERENCE, opcode, 0, 1);
			}
			else if (opcode >= Opcodes.ILOAD && opcode <= Opcodes.DLOAD) {
				insn = new Insn(GENERIC, opcode, 0, (opcode == Opcodes.LLOAD || opcode == Opcodes.DLOAD) ? 2 : 1);
			}
			else if (opcode == Opcodes.RET) {
				insn = new Insn(END, opcode, 0, 0);
			}
			else {
				insn = new Insn(STORE, opcode, (opcode == Opcodes.LSTORE || opcode == Opcodes.DSTORE) ? 2 : 1, 0);
			}
			insn.variable = varIndex;
			add(insn);
		}

		@Override
		public void visitTypeInsn(int opcode, String type) {
			if (opcode == Opcodes.CHECKCAST) {
				// ((Service) this).m() is still a call on this
				add(new Insn(UNCHANGED, opcode, 0, 0));
			}
			else {
				add(new Insn(GENERIC, opcode, (opcode == Opcodes.NEW) ? 0 : 1, 1));
			}
		}

		@Override
		public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
			int size = Type.getType(descriptor).getSize();
			if (opcode == Opcodes.GETFIELD && name.startsWith("this$") && descriptor.startsWith("L")) {
				Insn insn = new Insn(ENCLOSING_FIELD, opcode, 1, 1);
				insn.enclosingValue = this.reader.enclosingValue(Type.getType(descriptor).getInternalName());
				add(insn);
				return;
			}
			switch (opcode) {
				case Opcodes.GETSTATIC -> add(new Insn(GENERIC, opcode, 0, size));
				case Opcodes.PUTSTATIC -> add(new Insn(GENERIC, opcode, size, 0));
				case Opcodes.GETFIELD -> add(new Insn(GENERIC, opcode, 1, size));
				default -> add(new Insn(GENERIC, opcode, 1 + size, 0));
			}
		}

		@Override
		public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
			int sizes = Type.getArgumentsAndReturnSizes(descriptor);
			// The sizes count an implicit receiver
			int argumentWords = (sizes >> 2) - 1;
			boolean hasReceiver = opcode != Opcodes.INVOKESTATIC;
			Insn insn = new Insn(CALL, opcode, argumentWords + (hasReceiver ? 1 : 0), sizes & 0x3);
			if (hasReceiver && this.reader.names.contains(name)) {
				insn.receiverDepth = argumentWords + 1;
				insn.site = new Site(this.name, this.descriptor, this.line, opcode == Opcodes.INVOKESPECIAL, false,
						owner, name, descriptor, null);
				this.hasSites = true;
			}
			add(insn);
		}

		@Override
		public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
				Object... bootstrapMethodArguments) {
			int sizes = Type.getArgumentsAndReturnSizes(descriptor);
			int argumentWords = (sizes >> 2) - 1;
			Insn insn = new Insn(CALL, Opcodes.INVOKEDYNAMIC, argumentWords, sizes & 0x3);
			if (LAMBDA_METAFACTORY.equals(bootstrapMethodHandle.getOwner()) && bootstrapMethodArguments.length > 1
					&& bootstrapMethodArguments[1] instanceof Handle target) {
				if (target.getOwner().equals(this.reader.className) && target.getName().startsWith("lambda$")) {
					// The lambda's body is a method of this class, read as any other
					this.reader.lambdaParents.put(methodKey(target.getName(), target.getDesc()),
							methodKey(this.name, this.descriptor));
				}
				else if (isInstanceCall(target.getTag()) && argumentWords > 0
						&& this.reader.names.contains(target.getName())) {
					// this::m captures its receiver as the first argument
					insn.receiverDepth = argumentWords;
					insn.site = new Site(this.name, this.descriptor, this.line,
							target.getTag() == Opcodes.H_INVOKESPECIAL, true, target.getOwner(), target.getName(),
							target.getDesc(), null);
					this.hasSites = true;
				}
			}
			add(insn);
		}

		private static boolean isInstanceCall(int tag) {
			return tag == Opcodes.H_INVOKEVIRTUAL || tag == Opcodes.H_INVOKEINTERFACE || tag == Opcodes.H_INVOKESPECIAL;
		}

		@Override
		public void visitJumpInsn(int opcode, Label label) {
			Insn insn;
			if (opcode == Opcodes.JSR) {
				insn = new Insn(SUBROUTINE, opcode, 0, 1);
			}
			else {
				int pops = switch (opcode) {
					case Opcodes.GOTO -> 0;
					case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT,
							Opcodes.IF_ICMPLE, Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE ->
						2;
					default -> 1;
				};
				insn = new Insn(JUMP, opcode, pops, 0);
			}
			insn.targets = new Label[] { label };
			add(insn);
		}

		@Override
		public void visitLdcInsn(Object value) {
			int size;
			if (value instanceof Long || value instanceof Double) {
				size = 2;
			}
			else if (value instanceof ConstantDynamic constant) {
				size = constant.getSize();
			}
			else {
				size = 1;
			}
			add(new Insn(GENERIC, Opcodes.LDC, 0, size));
		}

		@Override
		public void visitIincInsn(int varIndex, int increment) {
			add(new Insn(GENERIC, Opcodes.IINC, 0, 0));
		}

		@Override
		public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
			addSwitch(Opcodes.TABLESWITCH, dflt, labels);
		}

		@Override
		public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
			addSwitch(Opcodes.LOOKUPSWITCH, dflt, labels);
		}

		private void addSwitch(int opcode, Label dflt, Label[] labels) {
			Insn insn = new Insn(SWITCH, opcode, 1, 0);
			Label[] targets = new Label[labels.length + 1];
			targets[0] = dflt;
			System.arraycopy(labels, 0, targets, 1, labels.length);
			insn.targets = targets;
			add(insn);
		}

		@Override
		public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
			add(new Insn(GENERIC, Opcodes.MULTIANEWARRAY, numDimensions, 1));
		}

		@Override
		public void visitMaxs(int maxStack, int maxLocals) {
			this.maxStack = maxStack;
			this.maxLocals = maxLocals;
		}

		private void add(Insn insn) {
			insn.line = this.line;
			this.insns.add(insn);
		}

		@Override
		public void visitEnd() {
			if (!this.markerNames.isEmpty()) {
				this.reader.markers.put(methodKey(this.name, this.descriptor), List.copyOf(this.markerNames));
			}
			if (this.hasSites && !this.bridge && !this.insns.isEmpty()) {
				analyze();
			}
		}

		/**
		 * Follow the values to a fixed point (each slot can only go from unknown to
		 * {@code this} or an enclosing instance, then to anything else, so this ends),
		 * then keep the calls whose receiver is {@code this} on every path.
		 */
		private void analyze() {
			int count = this.insns.size();
			int[][] frames = new int[count][];
			int[][] handlers = handlers(count);
			int[] initial = new int[this.maxLocals + this.maxStack + 1];
			if (!this.isStatic && this.maxLocals > 0) {
				initial[0] = THIS;
			}
			frames[0] = initial;
			ArrayDeque<Integer> work = new ArrayDeque<>();
			boolean[] queued = new boolean[count];
			work.add(0);
			queued[0] = true;
			while (!work.isEmpty()) {
				int index = work.poll();
				queued[index] = false;
				int[] before = frames[index];
				Insn insn = this.insns.get(index);
				int[] after = execute(insn, before);
				for (int handler : handlers[index]) {
					// A handler may start before or after the instruction's effect on the
					// locals, with the thrown exception alone on the stack
					merge(frames, work, queued, handler, caught(before));
					merge(frames, work, queued, handler, caught(after));
				}
				if (insn.kind == END) {
					continue;
				}
				if (insn.targets != null) {
					for (Label target : insn.targets) {
						merge(frames, work, queued, indexOf(target), after);
					}
				}
				if (insn.kind == SUBROUTINE) {
					// Only in class files older than Java 7: continue after the call as
					// if the subroutine changed nothing
					merge(frames, work, queued, index + 1, before);
				}
				else if (insn.kind != SWITCH && insn.opcode != Opcodes.GOTO && index + 1 < count) {
					merge(frames, work, queued, index + 1, after);
				}
			}
			for (int index = 0; index < count; index++) {
				Insn insn = this.insns.get(index);
				int[] frame = frames[index];
				if (insn.site == null || frame == null) {
					continue;
				}
				int top = frame[frame.length - 1];
				int receiver = frame[this.maxLocals + top - insn.receiverDepth];
				if (receiver == THIS) {
					this.reader.sites.add(insn.site);
				}
				else if (receiver >= OUTER) {
					Site site = insn.site;
					this.reader.sites.add(new Site(site.caller(), site.callerDescriptor(), site.line(), site.special(),
							site.methodReference(), site.owner(), site.name(), site.descriptor(),
							this.reader.enclosingTypes.get(receiver - OUTER)));
				}
			}
		}

		/**
		 * The handlers that cover each instruction.
		 */
		private int[][] handlers(int count) {
			int[][] handlers = new int[count][];
			Arrays.fill(handlers, new int[0]);
			for (Label[] block : this.tryCatchBlocks) {
				int handler = indexOf(block[2]);
				int end = Math.min(indexOf(block[1]), count);
				for (int i = indexOf(block[0]); i < end; i++) {
					int[] covering = Arrays.copyOf(handlers[i], handlers[i].length + 1);
					covering[covering.length - 1] = handler;
					handlers[i] = covering;
				}
			}
			return handlers;
		}

		private int indexOf(Label label) {
			Integer index = this.labels.get(label);
			if (index == null) {
				throw new IllegalStateException("Label " + label + " of " + this.name + " is not in the code");
			}
			return index;
		}

		private int[] caught(int[] frame) {
			int[] handler = frame.clone();
			Arrays.fill(handler, this.maxLocals, handler.length, OTHER);
			handler[handler.length - 1] = 1;
			return handler;
		}

		private static void merge(int[][] frames, ArrayDeque<Integer> work, boolean[] queued, int index, int[] frame) {
			int[] current = frames[index];
			boolean changed = false;
			if (current == null) {
				frames[index] = frame.clone();
				changed = true;
			}
			else {
				// The stack height is the same on every path in verifiable code
				for (int i = 0; i < current.length - 1; i++) {
					if (current[i] != frame[i] && current[i] != OTHER) {
						current[i] = OTHER;
						changed = true;
					}
				}
			}
			if (changed && !queued[index]) {
				queued[index] = true;
				work.add(index);
			}
		}

		private int[] execute(Insn insn, int[] before) {
			int[] frame = before.clone();
			int base = this.maxLocals;
			int top = frame[frame.length - 1];
			switch (insn.kind) {
				case LOAD_REFERENCE -> frame[base + top++] = frame[insn.variable];
				case STORE -> {
					top -= insn.pops;
					frame[insn.variable] = (insn.opcode == Opcodes.ASTORE) ? frame[base + top] : OTHER;
					if (insn.pops == 2) {
						frame[insn.variable + 1] = OTHER;
					}
				}
				case STACK -> top = stack(insn.opcode, frame, base, top);
				case UNCHANGED, END -> {
				}
				case ENCLOSING_FIELD -> {
					int receiver = frame[base + top - 1];
					frame[base + top - 1] = (receiver != OTHER) ? insn.enclosingValue : OTHER;
				}
				default -> {
					top -= insn.pops;
					for (int i = 0; i < insn.pushes; i++) {
						frame[base + top++] = OTHER;
					}
				}
			}
			for (int i = base + top; i < frame.length - 1; i++) {
				frame[i] = OTHER;
			}
			frame[frame.length - 1] = top;
			return frame;
		}

		/**
		 * The {@code POP}, {@code DUP} and {@code SWAP} families, on slots.
		 */
		private static int stack(int opcode, int[] frame, int base, int top) {
			int s = base + top;
			switch (opcode) {
				case Opcodes.POP -> top -= 1;
				case Opcodes.POP2 -> top -= 2;
				case Opcodes.DUP -> {
					frame[s] = frame[s - 1];
					top += 1;
				}
				case Opcodes.DUP_X1 -> {
					int a = frame[s - 1];
					int b = frame[s - 2];
					frame[s - 2] = a;
					frame[s - 1] = b;
					frame[s] = a;
					top += 1;
				}
				case Opcodes.DUP_X2 -> {
					int a = frame[s - 1];
					int b = frame[s - 2];
					int c = frame[s - 3];
					frame[s - 3] = a;
					frame[s - 2] = c;
					frame[s - 1] = b;
					frame[s] = a;
					top += 1;
				}
				case Opcodes.DUP2 -> {
					frame[s] = frame[s - 2];
					frame[s + 1] = frame[s - 1];
					top += 2;
				}
				case Opcodes.DUP2_X1 -> {
					int a = frame[s - 1];
					int b = frame[s - 2];
					int c = frame[s - 3];
					frame[s - 3] = b;
					frame[s - 2] = a;
					frame[s - 1] = c;
					frame[s] = b;
					frame[s + 1] = a;
					top += 2;
				}
				case Opcodes.DUP2_X2 -> {
					int a = frame[s - 1];
					int b = frame[s - 2];
					int c = frame[s - 3];
					int d = frame[s - 4];
					frame[s - 4] = b;
					frame[s - 3] = a;
					frame[s - 2] = d;
					frame[s - 1] = c;
					frame[s] = b;
					frame[s + 1] = a;
					top += 2;
				}
				default -> {
					int a = frame[s - 1];
					frame[s - 1] = frame[s - 2];
					frame[s - 2] = a;
				}
			}
			return top;
		}

		/**
		 * Slots taken from the stack by an instruction without operands.
		 */
		private static int pops(int opcode) {
			if (opcode <= Opcodes.DCONST_1) {
				return 0;
			}
			if (opcode >= Opcodes.IALOAD && opcode <= Opcodes.SALOAD) {
				return 2;
			}
			if (opcode >= Opcodes.IASTORE && opcode <= Opcodes.SASTORE) {
				return (opcode == Opcodes.LASTORE || opcode == Opcodes.DASTORE) ? 4 : 3;
			}
			if (opcode >= Opcodes.IADD && opcode <= Opcodes.DREM) {
				return isWide(opcode - Opcodes.IADD) ? 4 : 2;
			}
			if (opcode >= Opcodes.INEG && opcode <= Opcodes.DNEG) {
				return isWide(opcode - Opcodes.INEG) ? 2 : 1;
			}
			if (opcode >= Opcodes.ISHL && opcode <= Opcodes.LUSHR) {
				// A long shifted by an int
				return ((opcode - Opcodes.ISHL) % 2 == 1) ? 3 : 2;
			}
			if (opcode >= Opcodes.IAND && opcode <= Opcodes.LXOR) {
				return ((opcode - Opcodes.IAND) % 2 == 1) ? 4 : 2;
			}
			return switch (opcode) {
				case Opcodes.L2I, Opcodes.L2F, Opcodes.L2D, Opcodes.D2I, Opcodes.D2L, Opcodes.D2F -> 2;
				case Opcodes.LCMP, Opcodes.DCMPL, Opcodes.DCMPG -> 4;
				case Opcodes.FCMPL, Opcodes.FCMPG -> 2;
				case Opcodes.NOP -> 0;
				// Other conversions, ARRAYLENGTH, MONITORENTER, MONITOREXIT
				default -> 1;
			};
		}

		/**
		 * Slots pushed by an instruction without operands.
		 */
		private static int pushes(int opcode) {
			return switch (opcode) {
				case Opcodes.NOP, Opcodes.IASTORE, Opcodes.LASTORE, Opcodes.FASTORE, Opcodes.DASTORE, Opcodes.AASTORE,
						Opcodes.BASTORE, Opcodes.CASTORE, Opcodes.SASTORE, Opcodes.MONITORENTER, Opcodes.MONITOREXIT ->
					0;
				case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1, Opcodes.LALOAD,
						Opcodes.DALOAD, Opcodes.LNEG, Opcodes.DNEG, Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR,
						Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR, Opcodes.I2L, Opcodes.I2D, Opcodes.L2D, Opcodes.F2L,
						Opcodes.F2D, Opcodes.D2L ->
					2;
				default -> (opcode >= Opcodes.IADD && opcode <= Opcodes.DREM && isWide(opcode - Opcodes.IADD)) ? 2 : 1;
			};
		}

		/**
		 * Whether the n-th of a group of int, long, float, double instructions works on
		 * two slots.
		 */
		private static boolean isWide(int n) {
			return n % 4 == 1 || n % 4 == 3;
		}

	}

	/**
	 * One recorded instruction: how it changes the stack and where it goes.
	 */
	private static final class Insn {

		final int kind;

		final int opcode;

		final int pops;

		final int pushes;

		int variable;

		int line;

		Label @Nullable [] targets;

		/** The class of the enclosing instance a {@code this$N} field holds. */
		int enclosingValue;

		/** For a call: how deep in the stack its receiver is. */
		int receiverDepth;

		/** For a call: the site, if its receiver turns out to be this. */
		@Nullable Site site;

		Insn(int kind, int opcode, int pops, int pushes) {
			this.kind = kind;
			this.opcode = opcode;
			this.pops = pops;
			this.pushes = pushes;
		}

	}

}
