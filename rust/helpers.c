// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for batchprobe's Rust code: static inlines and macros wrapped in
 * real functions, and the debugfs file_operations that call into Rust.
 * Declared in helpers.h, which bindgen also reads.
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/fs.h>
#include <linux/kernel_read_file.h>
#include <linux/vmalloc.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/trace_recursion.h>
#include <linux/uaccess.h>
#include <asm/div64.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <asm/unwind_hints.h>
#include <linux/workqueue.h>

#include "helpers.h"

void bp_pin_module(void)
{
	__module_get(THIS_MODULE);
}

void bp_unpin_module(void)
{
	module_put(THIS_MODULE);
}

/*
 * The exit trampoline's release poll (src/direct.rs): runs the Rust
 * bp_direct_exit_release() until it is done, after 100 ms, then backing
 * off to every 5 s (a task can stay inside for good).
 */
bool bp_direct_exit_release(void);	/* Rust, src/direct.rs */
static void bp_exit_release_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(bp_exit_release_work, bp_exit_release_fn);

static unsigned long bp_exit_release_delay;

/*
 * The release poll queues on system_long_wq: it exists on every kernel we
 * build for, and 7.3 deprecates system_wq (a warning at the first queueing).
 */

static void bp_exit_release_fn(struct work_struct *work)
{
	if (bp_direct_exit_release())
		return;
	bp_exit_release_delay = clamp(bp_exit_release_delay * 2, HZ / 10, 5 * HZ);
	queue_delayed_work(system_long_wq, &bp_exit_release_work, bp_exit_release_delay);
}

void bp_exit_release_schedule(void)
{
	bp_exit_release_delay = 0;
	mod_delayed_work(system_long_wq, &bp_exit_release_work, 0);
}

void bp_exit_release_cancel(void)
{
	cancel_delayed_work_sync(&bp_exit_release_work);
}

bool bp_try_module_get(struct module *mod)
{
	return try_module_get(mod);
}

bool bp_module_is_live(struct module *mod)
{
	return module_is_live(mod);
}

void bp_module_put(struct module *mod)
{
	module_put(mod);
}

const char *bp_module_name(struct module *mod)
{
	return mod ? module_name(mod) : "kernel";
}

/*
 * A module going away (its init failed after it created sets, or a forced
 * unload) is told to src/api.rs, which retires its sets while its text is
 * still there. A normal unload never gets here with sets: each holds a
 * reference on its client module. This runs for every module that goes on
 * the system; src/api.rs answers "owns no set" without the registry lock.
 */
void bp_rust_module_going(struct module *mod);

static int bp_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	if (action == MODULE_STATE_GOING)
		bp_rust_module_going(data);
	return NOTIFY_DONE;
}

static struct notifier_block bp_module_nb = {
	.notifier_call = bp_module_notify,
};

int bp_module_notifier_register(void)
{
	return register_module_notifier(&bp_module_nb);
}

void bp_module_notifier_unregister(void)
{
	unregister_module_notifier(&bp_module_nb);
}

void bp_cond_resched(void)
{
	cond_resched();
}

/*
 * Phase timings read this clock, not ktime_get_ns() alone: ktime_get_ns()
 * calls the clocksource's read_tsc(), an ordinary probe-able text symbol
 * (the bench probes it at N = 4096, being among the first kernel text
 * symbols), so a timing's second reading could take an int3 trap of its
 * own and time the probe instead of the phase. Here rdtsc and the
 * conversion are inline in a notrace function: nothing on the path can
 * carry a probe. The TSC is used only when the kernel itself trusts it
 * (known rate, not marked unstable, so synchronized across CPUs: the
 * start and end of a timing may be read on different CPUs); otherwise,
 * ktime_get_ns().
 */
static bool bp_clock_tsc __read_mostly;

void bp_clock_init(void)
{
#ifdef CONFIG_X86_TSC
	WRITE_ONCE(bp_clock_tsc, boot_cpu_has(X86_FEATURE_TSC) && tsc_khz &&
				 !check_tsc_unstable());
#endif
}

bool bp_clock_is_tsc(void)
{
	return READ_ONCE(bp_clock_tsc);
}

notrace u64 bp_clock_ns(void)
{
#ifdef CONFIG_X86_TSC
	if (likely(READ_ONCE(bp_clock_tsc)))
		return mul_u64_u32_div(rdtsc_ordered(), USEC_PER_SEC, tsc_khz);
#endif
	return ktime_get_ns();
}

/* notrace: the direct handlers call these; they must not recurse into ftrace. */
notrace void bp_preempt_disable_notrace(void)
{
	preempt_disable_notrace();
}

notrace void bp_preempt_enable_notrace(void)
{
	preempt_enable_notrace();
}

/* notrace: the direct handlers call these; they must not recurse into ftrace. */
notrace void bp_rcu_read_lock(void)
{
	rcu_read_lock();
}

notrace void bp_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

struct workqueue_struct *bp_alloc_ordered_workqueue(const char *name)
{
	return alloc_ordered_workqueue("%s", 0, name);
}

