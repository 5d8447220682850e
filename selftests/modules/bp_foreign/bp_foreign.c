// SPDX-License-Identifier: GPL-2.0
/*
 * bp_foreign: the other tracers batchprobe's direct sets meet on a real
 * system, for its selftests.
 *   direct=SYM    an ftrace-direct call on SYM from this module's own
 *                 trampoline, as samples/ftrace/ftrace-direct.c does (a BPF
 *                 trampoline or another direct-call module looks the same
 *                 to ftrace);
 *   ipmodify=SYM  a kprobe at SYM+0 with a post handler: on an ftrace-able
 *                 function the kernel arms it through its IPMODIFY ftrace
 *                 ops, as livepatch would, which no direct call may share.
 * /sys/module/bp_foreign/parameters/calls counts the direct calls; a write
 * of N to /sys/module/bp_foreign/parameters/poke calls bp_foreign_extra_a()
 * N times, so that a test knows how many calls a probe on it must count;
 * a write of N to errs calls bp_foreign_errno() N times (its returns known:
 * see there), for the errno counts of an exit set on a module's function.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/linkage.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>

static char *direct;
module_param(direct, charp, 0400);
static char *ipmodify;
module_param(ipmodify, charp, 0400);
static unsigned long calls;
module_param(calls, ulong, 0400);

/* Called from the trampoline below. */
void bp_foreign_count(void);
void bp_foreign_count(void)
{
	WRITE_ONCE(calls, READ_ONCE(calls) + 1);
}

/*
 * Two more functions of this module's text, never called: a MOD:GLOB line
 * (test_kprobe_module_symbol.sh) meets more than one function.
 */
void bp_foreign_extra_a(void);
noinline void bp_foreign_extra_a(void)
{
	WRITE_ONCE(calls, READ_ONCE(calls) + 2);
}

void bp_foreign_extra_b(void);
noinline void bp_foreign_extra_b(void)
{
	WRITE_ONCE(calls, READ_ONCE(calls) + 3);
}

/* A write of N (at most a million) to a parameter: call(i) for i < N, now. */
static int call_n(const char *val, void (*call)(unsigned long i))
{
	unsigned long n, i;
	int ret = kstrtoul(val, 0, &n);

	if (ret)
		return ret;
	if (n > 1000000)
		return -E2BIG;
	for (i = 0; i < n; i++)
		call(i);
	return 0;
}

static void poke_one(unsigned long i)
{
	bp_foreign_extra_a();
}

/* poke=N: N calls of bp_foreign_extra_a(). */
static int poke_set(const char *val, const struct kernel_param *kp)
{
	return call_n(val, poke_one);
}

static const struct kernel_param_ops poke_ops = {
	.set = poke_set,
};
module_param_cb(poke, &poke_ops, NULL, 0200);

/*
 * Call i of an errs=N write: returns -ENOENT when i % 4 is 1, -EINVAL when
 * it is 2, else i (an int, as the module's BTF says); adds i to *sum.
 */
int bp_foreign_errno(int i, long *sum);
noinline int bp_foreign_errno(int i, long *sum)
{
	WRITE_ONCE(*sum, READ_ONCE(*sum) + i);
	switch (i % 4) {
	case 1:
		return -ENOENT;
	case 2:
		return -EINVAL;
	default:
		return i;
	}
}

/*
 * Seven arguments, one on the stack: the exit trampoline refuses it, by
 * the module's BTF (never called).
 */
long bp_foreign_stack7(long a, long b, long c, long d, long e, long f, long g);
noinline long bp_foreign_stack7(long a, long b, long c, long d, long e, long f, long g)
{
	return a + b + c + d + e + f + g + READ_ONCE(calls);
}

/* Called through a pointer the compiler cannot see through: no clone. */
static int (*volatile errno_fn)(int, long *) = bp_foreign_errno;

static long errs_sum;

static void errs_one(unsigned long i)
{
	errno_fn(i, &errs_sum);
}

/* errs=N: N calls of bp_foreign_errno(). */
static int errs_set(const char *val, const struct kernel_param *kp)
{
	return call_n(val, errs_one);
}

static const struct kernel_param_ops errs_ops = {
	.set = errs_set,
};
module_param_cb(errs, &errs_ops, NULL, 0200);

extern void bp_foreign_tramp(void);

asm(
"	.pushsection	.text, \"ax\", @progbits\n"
"	.type		bp_foreign_tramp, @function\n"
"	.globl		bp_foreign_tramp\n"
"bp_foreign_tramp:"
	ASM_ENDBR
"	pushq %rbp\n"
"	movq %rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	pushq %rdi\n"
"	pushq %rsi\n"
"	pushq %rdx\n"
"	pushq %rcx\n"
"	pushq %r8\n"
"	pushq %r9\n"
"	pushq %rax\n"
"	call bp_foreign_count\n"
"	popq %rax\n"
"	popq %r9\n"
"	popq %r8\n"
"	popq %rcx\n"
"	popq %rdx\n"
"	popq %rsi\n"
"	popq %rdi\n"
"	leave\n"
	ASM_RET
"	.size		bp_foreign_tramp, .-bp_foreign_tramp\n"
"	.popsection\n"
);

static struct ftrace_ops direct_ops;
static bool direct_on;

static void post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static struct kprobe kp = { .post_handler = post };
static bool kp_on;

static int __init bp_foreign_init(void)
{
	int ret;

	if (direct) {
		unsigned long ip;
		struct kprobe probe = { .symbol_name = direct };

		/* The function's address, as kprobes resolve it. */
		ret = register_kprobe(&probe);
		if (ret)
			return ret;
		ip = (unsigned long)probe.addr;
		unregister_kprobe(&probe);
		ret = ftrace_set_filter_ip(&direct_ops, ip, 0, 0);
		if (!ret)
			ret = register_ftrace_direct(&direct_ops, (unsigned long)bp_foreign_tramp);
		if (ret) {
			pr_err("bp_foreign: direct call on %s: %d\n", direct, ret);
			return ret;
		}
		direct_on = true;
	}
	if (ipmodify) {
		kp.symbol_name = ipmodify;
		ret = register_kprobe(&kp);
		if (ret) {
			pr_err("bp_foreign: IPMODIFY kprobe on %s: %d\n", ipmodify, ret);
			if (direct_on)
				unregister_ftrace_direct(&direct_ops, (unsigned long)bp_foreign_tramp, true);
			return ret;
		}
		kp_on = true;
	}
	return 0;
}

static void __exit bp_foreign_exit(void)
{
	if (kp_on)
		unregister_kprobe(&kp);
	if (direct_on)
		unregister_ftrace_direct(&direct_ops, (unsigned long)bp_foreign_tramp, true);
}

module_init(bp_foreign_init);
module_exit(bp_foreign_exit);
MODULE_DESCRIPTION("Another direct caller and an IPMODIFY user, for batchprobe's selftests");
MODULE_LICENSE("GPL");
