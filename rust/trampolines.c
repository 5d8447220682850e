// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace-direct trampolines. ftrace patches a traced function's fentry
 * site into "call TRAMP", so on entry the stack holds the return address into
 * the traced function and its arguments are still in rdi, rsi, rdx, rcx, r8
 * and r9 (rax: the vector count of a variadic callee). A trampoline saves
 * those, calls its handler with (return address, first argument, frame
 * pointer: the saved rdi, rsi, rdx, rcx, r8, r9 lie just below it, for an
 * API client's handler), restores them and returns into the traced function.
 *
 * They are written here, not in Rust's global_asm!, because what a correct
 * trampoline looks like depends on the kernel's configuration and boot-time
 * CPU features, and only the kernel's C headers spell that out, as
 * samples/ftrace/ftrace-direct-multi.c uses them:
 * - ASM_ENDBR: the endbr64 that IBT needs at an indirect-call target;
 * - CALL_DEPTH_ACCOUNT: with call-depth tracking, the call-depth increment
 *   that the patched fentry "call" did not do (callers' calls go to the
 *   callee's accounting thunk; ftrace's does not). It is an alternative,
 *   patched in at load time only on CPUs that use the mitigation;
 * - ASM_RET: "jmp __x86_return_thunk" with return thunks (patched to the
 *   call-depth return thunk where that is in use), "ret; int3" under SLS.
 * The handler call itself is a plain "call": objtool lists it in the
 * module's call sites, and the module loader redirects it to the handler's
 * accounting thunk. The kernel builds with an 8-byte stack alignment
 * (-mpreferred-stack-boundary=3), so nothing here realigns the stack.
 *
 * The handlers are Rust functions (src/direct/index.rs, declared in
 * rust/rust_entry.h). Rust code is not compiled with fentry calls, so they
 * cannot be traced themselves; what they call is notrace, and they take the
 * ftrace recursion lock first (see bp_direct_recursion_trylock in
 * rust/ftrace.c).
 */
#include <linux/linkage.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>

#include "helpers.h"
#include "rust_entry.h"

/*
 * What every counting trampoline does first: the frame, the call-depth
 * increment, the argument registers and rax saved below the frame pointer
 * (rdi at -8 ... rax at -56), and the handler's arguments: the return
 * address into the traced function, its first argument, the frame pointer.
 */
#define BP_TRAMP_ENTER							\
	ASM_ENDBR							\
"	pushq %rbp\n"							\
"	movq %rsp, %rbp\n"						\
	CALL_DEPTH_ACCOUNT						\
"	pushq %rdi\n"							\
"	pushq %rsi\n"							\
"	pushq %rdx\n"							\
"	pushq %rcx\n"							\
"	pushq %r8\n"							\
"	pushq %r9\n"							\
"	pushq %rax\n"							\
"	movq 8(%rbp), %rdi\n"						\
"	movq -8(%rbp), %rsi\n"						\
"	movq %rbp, %rdx\n"

/*
 * What every trampoline does after its entry handler: the argument
 * registers and rax restored, the frame gone.
 */
#define BP_TRAMP_LEAVE							\
"	popq %rax\n"							\
"	popq %r9\n"							\
"	popq %r8\n"							\
"	popq %rcx\n"							\
"	popq %rdx\n"							\
"	popq %rsi\n"							\
"	popq %rdi\n"							\
"	leave\n"

/*
 * Every trampoline starts on a 16-byte boundary, as the kernel's functions
 * do. Never at an odd address: from 6.19 on (CONFIG_DYNAMIC_FTRACE_WITH_JMP)
 * ftrace takes bit 0 of a direct call's address to mean "jump, not call"
 * (ftrace_is_jmp) and goes to the address with that bit cleared, one byte
 * early: on 7.3 the exit trampoline, which followed the empty one at an
 * odd address, was entered at the int3 padding before it (an Oops in
 * test_direct_exit_coexist.sh). src/direct/trampoline.rs checks the alignment too.
 */
#define BP_TRAMP_ALIGN "	.balign 16, 0xcc\n"

/* A trampoline's start: its section, alignment, symbol and label. */
#define BP_TRAMP_BEGIN(name)						\
"	.pushsection	.text, \"ax\", @progbits\n"			\
	BP_TRAMP_ALIGN							\
"	.type		" #name ", @function\n"				\
"	.globl		" #name "\n"					\
#name ":"

#define BP_DIRECT_TRAMPOLINE(name, handler)				\
asm(									\
	BP_TRAMP_BEGIN(name)						\
	BP_TRAMP_ENTER							\
"	call " #handler "\n"						\
	BP_TRAMP_LEAVE							\
	ASM_RET								\
"	.size		" #name ", .-" #name "\n"				\
"	.popsection\n"							\
)

BP_DIRECT_TRAMPOLINE(bp_direct_tramp_count, bp_direct_handle_count);
BP_DIRECT_TRAMPOLINE(bp_direct_tramp_record, bp_direct_handle_record);

/*
 * The baseline for the per-call cost of a direct call: a trampoline that
 * does nothing, in the style of samples/ftrace/ftrace-direct-multi.c.
 */
asm(
	BP_TRAMP_BEGIN(bp_direct_tramp_empty)
	ASM_ENDBR
"	pushq %rbp\n"
"	movq %rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	leave\n"
	ASM_RET
"	.size		bp_direct_tramp_empty, .-bp_direct_tramp_empty\n"
"	.popsection\n"
);

/*
 * The entry + exit trampoline (direct mode "exit"), built as BPF's fexit
 * trampolines are on x86-64: save the argument registers, call the entry
 * handler, call the traced function's body past its fentry site with the
 * arguments restored, keep its return value, call the exit handler with
 * it, and return to the traced function's caller.
 *
 * The body is "called" with a call to a local label that pushes the body's
 * address and returns into it: with IBT an indirect call or jump to
 * func+9, where no endbr64 is, would fault, and a return is not an
 * indirect branch. So the body's return address is the instruction after
 * "call 2f", inside this trampoline, and its stack is this frame: a stack
 * trace taken in the body unwinds (ORC, generated by objtool for this
 * asm) through the trampoline's frame, to the traced function's fentry
 * return address, to its caller. The body sees this frame where its
 * caller's stack arguments were: functions with stack arguments, and
 * variadic ones, are refused when the set is made (src/direct/signature.rs).
 *
 * Call-depth accounting: the fentry call (accounted at entry), "call 2f"
 * (accounted before it) and the caller's call are matched by the return
 * into the body, the body's return and the final return.
 *
 * The entry handler counts the task in before the body runs and the exit
 * handler counts it out after (rust/exit_tasks.c, which also counts the
 * tasks that end inside a body): a task can sleep in the body (a traced
 * function that blocks), with this text on its stack, long after its set
 * is gone. The module's exit waits until no task is inside, then for an
 * RCU-tasks grace period for the instructions after the exit handler
 * (src/direct/exit.rs: exit_quiesce).
 *
 * The entry handler returns a token (which slot it counted the call in,
 * or 0), handed to the exit handler, which charges the return to that
 * slot only: not to a set that attached the function while the task was
 * inside.
 *
 * The frame the body runs on. Whatever stays on the stack while the body
 * runs makes every call nested in it that much deeper, and with an exit
 * set on many functions such frames pile up on a deep path (a call inside
 * k exit-traced calls runs k frames deeper: docs/exit-trampoline.md,
 * "Stack depth"). So the saved registers and rbp are gone before the body
 * is called, and only 24 bytes stay, from the caller's return address
 * down:
 *   the traced function's fentry return address (the fentry call's; the
 *     exit handler's ip, and where the body starts),
 *   the token,
 *   the return address into this trampoline (.Lbp_exit_ret).
 * The body runs with the caller's rbp, as it would untraced. The exit handler's
 * frame (rax, rdx and the handler's own) is there only after the body
 * has returned.
 */
/* BP_INTRA_FUNCTION_CALL: see rust/kcompat.h. */

/*
 * Seven of them, from one text: bp_direct_tramp_exit, with the 24-byte
 * frame above, and bp_direct_tramp_exit_args1 ... 6, for the exit sets
 * whose return records read the call's arguments ($argN: fprobe's entry
 * data, BPF fsession's saved arguments), which keep the first K of rdi,
 * rsi, rdx, rcx, r8 and r9 in their frame while the body runs, between the
 * fentry return address and the token: 24 + 8K bytes (32 for $arg1, 72
 * for all six), and the exit handler gets their address. The
 * arguments of the macro, by frame: @keep pushes the saved arguments
 * (r9 first, so that rdi is the lowest); @body, @fentry and @caller are
 * where the fentry return address (before the body is called; after it
 * has returned, past rax and rdx) and the return address into the caller
 * are; @saved puts the saved arguments' address (or 0) in r8; @drop is
 * what the return pops before its ret (the token, the saved arguments,
 * the fentry return address).
 */
#define BP_EXIT_TRAMPOLINE(name, keep, body, fentry, caller, saved, drop)	\
asm(									\
	BP_TRAMP_BEGIN(name)						\
	BP_TRAMP_ENTER							\
"	call bp_direct_handle_exit_entry\n"				\
"	movq %rax, %r11\n"						\
	BP_TRAMP_LEAVE							\
	keep								\
	/* The token, above it the rest of the frame. */		\
"	pushq %r11\n"							\
	CALL_DEPTH_ACCOUNT						\
	/*								\
	 * Never taken (rsp is not 0). objtool takes an annotated call	\
	 * to a local label for a jump, so it would find 1: unreachable	\
	 * and give it no ORC entry; this branch shows it that 1: is	\
	 * reached with this very frame, as it is when the body returns	\
	 * there.							\
	 */								\
"	testq %rsp, %rsp\n"						\
"	jz 1f\n"							\
	/* The body's address, for 2: (r11 is no argument register). */	\
"	movq " body "(%rsp), %r11\n"					\
	BP_INTRA_FUNCTION_CALL						\
"	call 2f\n"							\
"1:\n"									\
".L" #name "_ret:\n"							\
"	pushq %rax\n"							\
"	pushq %rdx\n"							\
"	movq " fentry "(%rsp), %rdi\n"					\
"	movq %rax, %rsi\n"						\
"	movq 16(%rsp), %rdx\n"						\
	/* Where the return address into the caller is, for records. */	\
"	leaq " caller "(%rsp), %rcx\n"					\
"	" saved "\n"							\
"	call bp_direct_handle_exit_return\n"				\
"	popq %rdx\n"							\
"	popq %rax\n"							\
"	addq $" drop ", %rsp\n"						\
	UNWIND_HINT_FUNC						\
	ASM_RET								\
"2:\n"									\
"	pushq %r11\n"							\
	UNWIND_HINT_FUNC						\
	ASM_RET								\
"	.size		" #name ", .-" #name "\n"			\
"	.popsection\n"							\
	/*								\
	 * Where the body returns to, as an offset (an assembly-time	\
	 * constant: no relocation to text that objtool would want an	\
	 * endbr64 at), for rust/exit_tasks.c, which looks for it on	\
	 * exiting tasks' stacks.					\
	 */								\
"	.pushsection	.rodata, \"a\"\n"				\
"	.balign 4\n"							\
"	.globl		" #name "_ret_off\n"				\
#name "_ret_off:\n"							\
"	.long .L" #name "_ret - " #name "\n"				\
"	.popsection\n"							\
)

BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit, "", "8", "24", "32", "xorl %r8d, %r8d", "16");

