package dev.zklock.aop;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.zklock.aop.SelfCallSites.Site;

import org.springframework.asm.Label;
import org.springframework.asm.Opcodes;

/**
 * Follows which stack and local slots of one method hold {@code this}: an abstract
 * interpretation over three kinds of value ({@code this}, an enclosing instance of a
 * given class, anything else), through branches, exception handlers and loops, to a fixed
 * point. Long and double values take two slots, as in the JVM, so that the {@code DUP}
 * and {@code POP} families need no type information. One algorithm, kept whole.
 */
final class ReceiverFlow {

	/** Anything but {@code this} or an enclosing instance. */
	static final int OTHER = 0;

	/** The instance the method runs on. */
	static final int THIS = 1;

	/** The first value for an enclosing instance; one per class. */
	static final int OUTER = 2;

	private final String name;

	private final List<Insn> insns;

	private final Map<Label, Integer> labels;

	private final List<Label[]> tryCatchBlocks;

	private final int maxLocals;

	private final int maxStack;

	private final boolean isStatic;

	ReceiverFlow(String name, List<Insn> insns, Map<Label, Integer> labels, List<Label[]> tryCatchBlocks, int maxLocals,
			int maxStack, boolean isStatic) {
		this.name = name;
		this.insns = insns;
		this.labels = labels;
		this.tryCatchBlocks = tryCatchBlocks;
		this.maxLocals = maxLocals;
		this.maxStack = maxStack;
		this.isStatic = isStatic;
	}

	/**
	 * Follow the values to a fixed point (each slot can only go from unknown to
	 * {@code this} or an enclosing instance, then to anything else, so this ends).
	 * @return for each instruction that is a call site, the value its receiver holds on
	 * every path that reaches it ({@link #OTHER} if the paths disagree or none reaches
	 * it)
	 */
	int[] receivers() {
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
			if (insn.kind == Insn.END) {
				continue;
			}
			if (insn.targets != null) {
				for (Label target : insn.targets) {
					merge(frames, work, queued, indexOf(target), after);
				}
			}
			if (insn.kind == Insn.SUBROUTINE) {
				// Only in class files older than Java 7: continue after the call as
				// if the subroutine changed nothing
				merge(frames, work, queued, index + 1, before);
			}
			else if (insn.kind != Insn.SWITCH && insn.opcode != Opcodes.GOTO && index + 1 < count) {
				merge(frames, work, queued, index + 1, after);
			}
		}
		int[] receivers = new int[count];
		for (int index = 0; index < count; index++) {
			Insn insn = this.insns.get(index);
			int[] frame = frames[index];
			if (insn.site != null && frame != null) {
				int top = frame[frame.length - 1];
				receivers[index] = frame[this.maxLocals + top - insn.receiverDepth];
			}
		}
		return receivers;
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
			case Insn.LOAD_REFERENCE -> frame[base + top++] = frame[insn.variable];
			case Insn.STORE -> {
				top -= insn.pops;
				frame[insn.variable] = (insn.opcode == Opcodes.ASTORE) ? frame[base + top] : OTHER;
				if (insn.pops == 2) {
					frame[insn.variable + 1] = OTHER;
				}
			}
			case Insn.STACK -> top = stack(insn.opcode, frame, base, top);
			case Insn.UNCHANGED, Insn.END -> {
			}
			case Insn.ENCLOSING_FIELD -> {
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
	 * One recorded instruction: how it changes the stack and where it goes.
	 */
	static final class Insn {

		static final int GENERIC = 0;

		static final int LOAD_REFERENCE = 1;

		static final int STORE = 2;

		static final int STACK = 3;

		static final int UNCHANGED = 4;

		static final int ENCLOSING_FIELD = 5;

		static final int CALL = 6;

		static final int JUMP = 7;

		static final int SWITCH = 8;

		static final int END = 9;

		static final int SUBROUTINE = 10;

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

		/**
		 * Slots taken from the stack by an instruction without operands.
		 */
		static int pops(int opcode) {
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
		static int pushes(int opcode) {
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

}
