// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for batchprobe's Rust code: static inlines and macros wrapped in
 * real functions. Declared in helpers.h, which bindgen also reads.
 */
#include <linux/timekeeping.h>

#include "helpers.h"

u64 bp_ktime_get_ns(void)
{
	return ktime_get_ns();
}
