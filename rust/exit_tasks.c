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
 * callback at do_exit()'s entry walks the exiting task's stack from
 * do_exit()'s caller outwards with the kernel's unwinder and adds the
 * bodies it finds (frames whose return address is the trampoline's return
 * point) to bp_exit_gone. (Not a tracepoint inside do_exit(): the
 * tracepoint's own callees, which do return, could be bodies too.)
 *
 * That callback is an ftrace_ops of our own on do_exit(), not a kprobe:
 * `echo 0 > /sys/kernel/debug/kprobes/enabled` disarms every kprobe, and
 * a task that died inside a body meanwhile was never counted gone (the
 * module stayed pinned until reboot). The ops is FTRACE_OPS_FL_PERMANENT,
 * so function tracing cannot be switched off under it either
 * (/proc/sys/kernel/ftrace_enabled refuses 0, as it does for any
 * ftrace-based kprobe). It is registered with the first exit set, not at
 * load (every task exit pays for it), and stays until unload.
 *
 * What is still missed, and keeps the module pinned (never a freed text
 * under a task): a task whose stack is thrown away before do_exit(), as
 * an oops does (rewind_stack_and_make_dead()); and an idle task whose CPU
 * goes offline inside a body (the idle paths that never return are
 * refused: src/direct/signature.rs, NORETURN).
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
#include <linux/ftrace.h>
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

/*
 * The exit trampolines' return points, as offsets into each
 * (rust/trampolines.c: the one with the 24-byte frame, and the ones that
 * keep 1 ... 6 argument registers).
 */
extern const int bp_direct_tramp_exit_ret_off;
extern const int bp_direct_tramp_exit_args1_ret_off;
extern const int bp_direct_tramp_exit_args2_ret_off;
extern const int bp_direct_tramp_exit_args3_ret_off;
extern const int bp_direct_tramp_exit_args4_ret_off;
extern const int bp_direct_tramp_exit_args5_ret_off;
extern const int bp_direct_tramp_exit_args6_ret_off;

/* Whether @addr is a return point into one of the exit trampolines. */
static notrace bool bp_exit_ret_addr(unsigned long addr)
{
#define BP_EXIT_RET(name) ((unsigned long)name + name##_ret_off)
	return addr == BP_EXIT_RET(bp_direct_tramp_exit) ||
	       addr == BP_EXIT_RET(bp_direct_tramp_exit_args1) ||
	       addr == BP_EXIT_RET(bp_direct_tramp_exit_args2) ||
	       addr == BP_EXIT_RET(bp_direct_tramp_exit_args3) ||
	       addr == BP_EXIT_RET(bp_direct_tramp_exit_args4) ||
	       addr == BP_EXIT_RET(bp_direct_tramp_exit_args5) ||
	       addr == BP_EXIT_RET(bp_direct_tramp_exit_args6);
#undef BP_EXIT_RET
}

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
 * The exit accounting needs an unwinder that reports only real frames and
 * says where it is unsure: ORC and frame pointers do. The guess unwinder
 * reports every text address on the stack, stale "1:" words left by bodies
 * that returned among them, so bodies would be counted gone that were not,
 * and the pin could drop with a task inside: there exit sets are refused
 * (bp_exit_tasks_start()).
 */
#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_UNWINDER_FRAME_POINTER)
#define BP_EXIT_RELIABLE_UNWINDER 1
#else
#define BP_EXIT_RELIABLE_UNWINDER 0
#endif

/*
 * The bodies the exiting task is inside: the frames, from @regs (at
 * do_exit()'s entry) outwards, that return to the exit trampoline. Only
 * frames the unwinder found reliably count.
 */
static notrace unsigned long bp_exit_frames_inside(struct pt_regs *regs)
{
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
		if (bp_exit_ret_addr(addr))
			n++;
	}
	return n;
}

/*
 * The do_exit() callback: in the exiting task, at do_exit()'s entry, with
 * the registers saved there (FTRACE_OPS_FL_SAVE_REGS). ftrace's recursion
 * guard is around it (no FTRACE_OPS_FL_RECURSION).
 */
static notrace void bp_exit_task_exits(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long n;

	if (!READ_ONCE(bp_exit_watch) || !regs)
		return;
	n = bp_exit_frames_inside(regs);
	if (n)
		atomic_long_add(n, &bp_exit_gone);
}

#define BP_EXIT_OPS_INIT {							\
	.func = bp_exit_task_exits,						\
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_PERMANENT,		\
}
static struct ftrace_ops bp_exit_ops = BP_EXIT_OPS_INIT;
/* Registered: set once by bp_exit_tasks_start() (serialised by its caller's lock). */
static bool bp_exit_ops_registered;

int bp_exit_tasks_start(void)
{
	char name[] = "do_exit";	/* ftrace's parser may write into it */
	int ret;

	if (!BP_EXIT_RELIABLE_UNWINDER)
		return -EOPNOTSUPP;
	if (bp_exit_ops_registered)
		return 0;
	ret = ftrace_set_filter(&bp_exit_ops, (unsigned char *)name, sizeof(name) - 1, 1);
	if (!ret)
		ret = register_ftrace_function(&bp_exit_ops);
	if (ret) {
		/*
		 * ftrace_free_filter() leaves the ops pointing to the hashes it
		 * freed: the next try starts from a fresh ops.
		 */
		ftrace_free_filter(&bp_exit_ops);
		bp_exit_ops = (struct ftrace_ops)BP_EXIT_OPS_INIT;
		pr_warn("batchprobe: no ftrace callback on do_exit (errno %d%s): exit sets cannot tell which tasks end inside a body, and are refused\n",
			ret, ret == -EBUSY ? ", /proc/sys/kernel/ftrace_enabled is 0" : "");
		return ret;
	}
	bp_exit_ops_registered = true;
	return 0;
}

void bp_exit_tasks_exit(void)
{
	if (!bp_exit_ops_registered)
		return;
	/* Waits until no CPU runs the callback: its text can go. */
	unregister_ftrace_function(&bp_exit_ops);
	ftrace_free_filter(&bp_exit_ops);
	bp_exit_ops_registered = false;
}