/*
 * The trampolines that keep arguments: bp_direct_tramp_exit_argsK keeps
 * the first K argument registers (rdi, rsi, rdx, rcx, r8, r9: the highest
 * pushed first, so that rdi is the lowest), 8 bytes each, for the sets
 * whose return records read $arg1 ... $argK at most: a set reading $arg1
 * keeps 32 bytes under every body, not 72.
 */
#define BP_PUSH_RDI "	pushq %rdi\n"
#define BP_PUSH_RSI "	pushq %rsi\n" BP_PUSH_RDI
#define BP_PUSH_RDX "	pushq %rdx\n" BP_PUSH_RSI
#define BP_PUSH_RCX "	pushq %rcx\n" BP_PUSH_RDX
#define BP_PUSH_R8 "	pushq %r8\n" BP_PUSH_RCX
#define BP_PUSH_R9 "	pushq %r9\n" BP_PUSH_R8

/* K registers: the body at 8 + 8K, the fentry return address (past rax and rdx) at 24 + 8K. */
BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit_args1, BP_PUSH_RDI, "16", "32", "40",
		   "leaq 24(%rsp), %r8", "24");
BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit_args2, BP_PUSH_RSI, "24", "40", "48",
		   "leaq 24(%rsp), %r8", "32");
BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit_args3, BP_PUSH_RDX, "32", "48", "56",
		   "leaq 24(%rsp), %r8", "40");
BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit_args4, BP_PUSH_RCX, "40", "56", "64",
		   "leaq 24(%rsp), %r8", "48");
BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit_args5, BP_PUSH_R8, "48", "64", "72",
		   "leaq 24(%rsp), %r8", "56");
BP_EXIT_TRAMPOLINE(bp_direct_tramp_exit_args6, BP_PUSH_R9, "56", "72", "80",
		   "leaq 24(%rsp), %r8", "64");
