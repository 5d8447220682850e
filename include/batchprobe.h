/* SPDX-License-Identifier: GPL-2.0 */
/**
 * DOC: batchprobe in-kernel API
 *
 * Other kernel modules create, arm and retire sets of kprobes, kretprobes and
 * ftrace-direct calls through these functions, with their own handler. A set
 * is made by the same engine as a `create` written to batchprobe's debugfs
 * control file: one registration batch, O(1) grace periods to retire (one
 * per probe kind, plus ftrace's two RCU-tasks waits for direct calls), the
 * same teardown on batchprobe's own workqueue. API sets show in the debugfs
 * `sets` and `stats` files as "OWNER.NAME", OWNER being the client module.
 *
 * Build a client against batchprobe's Module.symvers (KBUILD_EXTRA_SYMBOLS);
 * modpost then records "depends: batchprobe" and the module loader loads the
 * two in order and refuses to unload batchprobe while the client is loaded.
 */

/**
 * DOC: Contexts
 *
 * Every function here may sleep: call them from process context, with no
 * spinlock held, never from a handler. batchprobe_read_counts() does not
 * sleep (it takes no lock and does not allocate) and may also be called
 * from atomic context, though not from a handler or NMI.
 *
 * A handler runs in the context of the probed code:
 *  - kprobe: from the int3 trap (or its optimized jump), preemption
 *    disabled, interrupts as the probed code had them; NMI context is
 *    possible when the probed function runs in NMI.
 *  - kretprobe: from the function's return trampoline, preemption disabled,
 *    NMI possible as above.
 *  - direct: called from the traced function's fentry site through
 *    batchprobe's trampoline, under ftrace's recursion lock (preemption
 *    disabled, notrace), in any context at all: NMI, the scheduler, RCU's
 *    own functions. A call made while the same context is already inside a
 *    tracer callback is not delivered; it counts as a miss.
 *  - direct_exit, at entry: as direct (hit->flags without
 *    BATCHPROBE_HIT_RETURN). At return: called from batchprobe's exit
 *    trampoline once the traced function's body has returned, before its
 *    caller resumes, in the same context as the call (the same task, and
 *    the same CPU unless the body slept), under ftrace's recursion lock as
 *    at entry (hit->flags has BATCHPROBE_HIT_RETURN). The return is
 *    delivered only for a call whose entry was delivered by the same set,
 *    and only while the set is enabled: a task inside the body when the set
 *    is disabled or retired returns without a call, and a task that ends
 *    inside (do_exit()) never returns.
 *
 * So a handler must not sleep, take sleeping locks, allocate with anything
 * but GFP_ATOMIC (better: not at all), or call batchprobe's API. Mark it
 * notrace and NOKPROBE_SYMBOL(): a direct handler should call only notrace
 * code (a traced function it calls is not re-entered, the recursion lock
 * refuses it, but that call is lost). It must not modify *regs. Handlers
 * of one set may run on many CPUs at once. A handler is called only while
 * its set is enabled.
 */

/**
 * DOC: Lifetimes
 *
 * batchprobe_create() takes a reference on desc->owner (the client module)
 * that it drops when the set's teardown has finished, right after the
 * completion callback returns. A client module can therefore not be
 * unloaded while any of its sets exists: `rmmod` is refused ("in use",
 * EWOULDBLOCK from delete_module()), and its module_exit() is not called.
 * Retire the sets first (batchprobe_unregister()), from wherever the
 * client decides it is done (a debugfs or sysfs file of its own, a work
 * item); once every teardown has completed and batchprobe_flush() (or
 * batchprobe_unregister_sync()) has returned, the reference is gone and
 * the client unloads. A client unloading with a retire still pending is
 * therefore refused, never torn down under its handler's feet. If a
 * client's module_init() fails after it created sets (or a forced unload),
 * batchprobe retires them, and waits for their teardown and callbacks,
 * from the module notifier, before the module's memory is freed; still,
 * retire them on your init's error path.
 *
 * When the completion callback runs, no handler of the set runs or will
 * run again: the handler, its context and anything the handler reads may
 * be freed from then on (or from when batchprobe_unregister_sync()
 * returns). The callback runs on batchprobe's completion workqueue, in
 * process context; it may call batchprobe_create(), _enable(), _disable(),
 * _unregister() and _put(), but not batchprobe_flush() or
 * batchprobe_unregister_sync(), which wait for that very workqueue. The
 * handle stays valid until batchprobe_put().
 *
 * Should ftrace ever refuse to detach a set's direct calls (it logs why),
 * their handler could still be called: batchprobe then keeps the client's
 * module reference for good and calls no completion callback.
 *
 * A client that forgets to retire a set stays loaded (its module cannot be
 * unloaded, nor, through the dependency, batchprobe). An administrator can
 * retire such a set through debugfs: `echo "unregister OWNER.NAME" >
 * /sys/kernel/debug/batchprobe/control`; the module reference is dropped
 * when that teardown completes (no completion callback is called then).
 *
 * A handle belongs to the module named in desc->owner: when that module
 * goes away (it unloads, or its init fails) still holding the handle, its
 * sets are retired if they are not, and batchprobe puts the handle itself
 * (it logs that it did); the handle must not outlive the module in another
 * module's hands.
 */