void bp_flush_workqueue(struct workqueue_struct *wq)
{
	flush_workqueue(wq);
}

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
 * The handlers are Rust functions (src/direct.rs). Rust code is not compiled
 * with fentry calls, so they cannot be traced themselves; what they call is
 * notrace, and they take the ftrace recursion lock first (see
 * bp_direct_recursion_trylock below).
 */
#include <asm/ibt.h>
#include <asm/nospec-branch.h>

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
 * Every trampoline starts on a 16-byte boundary, as the kernel's functions
 * do. Never at an odd address: from 6.19 on (CONFIG_DYNAMIC_FTRACE_WITH_JMP)
 * ftrace takes bit 0 of a direct call's address to mean "jump, not call"
 * (ftrace_is_jmp) and goes to the address with that bit cleared, one byte
 * early: on 7.3 the exit trampoline, which followed the empty one at an
 * odd address, was entered at the int3 padding before it (an Oops in
 * test_direct_exit_coexist.sh). src/trampoline.rs checks the alignment too.
 */
#define BP_TRAMP_ALIGN "	.balign 16, 0xcc\n"

#define BP_DIRECT_TRAMPOLINE(name, handler)				\
asm(									\
"	.pushsection	.text, \"ax\", @progbits\n"			\
	BP_TRAMP_ALIGN							\
"	.type		" #name ", @function\n"				\
"	.globl		" #name "\n"					\
#name ":"								\
	BP_TRAMP_ENTER							\
"	call " #handler "\n"						\
"	popq %rax\n"							\
"	popq %r9\n"							\
"	popq %r8\n"							\
"	popq %rcx\n"							\
"	popq %rdx\n"							\
"	popq %rsi\n"							\
"	popq %rdi\n"							\
"	leave\n"							\
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
"	.pushsection	.text, \"ax\", @progbits\n"
	BP_TRAMP_ALIGN
"	.type		bp_direct_tramp_empty, @function\n"
"	.globl		bp_direct_tramp_empty\n"
"bp_direct_tramp_empty:"
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
 * variadic ones, are refused when the set is made (src/signature.rs).
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
 * (src/direct.rs: exit_quiesce).
 *
 * The entry handler returns a token (which slot it counted the call in,
 * or 0), kept in the saved-rdi slot (free once rdi is restored; the body
 * has no stack arguments, so it never touches this frame) and handed to
 * the exit handler, which charges the return to that slot only: not to a
 * set that attached the function while the task was inside.
 */
/* BP_INTRA_FUNCTION_CALL: see rust/kcompat.h. */

asm(
"	.pushsection	.text, \"ax\", @progbits\n"
	BP_TRAMP_ALIGN
"	.type		bp_direct_tramp_exit, @function\n"
"	.globl		bp_direct_tramp_exit\n"
"bp_direct_tramp_exit:"
	BP_TRAMP_ENTER
"	call bp_direct_handle_exit_entry\n"
"	movq %rax, %r11\n"
"	movq -56(%rbp), %rax\n"
"	movq -48(%rbp), %r9\n"
"	movq -40(%rbp), %r8\n"
"	movq -32(%rbp), %rcx\n"
"	movq -24(%rbp), %rdx\n"
"	movq -16(%rbp), %rsi\n"
"	movq -8(%rbp), %rdi\n"
"	movq %r11, -8(%rbp)\n"
	CALL_DEPTH_ACCOUNT
	/*
	 * Never taken (rsp is not 0). objtool takes an annotated call to a
	 * local label for a jump, so it would find 1: unreachable and give it
	 * no ORC entry; this branch shows it that 1: is reached with this
	 * very frame, as it is when the body returns there.
	 */
"	testq %rsp, %rsp\n"
"	jz 1f\n"
	BP_INTRA_FUNCTION_CALL
"	call 2f\n"
"1:\n"
".Lbp_exit_ret:\n"
"	movq %rax, -56(%rbp)\n"
"	movq %rdx, -24(%rbp)\n"
"	movq 8(%rbp), %rdi\n"
"	movq %rax, %rsi\n"
"	movq -8(%rbp), %rdx\n"
"	call bp_direct_handle_exit_return\n"
"	movq -56(%rbp), %rax\n"
"	movq -24(%rbp), %rdx\n"
"	leave\n"
"	addq $8, %rsp\n"
	UNWIND_HINT_FUNC
	ASM_RET
"2:\n"
"	pushq 8(%rbp)\n"
	UNWIND_HINT_FUNC
	ASM_RET
"	.size		bp_direct_tramp_exit, .-bp_direct_tramp_exit\n"
"	.popsection\n"
	/*
	 * Where the body returns to, as an offset (an assembly-time constant:
	 * no relocation to text that objtool would want an endbr64 at), for
	 * rust/exit_tasks.c, which looks for it on exiting tasks' stacks.
	 */
"	.pushsection	.rodata, \"a\"\n"
"	.balign 4\n"
"	.globl		bp_direct_tramp_exit_ret_off\n"
"bp_direct_tramp_exit_ret_off:\n"
"	.long .Lbp_exit_ret - bp_direct_tramp_exit\n"
"	.popsection\n"
);

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

/*
 * The kernel's BTF, as /sys/kernel/btf/vmlinux serves it (the raw
 * __start_BTF section), into a vmalloc'ed buffer: its size, or -ENOENT
 * on a kernel without CONFIG_DEBUG_INFO_BTF. Free with bp_vfree().
 */
long bp_btf_vmlinux_read(void **buf)
{
	size_t size = 0;
	ssize_t ret;

	*buf = NULL;
	/* In the initial mount namespace: a writer's chroot may lack /sys. */
	ret = kernel_read_file_from_path_initns("/sys/kernel/btf/vmlinux", 0, buf, INT_MAX,
						&size, READING_UNKNOWN);
	if (ret >= 0 && (size_t)ret != size) {
		vfree(*buf);
		*buf = NULL;
		return -EIO;
	}
	return ret;
}

void bp_vfree(void *p)
{
	vfree(p);
}

void bp_sleep_ms(unsigned int ms)
{
	msleep(ms);
}

/* synchronize_rcu() where the kernel has no RCU-tasks (a macro there). */
void bp_synchronize_rcu_tasks(void)
{
	synchronize_rcu_tasks();
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

static struct ftrace_ops bp_scratch_ops;

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

void bp_ftrace_scratch_free(void)
{
	ftrace_free_filter(&bp_scratch_ops);
}

struct kretprobe *bp_get_kretprobe(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
NOKPROBE_SYMBOL(bp_get_kretprobe);

int bp_format_kptr(char *buf, size_t len, unsigned long value)
{
	return scnprintf(buf, len, "%pK", (void *)value);
}

/*
 * Serialises every control write and file read, killably: a task waiting
 * behind a long batch (tens of thousands of lines, a glob over every kernel
 * function) can be killed instead of sitting in D state. The registry's own
 * lock inside is then never contended by file users.
 */
static DEFINE_MUTEX(bp_files_mutex);

static ssize_t bp_control_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	ssize_t ret;
	char *buf;

	/*
	 * The file is 0600, but root with CAP_SYS_ADMIN dropped must not
	 * attach probes to the kernel either (as for kprobe_events, where
	 * tracefs' own checks do this).
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (len > BP_MAX_WRITE)
		return -E2BIG;
	buf = kvmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, len)) {
		kvfree(buf);
		return -EFAULT;
	}
	buf[len] = '\0';
	ret = mutex_lock_killable(&bp_files_mutex);
	if (!ret) {
		ret = bp_rust_control_write(file->private_data, buf, len);
		mutex_unlock(&bp_files_mutex);
	}
	kvfree(buf);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

static const struct file_operations bp_control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = bp_control_write,
	.llseek = noop_llseek,
};

#define BP_SHOW_FILE(fname, what)					\
static int bp_##fname##_show(struct seq_file *m, void *v)		\
{									\
	int ret = mutex_lock_killable(&bp_files_mutex);			\
									\
	if (ret)							\
		return ret;						\
	ret = bp_rust_show(m->private, what, m);			\
	mutex_unlock(&bp_files_mutex);					\
	return ret;							\
}									\
DEFINE_SHOW_ATTRIBUTE(bp_##fname)

BP_SHOW_FILE(sets, BP_SHOW_SETS);
BP_SHOW_FILE(stats, BP_SHOW_STATS);
BP_SHOW_FILE(last_error, BP_SHOW_LAST_ERROR);

int bp_debugfs_create_files(struct dentry *dir, void *engine)
{
	struct dentry *d[] = {
		debugfs_create_file("control", 0600, dir, engine, &bp_control_fops),
		debugfs_create_file("sets", 0400, dir, engine, &bp_sets_fops),
		debugfs_create_file("stats", 0400, dir, engine, &bp_stats_fops),
		debugfs_create_file("last_error", 0400, dir, engine, &bp_last_error_fops),
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(d); i++)
		if (IS_ERR(d[i]))
			return PTR_ERR(d[i]);
	return 0;
}

unsigned int bp_num_possible_cpus(void)
{
	return num_possible_cpus();
}

/*
 * The most one set's return-instance pools (kretprobes' and return fprobes'
 * objpools, every possible CPU's slot included) may take, in KiB: see
 * src/retpool.rs and the README. Root may change it at any time; each
 * create reads it once.
 */
static unsigned int max_return_pool_kib = BP_RETURN_POOL_KIB_DEFAULT;
module_param(max_return_pool_kib, uint, 0644);
MODULE_PARM_DESC(max_return_pool_kib,
		 "most KiB of return-instance pools one set may take, on this machine's possible CPUs (default 262144)");

unsigned long bp_max_return_pool_bytes(void)
{
	return (unsigned long)READ_ONCE(max_return_pool_kib) * 1024;
}
