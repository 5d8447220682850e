/* SPDX-License-Identifier: GPL-2.0 */
/* C helpers for what Rust cannot call directly; defined in rust/helpers.c. */
#ifndef BATCHPROBE_HELPERS_H
#define BATCHPROBE_HELPERS_H

#include <linux/types.h>

struct dentry;

/* ktime_get_ns() is a static inline. */
u64 bp_ktime_get_ns(void);

#endif /* BATCHPROBE_HELPERS_H */