/**
 * DOC: Failure
 *
 * Batches are all or nothing: when batchprobe_create() fails, no probe of
 * the batch stays registered, no module reference is kept, and the error
 * (naming the target) is logged and shown in debugfs `last_error`.
 * Every function returns a negative errno (or an ERR_PTR) and validates its
 * arguments: NULL pointers, a zero or too large count, an unknown kind,
 * flags or field, names that are too long or not [A-Za-z_][A-Za-z0-9_]*;
 * what batchprobe_create() refuses is logged and shown in last_error too.
 */
#ifndef _BATCHPROBE_H
#define _BATCHPROBE_H

#include <linux/types.h>

struct module;
struct pt_regs;
struct batchprobe_set;

/**
 * enum batchprobe_kind - What a target gets.
 * @BATCHPROBE_KPROBE: a kprobe at symbol+offset
 * @BATCHPROBE_KRETPROBE: a kretprobe: the function's returns
 * @BATCHPROBE_DIRECT: an ftrace-direct call at its entry
 * @BATCHPROBE_DIRECT_EXIT: an ftrace-direct call at its entry and at its
 *	return (batchprobe's exit trampoline, as BPF's fexit): the handler
 *	gets the arguments at entry, the return value and the call's duration
 *	at return. Only functions whose arguments all travel in registers, by
 *	their BTF prototype, that return (not do_exit() and the like): others
 *	fail the set with -EOPNOTSUPP. A set's direct targets are all
 *	BATCHPROBE_DIRECT or all BATCHPROBE_DIRECT_EXIT (-EINVAL otherwise).
 *	Since batchprobe 2026-12-05.
 */
enum batchprobe_kind {
	BATCHPROBE_KPROBE = 1,
	BATCHPROBE_KRETPROBE = 2,
	BATCHPROBE_DIRECT = 3,
	BATCHPROBE_DIRECT_EXIT = 4,
};

/*
 * The module's version, as MODULE_VERSION gives it (modinfo,
 * /sys/module/batchprobe/version); the batchprobe command's is the same.
 */
#define BATCHPROBE_VERSION		"0.1.0"

/* Most targets in one set (-E2BIG beyond). */
#define BATCHPROBE_MAX_TARGETS		65536
/* Longest set name, without the NUL (-ENAMETOOLONG beyond). */
#define BATCHPROBE_MAX_NAME		48
/* Longest symbol, without the NUL (kallsyms' KSYM_NAME_LEN - 1). */
#define BATCHPROBE_MAX_SYMBOL		511
/* Most kretprobe instances (maxactive) for one target. */
#define BATCHPROBE_MAX_ACTIVE		4096

/**
 * struct batchprobe_target - One probe target: exactly one of @symbol and
 * @addr names it.
 * @symbol: a core-kernel text symbol, NUL-terminated; or NULL to use @addr.
 * @addr: an address inside core-kernel text (kprobe), or the start of a
 *        function (kretprobe, direct); only when @symbol is NULL.
 * @offset: kprobe by @symbol only: bytes into the symbol (must stay inside
 *          it); 0 for every other kind and for @addr targets.
 * @kind: one of enum batchprobe_kind.
 * @maxactive: kretprobe only: instances to preallocate (0: the kernel's
 *             default, at most BATCHPROBE_MAX_ACTIVE); 0 for other kinds.
 */
struct batchprobe_target {
	const char *symbol;
	unsigned long addr;
	unsigned int offset;
	enum batchprobe_kind kind;
	unsigned int maxactive;
};

