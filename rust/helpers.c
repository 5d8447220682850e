// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for batchprobe's Rust code: static inlines and macros wrapped in
 * real functions. Declared in helpers.h, which bindgen also reads.
 */
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "helpers.h"

u64 bp_ktime_get_ns(void)
{
	return ktime_get_ns();
}

void bp_rcu_read_lock(void)
{
	rcu_read_lock();
}

void bp_rcu_read_unlock(void)
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
