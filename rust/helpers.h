/* SPDX-License-Identifier: GPL-2.0 */
/* C helpers for what Rust cannot call directly; defined in rust/helpers.c. */
#ifndef BATCHPROBE_HELPERS_H
#define BATCHPROBE_HELPERS_H

#include <linux/types.h>

struct dentry;

/* ktime_get_ns() is a static inline. */
u64 bp_ktime_get_ns(void);



struct workqueue_struct;

/* rcu_read_lock() and rcu_read_unlock() are static inlines. */
void bp_rcu_read_lock(void);
void bp_rcu_read_unlock(void);

/* alloc_ordered_workqueue() and flush_workqueue() are macros. */
struct workqueue_struct *bp_alloc_ordered_workqueue(const char *name);
void bp_flush_workqueue(struct workqueue_struct *wq);
#endif /* BATCHPROBE_HELPERS_H */
