package dev.zklock.aop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.UnlockedSelfCall;
import dev.zklock.aop.ReceiverFlow.Insn;
import dev.zklock.aop.SelfCallSites.Reader;
import dev.zklock.aop.SelfCallSites.Site;

import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Records one method's instructions with their effect on the stack, has a
 * {@link ReceiverFlow} follow which slots hold {@code this}, and keeps the calls whose
 * receiver is {@code this} or an enclosing instance.
 */
final class MethodFlow extends MethodVisitor {

	private static final String MARKER = Type.getDescriptor(UnlockedSelfCall.class);

	private static final String LAMBDA_METAFACTORY = "java/lang/invoke/LambdaMetafactory";

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
			add(new Insn(Insn.STACK, opcode, 0, 0));
		}
		else if ((opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) || opcode == Opcodes.ATHROW) {
			add(new Insn(Insn.END, opcode, 0, 0));
		}
		else {
			add(new Insn(Insn.GENERIC, opcode, Insn.pops(opcode), Insn.pushes(opcode)));
		}
	}

	@Override
	public void visitIntInsn(int opcode, int operand) {
		add(new Insn(Insn.GENERIC, opcode, (opcode == Opcodes.NEWARRAY) ? 1 : 0, 1));
	}

	@Override
	public void visitVarInsn(int opcode, int varIndex) {
		Insn insn;
		if (opcode == Opcodes.ALOAD) {
			insn = new Insn(Insn.LOAD_REFERENCE, opcode, 0, 1);
		}
		else if (opcode >= Opcodes.ILOAD && opcode <= Opcodes.DLOAD) {
			insn = new Insn(Insn.GENERIC, opcode, 0, (opcode == Opcodes.LLOAD || opcode == Opcodes.DLOAD) ? 2 : 1);
		}
		else if (opcode == Opcodes.RET) {
			insn = new Insn(Insn.END, opcode, 0, 0);
		}
		else {
			insn = new Insn(Insn.STORE, opcode, (opcode == Opcodes.LSTORE || opcode == Opcodes.DSTORE) ? 2 : 1, 0);
		}
		insn.variable = varIndex;
		add(insn);
	}

	@Override
	public void visitTypeInsn(int opcode, String type) {
		if (opcode == Opcodes.CHECKCAST) {
			// ((Service) this).m() is still a call on this
			add(new Insn(Insn.UNCHANGED, opcode, 0, 0));
		}
		else {
			add(new Insn(Insn.GENERIC, opcode, (opcode == Opcodes.NEW) ? 0 : 1, 1));
		}
	}

	@Override
	public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
		int size = Type.getType(descriptor).getSize();
		if (opcode == Opcodes.GETFIELD && name.startsWith("this$") && descriptor.startsWith("L")) {
			Insn insn = new Insn(Insn.ENCLOSING_FIELD, opcode, 1, 1);
			insn.enclosingValue = this.reader.enclosingValue(Type.getType(descriptor).getInternalName());
			add(insn);
			return;
		}
		switch (opcode) {
			case Opcodes.GETSTATIC -> add(new Insn(Insn.GENERIC, opcode, 0, size));
			case Opcodes.PUTSTATIC -> add(new Insn(Insn.GENERIC, opcode, size, 0));
			case Opcodes.GETFIELD -> add(new Insn(Insn.GENERIC, opcode, 1, size));
			default -> add(new Insn(Insn.GENERIC, opcode, 1 + size, 0));
		}
	}

	@Override
	public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
		int sizes = Type.getArgumentsAndReturnSizes(descriptor);
		// The sizes count an implicit receiver
		int argumentWords = (sizes >> 2) - 1;
		boolean hasReceiver = opcode != Opcodes.INVOKESTATIC;
		Insn insn = new Insn(Insn.CALL, opcode, argumentWords + (hasReceiver ? 1 : 0), sizes & 0x3);
		if (hasReceiver && this.reader.names.contains(name)) {
			insn.receiverDepth = argumentWords + 1;
			insn.site = new Site(this.name, this.descriptor, this.line, opcode == Opcodes.INVOKESPECIAL, false, owner,
					name, descriptor, null);
			this.hasSites = true;
		}
		add(insn);
	}

	@Override
	public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
			Object... bootstrapMethodArguments) {
		int sizes = Type.getArgumentsAndReturnSizes(descriptor);
		int argumentWords = (sizes >> 2) - 1;
		Insn insn = new Insn(Insn.CALL, Opcodes.INVOKEDYNAMIC, argumentWords, sizes & 0x3);
		if (LAMBDA_METAFACTORY.equals(bootstrapMethodHandle.getOwner()) && bootstrapMethodArguments.length > 1
				&& bootstrapMethodArguments[1] instanceof Handle target) {
			if (target.getOwner().equals(this.reader.className) && target.getName().startsWith("lambda$")) {
				// The lambda's body is a method of this class, read as any other
				this.reader.lambdaParents.put(SelfCallSites.methodKey(target.getName(), target.getDesc()),
						SelfCallSites.methodKey(this.name, this.descriptor));
			}
			else if (isInstanceCall(target.getTag()) && argumentWords > 0
					&& this.reader.names.contains(target.getName())) {
				// this::m captures its receiver as the first argument
				insn.receiverDepth = argumentWords;
				insn.site = new Site(this.name, this.descriptor, this.line, target.getTag() == Opcodes.H_INVOKESPECIAL,
						true, target.getOwner(), target.getName(), target.getDesc(), null);
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
			insn = new Insn(Insn.SUBROUTINE, opcode, 0, 1);
		}
		else {
			int pops = switch (opcode) {
				case Opcodes.GOTO -> 0;
				case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT,
						Opcodes.IF_ICMPLE, Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE ->
					2;
				default -> 1;
			};
			insn = new Insn(Insn.JUMP, opcode, pops, 0);
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
		add(new Insn(Insn.GENERIC, Opcodes.LDC, 0, size));
	}

	@Override
	public void visitIincInsn(int varIndex, int increment) {
		add(new Insn(Insn.GENERIC, Opcodes.IINC, 0, 0));
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
		Insn insn = new Insn(Insn.SWITCH, opcode, 1, 0);
		Label[] targets = new Label[labels.length + 1];
		targets[0] = dflt;
		System.arraycopy(labels, 0, targets, 1, labels.length);
		insn.targets = targets;
		add(insn);
	}

	@Override
	public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
		add(new Insn(Insn.GENERIC, Opcodes.MULTIANEWARRAY, numDimensions, 1));
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
			this.reader.markers.put(SelfCallSites.methodKey(this.name, this.descriptor), List.copyOf(this.markerNames));
		}
		if (this.hasSites && !this.bridge && !this.insns.isEmpty()) {
			collectSites();
		}
	}

	/**
	 * Keep the calls whose receiver is {@code this}, or an enclosing instance, on every
	 * path.
	 */
	private void collectSites() {
		int[] receivers = new ReceiverFlow(this.name, this.insns, this.labels, this.tryCatchBlocks, this.maxLocals,
				this.maxStack, this.isStatic)
			.receivers();
		for (int index = 0; index < receivers.length; index++) {
			Site site = this.insns.get(index).site;
			int receiver = receivers[index];
			if (site == null) {
				continue;
			}
			if (receiver == ReceiverFlow.THIS) {
				this.reader.sites.add(site);
			}
			else if (receiver >= ReceiverFlow.OUTER) {
				this.reader.sites.add(new Site(site.caller(), site.callerDescriptor(), site.line(), site.special(),
						site.methodReference(), site.owner(), site.name(), site.descriptor(),
						this.reader.enclosingTypes.get(receiver - ReceiverFlow.OUTER)));
			}
		}
	}

}
