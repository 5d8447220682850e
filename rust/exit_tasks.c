// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks inside a body the exit trampoline called: how many there are,
 * answered exactly once no new one can enter, with no system-wide cache
 * line on the hot path.
 *
 * The exit trampoline (rust/trampolines.c) calls a traced function's body
 * with a return address in its own text. While any task is inside such a body,
 * batchprobe's text must stay: src/direct/exit.rs pins the module until none is.
 *
 * Counting: the entry handler counts the task in on this CPU's counter,
 * the exit handler counts it out on whichever CPU it returns on
 * (this_cpu_inc/dec: one instruction, NMI-safe on x86, no shared line).
 * A body that ends its task from inside (get_signal -> do_group_exit, an
 * exit system call through x64_sys_call, a seccomp kill, an io_uring
 * worker's do_exit) never returns to be counted out. Every task ends in
 * do_exit(), which never returns, so nothing that called it does either: a
 * kprobe on do_exit() walks the exiting task's stack from do_exit()'s
 * caller outwards with the kernel's unwinder and adds the bodies it finds
 * (frames whose return address is the trampoline's return point) to
 * bp_exit_gone. (Not a tracepoint inside do_exit(): the tracepoint's own
 * callees, which do return, could be bodies too.)
 *
 * "Tasks inside" = sum of the per-CPU counters - bp_exit_gone.
 *
 * Never too low: a frame is counted gone only where the unwinder found it
 * on a reliable walk. The walk stops at its first unreliable step (ORC's
 * frame-pointer guess) and at BP_EXIT_WALK_MAX frames, so a frame it
 * misses is counted too few times, which keeps the module pinned (a pin,
 * never freed text under a task).
 *
 * Exact when it is read with no entry possible: after every exit set is
 * detached and an RCU-tasks grace period has passed (src/direct/exit.rs's
 * release poll and exit_quiesce). Then each counter only falls (count-outs
 * and exits), so a sum read CPU by CPU is at least the value at its end,
 * and bp_exit_gone, read last, only rises: a sum of 0 means none inside.
 * While entries still happen, a sum read across CPUs is a snapshot, not
 * exact (a task counted in on an unread CPU and out on a read one).
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <asm/unwind.h>

#include "helpers.h"
static DEFINE_PER_CPU(long, bp_exit_inflight);
static atomic_long_t bp_exit_gone = ATOMIC_LONG_INIT(0);

/*
 * Whether exiting tasks look at their stacks: from before the first exit
 * set attaches until no task is inside (src/direct/exit.rs, under the direct lock).
 * While it is clear no task is inside a body, and none can enter one.
 */
static bool bp_exit_watch;

/* The trampoline's return point, as an offset into bp_direct_tramp_exit. */
extern const int bp_direct_tramp_exit_ret_off;

/* notrace: the exit trampoline's handlers call these. */
notrace void bp_exit_count_in(void)
{
	this_cpu_inc(bp_exit_inflight);
}

notrace void bp_exit_count_out(void)
{
	this_cpu_dec(bp_exit_inflight);
}

long bp_exit_inside(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(bp_exit_inflight, cpu);
	/* Read after the counters: it only rises, so the sum errs high. */
	smp_rmb();
	return sum - atomic_long_read(&bp_exit_gone);
}

long bp_exit_gone_count(void)
{
	return atomic_long_read(&bp_exit_gone);
}

void bp_exit_set_watch(bool on)
{
	WRITE_ONCE(bp_exit_watch, on);
	/* Before the first registration that follows (or after the last check). */
	smp_mb();
}

/*
 * The deepest stack walked. A dying task's stack is shallow (the body, its
 * way into do_exit, this probe); a frame deeper than this is missed, and
 * missing errs safe.
 */
#define BP_EXIT_WALK_MAX 256

/*
 * The bodies the exiting task is inside: the frames, from @regs (at
 * do_exit()'s entry) outwards, that return to the exit trampoline. Only
 * frames the unwinder found reliably count.
 */
static notrace unsigned long bp_exit_frames_inside(struct pt_regs *regs)
{
	unsigned long ret = (unsigned long)bp_direct_tramp_exit + bp_direct_tramp_exit_ret_off;
	struct unwind_state state;
	unsigned long n = 0, addr;
	int depth = 0;

	/* With @regs, unwind_start() skips the regs frame: do_exit() itself. */
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && depth < BP_EXIT_WALK_MAX;
	     unwind_next_frame(&state), depth++) {
		if (unwind_error(&state))
			break;
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (addr == ret)
			n++;
	}
	return n;
}

/* The do_exit() kprobe's handler: in the exiting task, at do_exit()'s entry. */
static notrace int bp_exit_task_exits(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long n;

	if (!READ_ONCE(bp_exit_watch))
		return 0;
	n = bp_exit_frames_inside(regs);
	if (n)
		atomic_long_add(n, &bp_exit_gone);
	return 0;
}

static struct kprobe bp_exit_kp = {
	.symbol_name = "do_exit",
	.pre_handler = bp_exit_task_exits,
};
static bool bp_exit_kp_registered;

int bp_exit_tasks_init(void)
{
	int ret = register_kprobe(&bp_exit_kp);

	if (ret) {
		pr_err("batchprobe: no kprobe on do_exit (errno %d): cannot tell which tasks end inside an exit set's body\n",
		       ret);
		return ret;
	}
	bp_exit_kp_registered = true;
	return 0;
}

void bp_exit_tasks_exit(void)
{
	/* Waits until no CPU runs the handler: its text can go. */
	if (bp_exit_kp_registered)
		unregister_kprobe(&bp_exit_kp);
	bp_exit_kp_registered = false;
}
