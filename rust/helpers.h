/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What batchprobe's Rust code calls on the C side: C helpers for what Rust
 * cannot call directly (static inlines, macros, file_operations tables,
 * asm), grouped below by the rust/ C file that defines them. bindgen reads
 * this header (through rust/bindings_input.h), so Rust sees the same
 * declarations.
 *
 * The other direction, the Rust functions that C calls, is declared in
 * rust/rust_entry.h, which bindgen never reads.
 */
#ifndef BATCHPROBE_HELPERS_H
#define BATCHPROBE_HELPERS_H

#include <linux/types.h>

#include "kcompat.h"

struct dentry;
struct pt_regs;
struct module;
struct kretprobe;
struct kretprobe_instance;
struct workqueue_struct;

/* rust/debugfs.c: the debugfs files. */

/* What a read-only debugfs file shows; passed back to bp_rust_show(). */
enum bp_show {
	BP_SHOW_SETS = 0,
	BP_SHOW_STATS = 1,
	BP_SHOW_LAST_ERROR = 2,
};

/*
 * Creates control (0600), sets, stats and last_error (0400) under @dir, each
 * handing @engine back to the Rust callbacks (rust/rust_entry.h). Returns 0
 * or -errno.
 */
int bp_debugfs_create_files(struct dentry *dir, void *engine);

/*
 * One control write of @len bytes at @ubuf (one batch), for @engine: what
 * the control file and the control device both run. CAP_SYS_ADMIN, at most
 * BP_MAX_WRITE bytes; serialised with the debugfs files' reads. Returns
 * @len or -errno.
 */
ssize_t bp_control_write_user(void *engine, const char __user *ubuf, size_t len);

/* rust/chardev.c: the control device, /dev/batchprobe. */

/*
 * Registers the misc device "batchprobe" (/dev/batchprobe, 0600): a write is
 * a control write for @engine, as the debugfs control file's, and works
 * where lockdown=integrity makes debugfs refuse writable files. Returns the
 * device, to hand to bp_chardev_unregister(), or an ERR_PTR.
 */
void *bp_chardev_register(void *engine);
void bp_chardev_unregister(void *dev);

/* rust/module.c: the module itself, and API clients' modules. */

/*
 * 0, or -EPERM (logged by the lockdown LSM) where lockdown forbids
 * kprobes, as it does kprobe_events' (lockdown=confidentiality).
 */
int bp_lockdown_kprobes(void);
/*
 * Takes a module reference that is never put: after ftrace refused to let
 * go of a direct ops, its trampolines (module text) must never be freed.
 */
void bp_pin_module(void);

/*
 * The exit trampoline's pin on the module (src/direct/exit.rs): drop it; queue
 * or cancel (waiting) the poll that drops it, which calls the Rust
 * bp_direct_exit_release() until that returns true.
 */
void bp_unpin_module(void);
void bp_exit_release_schedule(void);
void bp_exit_release_cancel(void);

/*
 * try_module_get() and module_put() of an API client's module (NULL: built-in
 * code, nothing to take), and its name ("kernel" for NULL): static inlines
 * and a macro.
 */
bool bp_try_module_get(struct module *mod);
bool bp_module_is_live(struct module *mod);
void bp_module_put(struct module *mod);
const char *bp_module_name(struct module *mod);

/*
 * The live module after `prev` (NULL: the first), batchprobe left out: its
 * text's start and size, and a reference on it (bp_module_put()); -ENOENT
 * past the last (MOD:GLOB and *:GLOB lines).
 */
int bp_module_next(struct module *prev, struct module **mod, unsigned long *start,
		   unsigned long *size);

/* The module notifier that retires a going client's sets (src/api.rs). */
int bp_module_notifier_register(void);
void bp_module_notifier_unregister(void);

/* The max_return_pool_kib module parameter, in bytes (src/retpool.rs). */
#define BP_RETURN_POOL_KIB_DEFAULT (256 * 1024)
unsigned long bp_max_return_pool_bytes(void);