/* batchprobe_hit.flags: a direct_exit target's return, not its entry. */
#define BATCHPROBE_HIT_RETURN		(1U << 0)

/**
 * struct batchprobe_hit - What a handler is told about one hit.
 * @kind: the target's kind.
 * @ip: kprobe and kretprobe: the address the kernel put the probe at (for
 *      a function's entry under IBT, past its endbr64); direct and
 *      direct_exit: the function's address.
 * @regs: kprobe: the registers at the probe; kretprobe: the registers at
 *        the return (regs_return_value() is the return value); NULL for
 *        direct calls. Read only.
 * @args: direct, and direct_exit at entry: the first six integer arguments
 *        (rdi, rsi, rdx, rcx, r8, r9 on x86-64) as the function received
 *        them; 0 for other kinds and at a return.
 * @flags: BATCHPROBE_HIT_* bits (direct_exit only; 0 otherwise).
 * @retval: direct_exit at return: the return value (rax; for a function
 *          returning int, only its low 32 bits are the value); else 0.
 * @duration_ns: direct_exit at return: nanoseconds (CLOCK_MONOTONIC, as
 *               bpf_ktime_get_ns()) from the clock read at entry, just
 *               before the entry's delivery (so the entry handler's own
 *               time is in it), to the return's; the body's time, sleeps
 *               included; else 0.
 *
 * @flags, @retval and @duration_ns are new (2026-12-05), after the fields
 * older clients read: a client built against an older header never asks
 * for direct_exit targets and reads only what it knows.
 */
struct batchprobe_hit {
	enum batchprobe_kind kind;
	unsigned long ip;
	struct pt_regs *regs;
	unsigned long args[6];
	unsigned int flags;
	unsigned long retval;
	u64 duration_ns;
};

/**
 * typedef batchprobe_handler_t - A set's handler.
 * @ctx: batchprobe_set_desc.ctx.
 * @index: the target's index in batchprobe_set_desc.targets.
 * @hit: the hit.
 *
 * See "Contexts" above.
 */
typedef void (*batchprobe_handler_t)(void *ctx, unsigned int index,
				     const struct batchprobe_hit *hit);

/* batchprobe_set_desc.flags */
/*
 * Kprobes at an offset > 0 are never optimized: no kprobe-optimizer pass,
 * and so no RCU-tasks grace period, to arm, disarm or retire them, for one
 * more trap per hit.
 */
#define BATCHPROBE_F_NOOPT		(1U << 0)
#define BATCHPROBE_F_ALL		BATCHPROBE_F_NOOPT

/**
 * struct batchprobe_set_desc - What to create.
 * @owner: THIS_MODULE of the caller (not NULL: only modules can call this
 *         API, and the owner's reference is what keeps @handler loaded).
 * @name: the set's name, [A-Za-z_][A-Za-z0-9_]*, at most
 *        BATCHPROBE_MAX_NAME bytes; unique per owner among live sets.
 * @targets: @count targets; batchprobe copies what it needs, so the array
 *           and its strings may be freed when batchprobe_create() returns.
 * @count: 1 to BATCHPROBE_MAX_TARGETS.
 * @handler: called on every hit while the set is enabled.
 * @ctx: passed to @handler; batchprobe never dereferences it.
 * @flags: BATCHPROBE_F_* bits.
 */
struct batchprobe_set_desc {
	struct module *owner;
	const char *name;
	const struct batchprobe_target *targets;
	unsigned int count;
	batchprobe_handler_t handler;
	void *ctx;
	unsigned int flags;
};

/**
 * struct batchprobe_counts - Per-target counts: see batchprobe_read_counts().
 * @hits: handler calls (while enabled)
 * @missed: hits the kernel could not deliver: kprobe recursion, no free
 *          kretprobe instance, direct call refused by ftrace's recursion
 *          lock
 */
struct batchprobe_counts {
	u64 hits;
	u64 missed;
};

