// SPDX-License-Identifier: GPL-2.0
/*
 * Static inlines and macros of the kernel, wrapped in real functions for
 * batchprobe's Rust code.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "helpers.h"

void bp_cond_resched(void)
{
	cond_resched();
}

bool bp_fatal_signal_pending(void)
{
	return fatal_signal_pending(current);
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

void bp_sleep_ms(unsigned int ms)
{
	msleep(ms);
}

/* synchronize_rcu() where the kernel has no RCU-tasks (a macro there). */
void bp_synchronize_rcu_tasks(void)
{
	synchronize_rcu_tasks();
}

struct kretprobe *bp_get_kretprobe(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
NOKPROBE_SYMBOL(bp_get_kretprobe);

unsigned long bp_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)get_kretprobe_retaddr(ri);
}
NOKPROBE_SYMBOL(bp_kretprobe_retaddr);

void *bp_kretprobe_data(struct kretprobe_instance *ri)
{
	return ri->data;
}
NOKPROBE_SYMBOL(bp_kretprobe_data);

int bp_format_kptr(char *buf, size_t len, unsigned long value)
{
	return scnprintf(buf, len, "%pK", (void *)value);
}

int bp_format_addr_event(char *buf, size_t len, char kind, unsigned long addr)
{
	return scnprintf(buf, len, "%c_0x%p", kind, (void *)addr);
}

unsigned int bp_num_possible_cpus(void)
{
	return num_possible_cpus();
}