/*
 * The max_set_probes module parameter (src/engine/registry.rs: MAX_SET_PROBES, 1 << 22,
 * is this default and the most it may be).
 */
#define BP_MAX_SET_PROBES 4194304
unsigned long bp_max_set_probes(void);

/* rust/clock.c: the phase timings' clock. */

/*
 * Monotonic nanoseconds from a path no probe can hit (the TSC where the
 * kernel trusts it, else ktime_get_ns()); bp_clock_init() decides which,
 * once, at module init.
 */
void bp_clock_init(void);
bool bp_clock_is_tsc(void);
u64 bp_clock_ns(void);
/*
 * The exit trampoline's clock for call durations (create --hist, API exit
 * sets): ktime_get_mono_fast_ns(), NMI-safe, notrace, with an lfence after
 * it so that no later load runs before the clock is read.
 */
u64 bp_clock_event_ns(void);
/* The same, and the CPU it runs on (preemption disabled by the caller). */
u64 bp_clock_event_ns_cpu(unsigned int *cpu);
/* The CPU the caller runs on (preemption disabled by the caller). notrace. */
unsigned int bp_this_cpu(void);
/* nr_cpu_ids: the CPUs' ids are below it. */
unsigned int bp_nr_cpu_ids(void);

/* rust/ftrace.c: ftrace and fprobe helpers. */

/*
 * Never called: where fprobe runs on fgraph, batchprobe keeps a return
 * fprobe on it so that fprobe's fgraph ops stays registered (src/fprobe.rs,
 * FgraphAnchor). Traceable, unlike the other helpers' callees.
 */
void bp_fgraph_anchor(void);

/*
 * The direct handlers' recursion guard: ftrace_test_recursion_trylock() and
 * _unlock(), static inlines. trylock returns the bit to pass to unlock, or
 * < 0 when this context already runs a tracer callback (the call is then
 * not counted); while held, preemption is disabled (notrace).
 */
int bp_direct_recursion_trylock(unsigned long ip);
void bp_direct_recursion_unlock(int bit);

/* Serialises updates of the direct backend's global index. */
void bp_direct_lock(void);
void bp_direct_unlock(void);
/*
 * Whether ftrace can trace the function at @ip: 0, or the -errno of
 * setting it as the only filter of a scratch ftrace_ops. On success
 * *@fentry is the address of its ftrace call site (past the endbr64 under
 * IBT), which ftrace then finds without a kallsyms lookup. Callers serialise.
 */
int bp_ftrace_check_ip(unsigned long ip, unsigned long *fentry);
/*
 * From the function's bytes at @ip, where its ftrace call site would be
 * (past an endbr64 under IBT), or 0: no instruction ftrace leaves at a
 * call site is there, so ftrace cannot trace it. A candidate only;
 * *@target: where a call or jmp there goes (else 0).
 */
unsigned long bp_ftrace_site_guess(unsigned long ip, unsigned long *target);
/*
 * Whether ftrace has a call site at every one of @sites: 0, or the -errno
 * of setting them all as the scratch ftrace_ops' filter (-EINVAL: not at
 * some). Callers serialise.
 */
int bp_ftrace_check_sites(unsigned long *sites, unsigned int cnt);
/* Frees the scratch ftrace_ops' filter (module unload). */
void bp_ftrace_scratch_free(void);
/*
 * How far into a function its ftrace call site can be: right after its
 * endbr64 under IBT (ENDBR_INSN_SIZE), else at +0. A kprobe deeper in is
 * never ftrace-based.
 */
unsigned int bp_fentry_max_offset(void);
/*
 * Whether kprobe_events refuses probes in notrace functions, as it does
 * unless the kernel is built with CONFIG_KPROBE_EVENTS_ON_NOTRACE (a debug
 * option): batchprobe refuses them where it does (src/probe/notrace.rs).
 */
bool bp_notrace_refused(void);
/*
 * The trampoline a registered direct @ops is on: what ftrace recorded in
 * register_ftrace_direct() and each modify_ftrace_direct() that succeeded.
 */
