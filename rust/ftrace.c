// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace and fprobe helpers for batchprobe's Rust code: the direct
 * handlers' recursion guard, the direct backend's lock, the scratch
 * ftrace_ops that tells whether ftrace can trace a function, and fprobe's
 * fgraph anchor and register accessors.
 */
#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/trace_recursion.h>
#include <linux/uaccess.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

#include "helpers.h"

/*
 * The direct handlers' recursion guard and read-side critical section, in
 * one: ftrace's own recursion lock (as fprobe and the function tracer take
 * it) disables preemption with preempt_disable_notrace(). With RCU's
 * consolidated flavors, a preemption-disabled region is an RCU read-side
 * critical section that call_rcu() and synchronize_rcu() wait for, so the
 * handler needs no rcu_read_lock(), which on PREEMPT_RCU is the traceable
 * __rcu_read_lock(): a direct set on that very function would call its
 * trampoline from its own handler, forever.
 */
notrace int bp_direct_recursion_trylock(unsigned long ip)
{
	return ftrace_test_recursion_trylock(ip, ip);
}

notrace void bp_direct_recursion_unlock(int bit)
{
	ftrace_test_recursion_unlock(bit);
}

static DEFINE_MUTEX(bp_direct_mutex);

void bp_direct_lock(void)
{
	mutex_lock(&bp_direct_mutex);
}

void bp_direct_unlock(void)
{
	mutex_unlock(&bp_direct_mutex);
}

/* See rust/helpers.h: never called, and traceable (an fentry call site). */
noinline void bp_fgraph_anchor(void)
{
	barrier();
}

/* Called from fprobe handlers: notrace, like them. See rust/kcompat.h. */
notrace unsigned long bp_fprobe_arg0(bp_fprobe_regs *regs)
{
	return BP_FPROBE_ARG0(regs);
}

notrace struct pt_regs *bp_fprobe_pt_regs(bp_fprobe_regs *regs)
{
	return BP_FPROBE_PT_REGS(regs);
}

notrace struct pt_regs *bp_fprobe_fetch_regs(bp_fprobe_regs *regs)
{
	return BP_FPROBE_FETCH_REGS(regs);
}

static struct ftrace_ops bp_scratch_ops;

int bp_ftrace_check_ip(unsigned long ip, unsigned long *fentry)
{
	u32 insn;
	int ret;

	/*
	 * ftrace maps a function's address to its call site exactly only when
	 * they are equal; otherwise it asks kallsyms. Under IBT the site is
	 * right after the endbr64: try that first, so that the batch filter
	 * update later gets exact sites.
	 */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) &&
	    !copy_from_kernel_nofault(&insn, (void *)ip, sizeof(insn)) &&
	    bp_is_endbr(insn) &&
	    !ftrace_set_filter_ip(&bp_scratch_ops, ip + ENDBR_INSN_SIZE, 0, 1)) {
		*fentry = ip + ENDBR_INSN_SIZE;
		return 0;
	}
	ret = ftrace_set_filter_ip(&bp_scratch_ops, ip, 0, 1);
	if (!ret)
		*fentry = ip;
	return ret;
}

/*
 * Where ftrace's call site would be in the function at @ip, from the
 * function's own bytes: after its endbr64 under IBT, else at @ip; 0 when
 * the instruction there is none that ftrace leaves at a call site. On x86
 * ftrace turns every site into its 5-byte NOP at boot and later into a
 * call to a tracer or a direct trampoline (ftrace_call_replace(); with
 * CONFIG_DYNAMIC_FTRACE_WITH_JMP, 7.x, a jmp to a BPF trampoline that
 * calls the function itself) and back, each change made with
 * text_poke_bp (an int3 on the first byte while it lasts): any other
 * instruction is no site. *@target is where a call or jmp there goes,
 * which tells a tail call or a cold part's first call (into core-kernel
 * text, not to ftrace_caller) from ftrace's; 0 for ftrace's NOP; the site
 * itself for an int3, which goes nowhere known (a patch under way, or the
 * int3 padding between text sections). A site the guess names is only a
 * candidate: bp_ftrace_check_sites() asks ftrace.
 */
unsigned long bp_ftrace_site_guess(unsigned long ip, unsigned long *target)
{
	static const u8 nop5[] = { BYTES_NOP5 };
	u8 insn[MCOUNT_INSN_SIZE];
	u32 endbr;
	s32 rel;

	BUILD_BUG_ON(sizeof(nop5) != MCOUNT_INSN_SIZE);
	*target = 0;
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) &&
	    !copy_from_kernel_nofault(&endbr, (void *)ip, sizeof(endbr)) &&
	    bp_is_endbr(endbr))
		ip += ENDBR_INSN_SIZE;
	if (copy_from_kernel_nofault(insn, (void *)ip, sizeof(insn)))
		return 0;
	if (insn[0] == CALL_INSN_OPCODE || insn[0] == JMP32_INSN_OPCODE) {
		memcpy(&rel, insn + 1, sizeof(rel));
		*target = ip + MCOUNT_INSN_SIZE + (long)rel;
		return ip;
	}
	if (insn[0] == INT3_INSN_OPCODE) {
		*target = ip;
		return ip;
	}
	return memcmp(insn, nop5, sizeof(insn)) ? 0 : ip;
}

/*
 * Whether ftrace has a call site at each of @sites: one filter update of
 * the scratch ops for them all (0 if so; -EINVAL if not at some, without
 * saying which). The filter stays until the next update replaces it (the
 * old one freed after a grace period) or unload: 6.12's
 * ftrace_free_filter() leaves the freed hash in the ops, which the next
 * update would free again.
 */
int bp_ftrace_check_sites(unsigned long *sites, unsigned int cnt)
{
	return ftrace_set_filter_ips(&bp_scratch_ops, sites, cnt, 0, 1);
}

unsigned int bp_fentry_max_offset(void)
{
	return ENDBR_INSN_SIZE;
}

bool bp_notrace_refused(void)
{
	return !IS_ENABLED(CONFIG_KPROBE_EVENTS_ON_NOTRACE);
}

void bp_ftrace_scratch_free(void)
{
	ftrace_free_filter(&bp_scratch_ops);
}

unsigned long bp_ftrace_direct_call(struct ftrace_ops *ops)
{
	return READ_ONCE(ops->direct_call);
}
