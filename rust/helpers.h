/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers for what Rust cannot call directly (static inlines, macros,
 * file_operations tables); defined in rust/helpers.c. bindgen reads this
 * header too, so Rust sees the same declarations.
 */
#ifndef BATCHPROBE_HELPERS_H
#define BATCHPROBE_HELPERS_H

#include <linux/types.h>

#include "kcompat.h"

struct dentry;
struct module;
struct kretprobe;
struct kretprobe_instance;
struct seq_file;
struct workqueue_struct;

/* The largest single write the control file accepts. */
#define BP_MAX_WRITE (1024 * 1024)

/* What a read-only debugfs file shows; passed back to bp_rust_show(). */
enum bp_show {
	BP_SHOW_SETS = 0,
	BP_SHOW_STATS = 1,
	BP_SHOW_LAST_ERROR = 2,
};

/*
 * Formats @value as "%pK" into @buf (@len bytes, NUL included): a raw
 * value a probe recorded (maybe a kernel pointer) is shown as kptr_restrict
 * allows the reader: hashed at 0, raw at 1 for CAP_SYSLOG, zeros at 2.
 * Process context only. Returns the length written.
 */
int bp_format_kptr(char *buf, size_t len, unsigned long value);

/*
 * Takes a module reference that is never put: after ftrace refused to let
 * go of a direct ops, its trampolines (module text) must never be freed.
 */
void bp_pin_module(void);

/*
 * try_module_get() and module_put() of an API client's module (NULL: built-in
 * code, nothing to take), and its name ("kernel" for NULL): static inlines
 * and a macro.
 */
bool bp_try_module_get(struct module *mod);
bool bp_module_is_live(struct module *mod);
void bp_module_put(struct module *mod);
const char *bp_module_name(struct module *mod);

/* The module notifier that retires a going client's sets (src/api.rs). */
int bp_module_notifier_register(void);
void bp_module_notifier_unregister(void);

/*
 * Never called: where fprobe runs on fgraph, batchprobe keeps a return
 * fprobe on it so that fprobe's fgraph ops stays registered (src/fprobe.rs,
 * FgraphAnchor). Traceable, unlike the other helpers' callees.
 */
void bp_fgraph_anchor(void);

/* cond_resched() is a macro. */
void bp_cond_resched(void);

/*
 * Monotonic nanoseconds from a path no probe can hit (the TSC where the
 * kernel trusts it, else ktime_get_ns()); bp_clock_init() decides which,
 * once, at module init.
 */
void bp_clock_init(void);
bool bp_clock_is_tsc(void);
u64 bp_clock_ns(void);

/* preempt_{disable,enable}_notrace() are macros; these are notrace. */
void bp_preempt_disable_notrace(void);
void bp_preempt_enable_notrace(void);

/* rcu_read_lock() and rcu_read_unlock() are static inlines. */
void bp_rcu_read_lock(void);
void bp_rcu_read_unlock(void);

/* alloc_ordered_workqueue() and flush_workqueue() are macros. */
struct workqueue_struct *bp_alloc_ordered_workqueue(const char *name);
void bp_flush_workqueue(struct workqueue_struct *wq);

/*
 * Exported (EXPORT_SYMBOL_GPL in kernel/rcu/update.c) but declared only in
 * the private kernel/rcu/rcu.h: expedite RCU grace periods while > 0 calls.
 */
void rcu_expedite_gp(void);
void rcu_unexpedite_gp(void);

/*
 * The direct handlers' recursion guard: ftrace_test_recursion_trylock() and
 * _unlock(), static inlines. trylock returns the bit to pass to unlock, or
 * < 0 when this context already runs a tracer callback (the call is then
 * not counted); while held, preemption is disabled (notrace).
 */
int bp_direct_recursion_trylock(unsigned long ip);
void bp_direct_recursion_unlock(int bit);

/*
 * The ftrace-direct trampolines (helpers.c). Not C functions: only their
 * addresses are used. count and record call the Rust functions
 * bp_direct_handle_count/_record(ret_ip, arg0) of src/direct.rs.
 */
void bp_direct_tramp_count(void);
void bp_direct_tramp_record(void);
void bp_direct_tramp_empty(void);
void bp_direct_tramp_exit(void);

/*
 * The exit trampoline's pin on the module (src/direct.rs): drop it; queue
 * or cancel (waiting) the poll that drops it, which calls the Rust
 * bp_direct_exit_release() until that returns true.
 */
void bp_unpin_module(void);
void bp_exit_release_schedule(void);
void bp_exit_release_cancel(void);

/*
 * Tasks inside a body the exit trampoline called (rust/exit_tasks.c): the
 * handlers count in and out on per-CPU counters; a kprobe on do_exit()
 * counts the bodies an exiting task never returns from. bp_exit_inside()
 * is exact only once no task can enter (see there); bp_exit_gone_count()
 * is how many bodies tasks ended inside, since load. The do_exit() kprobe
 * looks at stacks only between bp_exit_set_watch(true) and (false).
 */
void bp_exit_count_in(void);
void bp_exit_count_out(void);
long bp_exit_inside(void);
long bp_exit_gone_count(void);
void bp_exit_set_watch(bool on);
int bp_exit_tasks_init(void);
void bp_exit_tasks_exit(void);

/* The raw vmlinux BTF into *buf (vmalloc): its size, or -errno. */
long bp_btf_vmlinux_read(void **buf);
void bp_vfree(void *p);

/* msleep(); synchronize_rcu_tasks() (synchronize_rcu() without RCU-tasks). */
void bp_sleep_ms(unsigned int ms);
void bp_synchronize_rcu_tasks(void);

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
unsigned int bp_num_possible_cpus(void);
/* The max_return_pool_kib module parameter, in bytes (src/retpool.rs). */
#define BP_RETURN_POOL_KIB_DEFAULT (256 * 1024)
unsigned long bp_max_return_pool_bytes(void);
/* Frees the scratch ftrace_ops' filter (module unload). */
void bp_ftrace_scratch_free(void);

/* get_kretprobe() is a static inline. */
struct kretprobe *bp_get_kretprobe(struct kretprobe_instance *ri);

/*
 * Creates control (0600), sets, stats and last_error (0400) under @dir, each
 * handing @engine back to the Rust callbacks below. Returns 0 or -errno.
 */
int bp_debugfs_create_files(struct dentry *dir, void *engine);

/* Implemented in Rust (src/control.rs): one write of the control file. */
ssize_t bp_rust_control_write(void *engine, const char *buf, size_t len);
/* Implemented in Rust (src/control.rs): fills a read-only file. */
int bp_rust_show(void *engine, unsigned int what, struct seq_file *m);

#endif /* BATCHPROBE_HELPERS_H */