unsigned long bp_ftrace_direct_call(struct ftrace_ops *ops);

/* bp_fprobe_arg0() and bp_fprobe_pt_regs(): see rust/kcompat.h. */

/* rust/trampolines.c: the ftrace-direct trampolines. */

/*
 * Not C functions: only their addresses are used. count and record call
 * the Rust functions bp_direct_handle_count/_record(ret_ip, arg0, frame) of
 * src/direct/index.rs; exit and exit_args call
 * bp_direct_handle_exit_entry(ret_ip, arg0, frame) and
 * bp_direct_handle_exit_return(ret_ip, retval, token, caller, saved). All
 * four are declared in rust/rust_entry.h.
 */
void bp_direct_tramp_count(void);
void bp_direct_tramp_record(void);
void bp_direct_tramp_empty(void);
void bp_direct_tramp_exit(void);
/* Keeping the first 1 ... 6 argument registers for the exit handler. */
void bp_direct_tramp_exit_args1(void);
void bp_direct_tramp_exit_args2(void);
void bp_direct_tramp_exit_args3(void);
void bp_direct_tramp_exit_args4(void);
void bp_direct_tramp_exit_args5(void);
void bp_direct_tramp_exit_args6(void);

/* rust/exit_tasks.c: tasks inside the exit trampoline's bodies. */

/*
 * Tasks inside a body the exit trampoline called (rust/exit_tasks.c): the
 * handlers count in and out on per-CPU counters; an ftrace callback on
 * do_exit() counts the bodies an exiting task never returns from.
 * bp_exit_inside() is exact only once no task can enter (see there);
 * bp_exit_gone_count() is how many bodies tasks ended inside, since load.
 * The callback is registered by the first bp_exit_tasks_start() (-errno
 * where it cannot be: -EOPNOTSUPP without a reliable unwinder, -EBUSY with
 * function tracing off), unregistered by bp_exit_tasks_exit(), and looks at
 * stacks only between bp_exit_set_watch(true) and (false).
 */
void bp_exit_count_in(void);
void bp_exit_count_out(void);
long bp_exit_inside(void);
long bp_exit_gone_count(void);
void bp_exit_set_watch(bool on);
int bp_exit_tasks_start(void);
void bp_exit_tasks_exit(void);

/* rust/kallsyms.c: /proc/kallsyms for @SYM fetch arguments, kprobes/blacklist for p: lines; the end of core-kernel text. */

/* /proc/kallsyms, as the writer may read it, into *buf (vmalloc, at most @max bytes): its length, or -errno. */
long bp_kallsyms_read(void **buf, size_t max);
/* debugfs' kprobes/blacklist, as the writer may read it, into *buf (vmalloc, at most @max bytes): its length, or -errno. */
long bp_kprobe_blacklist_read(void **buf, size_t max);
/* Whether @addr is mapped executable (core-kernel text is; from the page after _etext's on, nothing is). */
bool bp_kernel_text_mapped(unsigned long addr);

/* rust/btf.c: the kernel's BTF. */

struct file;
/* @path opened for reading as the writer, from init's root (an ERR_PTR on failure). */
struct file *bp_open_from_init_root(const char *path);

/* The raw BTF of /sys/kernel/btf/NAME (vmlinux or a module's) into *buf (vmalloc): its size, or -errno. */
long bp_btf_read(const char *name, size_t len, void **buf);
void bp_vfree(void *p);

/* rust/wrappers.c: static inlines and macros as functions. */

/*
 * Formats @value as "%pK" into @buf (@len bytes, NUL included): a raw
 * value a probe recorded (maybe a kernel pointer) is shown as kptr_restrict
 * allows the reader: hashed at 0, raw at 1 for CAP_SYSLOG, zeros at 2.
 * Process context only. Returns the length written.
 */
int bp_format_kptr(char *buf, size_t len, unsigned long value);

