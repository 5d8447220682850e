// SPDX-License-Identifier: GPL-2.0
/*
 * The module itself, for batchprobe's Rust code: its pin on itself and the
 * exit trampoline's release poll, API clients' module references, the
 * module notifier, and the module parameters.
 */
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/pgtable.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/workqueue.h>

#include "helpers.h"
#include "rust_entry.h"

/*
 * 0, or -EPERM where the lockdown LSM forbids kprobes (lockdown=
 * confidentiality), logging its own line as for kprobe_events' and
 * fprobe events' registrations (__register_trace_kprobe(),
 * __register_trace_fprobe()). 0 without CONFIG_SECURITY.
 */
int bp_lockdown_kprobes(void)
{
	return security_locked_down(LOCKDOWN_KPROBES);
}

void bp_pin_module(void)
{
	__module_get(THIS_MODULE);
}

void bp_unpin_module(void)
{
	module_put(THIS_MODULE);
}

/*
 * The exit trampoline's release poll (src/direct/exit.rs): runs the Rust
 * bp_direct_exit_release() until it is done, after 100 ms, then backing
 * off to every 5 s (a task can stay inside for good).
 */
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
 * Modules for MOD:GLOB and *:GLOB lines (src/kallsyms.rs' ModuleText): each
 * live one's text (the MOD_TEXT memory: its functions, the exit function
 * among them), with a reference taken that keeps it loaded while the caller
 * walks its symbols and registers its probes (bp_module_put() it).
 *
 * Modules get no lookup by name (find_module() is not exported), but the
 * list of modules may be walked under RCU, as find_module_all() walks it,
 * from any entry: this module's own. The walk meets the list's head, the
 * kernel's static `modules`, once: it is in the kernel image, below
 * MODULES_VADDR, where no module's struct module is.
 */
#ifndef CONFIG_X86_64
#error "the list head test below knows x86-64's layout: the kernel image below MODULES_VADDR"
#endif

/* Whether `pos` is a module's list entry, not the list's head (see above). */
static bool bp_module_entry(const struct list_head *pos)
{
	return (unsigned long)pos >= MODULES_VADDR && (unsigned long)pos < MODULES_END;
}

/*
 * The live module after `prev` (NULL: the first) on the list of modules:
 * pinned, with its text (see above); -ENOENT past the last. The walk goes round from this module's own entry
 * (which it never gives, nor the list's head) back to it; `prev`, pinned by
 * the caller, stays on the list, so the walk goes on from it under RCU (but
 * for a forced unload, rmmod -f, which ignores references and taints).
 */
int bp_module_next(struct module *prev, struct module **mod, unsigned long *start,
		   unsigned long *size)
{
	struct list_head *pos = prev ? &prev->list : &THIS_MODULE->list;
	int err = -ENOENT;

	rcu_read_lock();
	for (pos = rcu_dereference(list_next_rcu(pos)); pos != &THIS_MODULE->list;
	     pos = rcu_dereference(list_next_rcu(pos))) {
		struct module *m = list_entry(pos, struct module, list);

		if (!bp_module_entry(pos) || m->state != MODULE_STATE_LIVE ||
		    !try_module_get(m))
			continue;
		*mod = m;
		*start = (unsigned long)m->mem[MOD_TEXT].base;
		*size = m->mem[MOD_TEXT].size;
		err = 0;
		break;
	}
	rcu_read_unlock();
	return err;
}

/*
 * A module coming (formed, its ftrace call sites made, its init not run
 * yet) is told to src/engine.rs, which registers the MOD:SYM probes that
 * wait for it (src/probe/modular.rs), as trace_kprobe_module_callback()
 * registers kprobe_events' on MODULE_STATE_COMING.
 *
 * A module going away (its init failed after it created sets, or a forced
 * unload) is told to src/api.rs, which retires its sets while its text is
 * still there. A normal unload never gets here with sets: each holds a
 * reference on its client module. This runs for every module that goes on
 * the system; src/api.rs answers "owns no set" without the registry lock.
 */
static int bp_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	if (action == MODULE_STATE_COMING)
		bp_rust_module_coming(data);
	else if (action == MODULE_STATE_GOING)
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

/*
 * The most probes one set may hold: see MAX_SET_PROBES in src/engine/registry.rs
 * and the README. Root may lower it at any time (a higher value counts as
 * the default, which is also the most); each create reads it once.
 */
static unsigned int max_set_probes = BP_MAX_SET_PROBES;
module_param(max_set_probes, uint, 0644);
MODULE_PARM_DESC(max_set_probes,
		 "most probes one set may hold (default and most: 4194304)");

unsigned long bp_max_set_probes(void)
{
	return min_t(unsigned long, READ_ONCE(max_set_probes), BP_MAX_SET_PROBES);
}