/**
 * batchprobe_create() - Registers every target, disarmed, as one batch.
 * @desc: what to create.
 *
 * One registration call each, no grace period; the direct calls are
 * attached in one filter update and one text-patching pass. The set starts
 * disabled: call batchprobe_enable() to arm it. The caller owns one
 * reference to the set: drop it with batchprobe_put().
 *
 * Context: Sleeps.
 * Return: The set, or an ERR_PTR:
 * -EINVAL (bad argument: NULL desc/targets/handler/name/owner, bad kind,
 * flags, offset or maxactive, both or neither of symbol and addr; or the
 * kernel's: not probe-able or not ftrace-able text), -E2BIG (count),
 * -ENAMETOOLONG (name or symbol), -EEXIST (the owner has a live set of
 * that name), -ENOSPC (too many live sets, more targets than a set may
 * hold (max_set_probes) or than all sets may hold together, or the
 * kretprobes' instances or their pools' memory past a set's cap: see the
 * README's limits), -ENODEV (owner is unloading), -EINTR (the calling
 * task was killed while the targets were registered: nothing is left),
 * -ENOENT (unknown symbol, or an address in no core-kernel symbol), -EBUSY
 * (a direct target is traced already: by another set, by another tracer's
 * direct call or IPMODIFY ftrace ops, or twice in this array), or what the
 * kernel's register_kprobe()/register_ftrace_direct() returned.
 */
struct batchprobe_set *batchprobe_create(const struct batchprobe_set_desc *desc);

/**
 * batchprobe_enable() - Arms every probe (back to back), then lets hits
 * reach the handler.
 * @set: the set.
 *
 * All or nothing.
 *
 * Context: Sleeps.
 * Return: 0 (also if already enabled), -EINVAL (NULL set), -EBUSY
 * (retiring), -ENOENT (retired), -EINTR (the calling task was killed
 * while its kprobes were armed: none stays armed), or the kernel's errno.
 */
int batchprobe_enable(struct batchprobe_set *set);

/**
 * batchprobe_disable() - Stops delivering hits at once, then disarms the
 * probes.
 * @set: the set.
 *
 * Stopping is O(1): the handler is not called after this returns, except
 * by calls already running. The probes are disarmed on batchprobe's
 * workqueue.
 *
 * Context: Sleeps.
 * Return: 0 (also if not enabled), -EINVAL, -EBUSY, -ENOENT as for
 * batchprobe_enable().
 */
int batchprobe_disable(struct batchprobe_set *set);

/**
 * batchprobe_unregister() - Retires the set asynchronously.
 * @set: the set.
 * @done: called with @arg once the teardown has completed, or NULL.
 * @arg: passed to @done.
 *
 * Hits stop at once, the teardown (one unregister batch per kind) is
 * queued on batchprobe's workqueue. When it has completed, @done(@arg) is
 * called (if @done is not NULL) from that workqueue, in process context;
 * then the owner's module reference is dropped.
 *
 * Context: Sleeps (briefly: it does not wait for the teardown).
 * Return: 0, -EINVAL (NULL set), -EALREADY (already retiring), or -ENOENT
 * (already retired).
 */
int batchprobe_unregister(struct batchprobe_set *set,
			  void (*done)(void *arg), void *arg);

/**
 * batchprobe_unregister_sync() - batchprobe_unregister() without a
 * callback, then waits for the teardown.
 * @set: the set.
 *
 * Waits for the teardown (and every completion queued before it) to
 * complete; if the set was retiring already, waits all the same and
 * returns -EALREADY.
 *
 * Context: Sleeps.
 * Return: the same as batchprobe_unregister().
 */
int batchprobe_unregister_sync(struct batchprobe_set *set);

/**
 * batchprobe_put() - Drops the caller's reference to @set.
 * @set: the set; NULL and ERR_PTR values are ignored.
 *
 * The set is not retired by this (see "Lifetimes").
 *
 * Context: Sleeps.
 */
void batchprobe_put(struct batchprobe_set *set);

/**
 * batchprobe_flush() - Waits for what is queued, by any caller.
 *
 * Waits until every teardown and disarm queued before the call, by any
 * caller, and then every completion callback (and module reference drop)
 * they queued, has completed.
 *
 * Context: Sleeps; not from a completion callback.
 */
void batchprobe_flush(void);

/**
 * batchprobe_read_counts() - Reads a set's per-target counts.
 * @set: the set.
 * @counts: filled: @counts[i] for target i.
 * @n: how many targets, the first ones of @set (at most the set's count).
 *
 * Valid in every state; after the teardown the final counts.
 *
 * Context: Does not sleep; not from a handler or NMI (it is O(count)).
 * Return: the number filled, or -EINVAL (NULL set or counts).
 */
int batchprobe_read_counts(struct batchprobe_set *set,
			   struct batchprobe_counts *counts, unsigned int n);

#endif /* _BATCHPROBE_H */