/*
 * Formats "@kind_0x%p" into @buf (@len bytes, NUL included): the name
 * trace_kprobe_create() gives an unnamed kprobe event on the address @addr
 * (@kind 'p' or 'r'), the pointer hashed as %p hashes it in this boot (raw
 * with no_hash_pointers). Returns the length written.
 */
int bp_format_addr_event(char *buf, size_t len, char kind, unsigned long addr);

/* cond_resched() is a macro. */
void bp_cond_resched(void);

/*
 * fatal_signal_pending(current): fatal_signal_pending() is a static inline.
 * A long loop of a control write gives up with -EINTR when it says so.
 */
bool bp_fatal_signal_pending(void);

/* preempt_{disable,enable}_notrace() are macros; these are notrace. */
void bp_preempt_disable_notrace(void);
void bp_preempt_enable_notrace(void);

/* rcu_read_lock() and rcu_read_unlock() are static inlines. */
void bp_rcu_read_lock(void);
void bp_rcu_read_unlock(void);

/* alloc_ordered_workqueue() and flush_workqueue() are macros. */
struct workqueue_struct *bp_alloc_ordered_workqueue(const char *name);
void bp_flush_workqueue(struct workqueue_struct *wq);

/* msleep(); synchronize_rcu_tasks() (synchronize_rcu() without RCU-tasks). */
void bp_sleep_ms(unsigned int ms);
void bp_synchronize_rcu_tasks(void);

unsigned int bp_num_possible_cpus(void);

/* get_kretprobe() and get_kretprobe_retaddr() are static inlines. */
struct kretprobe *bp_get_kretprobe(struct kretprobe_instance *ri);
unsigned long bp_kretprobe_retaddr(struct kretprobe_instance *ri);
/* ri->data: the entry data of a kretprobe with a data_size. */
void *bp_kretprobe_data(struct kretprobe_instance *ri);

/*
 * rust/events.c: a trace event per probe (events/SYSTEM/NAME in tracefs),
 * laid out and printed as kprobe_events' own; see src/events/tracefs.rs.
 */
struct bp_event;

/* How a fetch argument's value prints (trace_probe.c's print_type_*()). */
enum bp_print {
	BP_PRINT_U,		/* %u, %Lu */
	BP_PRINT_S,		/* %d, %Ld */
	BP_PRINT_X,		/* 0x%x, 0x%Lx */
	BP_PRINT_CHAR,		/* '%c' */
	BP_PRINT_SYMBOL,	/* %pS */
	BP_PRINT_STRING,	/* "%s", or (fault) */
};

/*
 * One fetch argument's field: what format says of it (trace_define_field())
 * and how its value prints after the probe's own fields.
 */
struct bp_event_arg {
	const char *name;
	const char *type;	/* the C type format gives: "u32", "u8[4]" */
	u32 offset;		/* from the record's start */
	u32 elem;		/* bytes of one element */
	u32 count;		/* array elements; 0: one value */
	bool is_signed;
	u8 print;		/* enum bp_print */
};

/*
 * A record's own fields, before its arguments': an entry's (__probe_ip, as
 * kprobe and fprobe entry events), a return's (__probe_func,
 * __probe_ret_ip), a direct exit set's return (and duration, in ns).
 */
enum bp_head {
	BP_HEAD_ENTRY,
	BP_HEAD_RETURN,
	BP_HEAD_EXIT,
};

/*
 * A new event, not in tracefs yet (NULL: out of memory). @args, @print_fmt
 * (NULL: the probe's own fields only) are copied; @fixed: bytes of the
 * arguments' fixed fields.
 */
struct bp_event *bp_event_new(const char *system, const char *name, enum bp_head head,
			      const struct bp_event_arg *args, u32 nargs,
			      const char *print_fmt, u32 fixed);
