package dev.zklock.aop;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.zklock.aop.SelfCallSites.Site;

import org.springframework.asm.ClassWriter;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The receiver analysis on bytecode javac does not write (local 0 reassigned) or writes
 * rarely (loops and handlers that change a local, stack shuffles, long values): the
 * receiver is {@code this} only when it is on every path.
 */
@Timeout(30)
class SelfCallSitesTests {

	private static final String CLASS = "gen/Service";

	@Test
	void localZeroReassignedIsNotThis() throws IOException {
		assertThat(sitesOf("(Lgen/Service;)V", (code) -> {
			code.visitVarInsn(Opcodes.ALOAD, 1);
			code.visitVarInsn(Opcodes.ASTORE, 0);
			code.visitVarInsn(Opcodes.ALOAD, 0);
			call(code, "locked", "()V");
		})).isEmpty();
	}

	@Test
	void thisCopiedToAnotherLocalIsThis() throws IOException {
		assertThat(sitesOf("()V", (code) -> {
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitVarInsn(Opcodes.ASTORE, 1);
			code.visitVarInsn(Opcodes.ALOAD, 1);
			call(code, "locked", "()V");
		})).extracting(Site::name, Site::line).containsExactly(tuple("locked", 7));
	}

	@Test
	void aLocalThatALoopOverwritesIsNotThis() throws IOException {
		assertThat(sitesOf("(Lgen/Service;)V", (code) -> {
			Label loop = new Label();
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitVarInsn(Opcodes.ASTORE, 2);
			code.visitLabel(loop);
			code.visitVarInsn(Opcodes.ALOAD, 2);
			call(code, "locked", "()V");
			code.visitVarInsn(Opcodes.ALOAD, 1);
			code.visitVarInsn(Opcodes.ASTORE, 2);
			code.visitJumpInsn(Opcodes.GOTO, loop);
		})).isEmpty();
	}

	@Test
	void aHandlerSeesTheLocalsOfEveryInstructionItCovers() throws IOException {
		// The store in the try block may or may not have happened when the handler runs
		assertThat(sitesOf("(Lgen/Service;)V", (code) -> {
			Label start = new Label();
			Label end = new Label();
			Label handler = new Label();
			code.visitTryCatchBlock(start, end, handler, null);
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitVarInsn(Opcodes.ASTORE, 2);
			code.visitLabel(start);
			code.visitMethodInsn(Opcodes.INVOKESTATIC, CLASS, "work", "()V", false);
			code.visitVarInsn(Opcodes.ALOAD, 1);
			code.visitVarInsn(Opcodes.ASTORE, 2);
			code.visitLabel(end);
			code.visitInsn(Opcodes.RETURN);
			code.visitLabel(handler);
			code.visitInsn(Opcodes.POP);
			code.visitVarInsn(Opcodes.ALOAD, 2);
			call(code, "locked", "()V");
		})).isEmpty();
		assertThat(sitesOf("()V", (code) -> {
			Label start = new Label();
			Label end = new Label();
			Label handler = new Label();
			code.visitTryCatchBlock(start, end, handler, null);
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitVarInsn(Opcodes.ASTORE, 1);
			code.visitLabel(start);
			code.visitMethodInsn(Opcodes.INVOKESTATIC, CLASS, "work", "()V", false);
			code.visitLabel(end);
			code.visitInsn(Opcodes.RETURN);
			code.visitLabel(handler);
			code.visitInsn(Opcodes.POP);
			code.visitVarInsn(Opcodes.ALOAD, 1);
			call(code, "locked", "()V");
		})).extracting(Site::name).containsExactly("locked");
	}

	@Test
	void stackShufflesMoveThisWithThem() throws IOException {
		assertThat(sitesOf("(Lgen/Service;)V", (code) -> {
			// other, this -> this, other: the call is on this
			code.visitVarInsn(Opcodes.ALOAD, 1);
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitInsn(Opcodes.SWAP);
			call(code, "swapped", "(Ljava/lang/Object;)V");
			// this, other: the call is on other
			code.visitVarInsn(Opcodes.ALOAD, 1);
			code.visitVarInsn(Opcodes.ALOAD, 0);
			call(code, "unswapped", "(Ljava/lang/Object;)V");
			// this, long, copied and dropped: longs take two slots
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitInsn(Opcodes.LCONST_1);
			code.visitInsn(Opcodes.DUP2);
			code.visitInsn(Opcodes.POP2);
			call(code, "wide", "(J)V");
			// other, this -> this, other, this: DUP_X1 puts this under other
			code.visitVarInsn(Opcodes.ALOAD, 1);
			code.visitVarInsn(Opcodes.ALOAD, 0);
			code.visitInsn(Opcodes.DUP_X1);
			code.visitInsn(Opcodes.POP2);
			call(code, "duplicated", "()V");
		})).extracting(Site::name).containsExactly("swapped", "wide", "duplicated");
	}

	private static void call(MethodVisitor code, String name, String descriptor) {
		code.visitMethodInsn(Opcodes.INVOKEVIRTUAL, CLASS, name, descriptor, false);
	}

	/**
	 * The sites of a method {@code caller} with the given code, which gets a line number
	 * 7 at its start and a {@code return} at its end.
	 */
	private static List<Site> sitesOf(String descriptor, Consumer<MethodVisitor> body) throws IOException {
		ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
		writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, CLASS, null, "java/lang/Object", null);
		MethodVisitor code = writer.visitMethod(Opcodes.ACC_PUBLIC, "caller", descriptor, null, null);
		code.visitCode();
		Label first = new Label();
		code.visitLabel(first);
		code.visitLineNumber(7, first);
		body.accept(code);
		code.visitInsn(Opcodes.RETURN);
		code.visitMaxs(0, 0);
		code.visitEnd();
		writer.visitEnd();
		return SelfCallSites
			.read(new ByteArrayInputStream(writer.toByteArray()),
					Set.of("locked", "swapped", "unswapped", "wide", "duplicated"))
			.sites();
	}

}