/* Frees an event that is not in tracefs (NULL is ignored). */
void bp_event_free(struct bp_event *ev);
/*
 * Adds @nadd events to tracefs, all or none (returns the first error:
 * -EEXIST if tracefs has an event of one's system and name already, ours
 * or anyone's, the first such add's index then in @taken, which is left
 * alone otherwise), or
 * removes @nremove, freeing each and setting its slot to NULL; one in use
 * (enabled, open by perf, or referred to) stays in tracefs without records,
 * owned by rust/events.c and holding the module, until a later sync
 * removes it (queued when it is disabled, retried every second while it is
 * referred to; counted in @busy). In chunks, event_mutex dropped between
 * them. Sleeps; never from an event's reg().
 */
int bp_events_sync(struct bp_event **add, size_t nadd, struct bp_event **remove,
		   size_t nremove, size_t *busy, size_t *taken);
/* Whether an event of a retired set is still in tracefs. */
bool bp_events_orphans(void);
/*
 * At unload: removes every orphan, waiting (and saying in the log which)
 * while another event still refers to one; none is left then.
 */
void bp_events_exit(void);
/* Removes the orphans that can go now (the control file's flush). */
void bp_events_flush(void);
/*
 * What a probe's handler reads of its event before anything else, without
 * a call: how many take its records (tracefs instances that have it
 * enabled, perf events open on it); 0: no record is made, no register
 * gathered. The first member of struct bp_event.
 */
struct bp_event_head {
	atomic_t users;
};

/*
 * A record, to tracefs and perf: an entry (@ip: where the probe is) or a
 * return (to @ret_ip); @regs: the probe's registers, or NULL (perf then
 * takes the caller's, as for a tracepoint); @fetch: the probe's own fetch
 * arguments (src/events/program.rs; NULL: none), @fetch_regs: what they
 * read (an fprobe's partial registers on 7.3); @edata: what a return probe
 * kept at entry for its arguments, or NULL; @dsize: the bytes of strings
 * the arguments take now (FetchProgram::data_size()). Called after
 * struct bp_event_head said someone takes the records, from a probe's
 * handler: with preemption disabled.
 */
void bp_event_entry(struct bp_event *ev, unsigned long ip, struct pt_regs *regs,
		    const void *fetch, struct pt_regs *fetch_regs, size_t dsize);
void bp_event_return(struct bp_event *ev, unsigned long func, unsigned long ret_ip,
		     struct pt_regs *regs, const void *fetch, struct pt_regs *fetch_regs,
		     const void *edata, size_t dsize);
/* A direct exit set's return, which took @duration ns (perf: the caller's registers). */
void bp_event_exit(struct bp_event *ev, unsigned long func, unsigned long ret_ip, u64 duration,
		   const void *fetch, struct pt_regs *fetch_regs, const void *edata, size_t dsize);

/*
 * What a record's fetch arguments read (src/events/program.rs), as
 * kernel/trace/trace_kprobe.c's process_fetch_insn() reads it: the
 * probe's registers, the current task, memory through the nofault copies
 * (0: copied; else it faulted). Called from probe handlers: notrace.
 */
unsigned long bp_fetch_arg(struct pt_regs *regs, unsigned int n);
unsigned long bp_fetch_stack_nth(struct pt_regs *regs, unsigned int n);
unsigned long bp_fetch_comm(void);
unsigned long bp_fetch_current(void);
unsigned long bp_fetch_cpu_ptr(unsigned long addr);
long bp_fetch_read(void *dst, unsigned long addr, size_t len, bool user);
long bp_fetch_strlen(unsigned long addr, long max, bool user);
long bp_fetch_strncpy(char *dst, unsigned long addr, long max, bool user);
/* THREAD_SIZE, which bindgen cannot evaluate. */
unsigned long bp_thread_size(void);

/* Not ours: kernel functions that no header bindgen reads declares. */

/*
 * Exported (EXPORT_SYMBOL_GPL in kernel/rcu/update.c) but declared only in
 * the private kernel/rcu/rcu.h: expedite RCU grace periods while > 0 calls.
 */
void rcu_expedite_gp(void);
void rcu_unexpedite_gp(void);

#endif /* BATCHPROBE_HELPERS_H */
