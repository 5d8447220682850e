// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API's exports. The functions are Rust (src/api.rs,
 * #[no_mangle] extern "C"); include/batchprobe.h declares them, and the
 * exports live here because EXPORT_SYMBOL_GPL is a C macro. modpost puts
 * them in Module.symvers, against which clients build.
 */
#include <linux/export.h>
#include <linux/module.h>

#include <batchprobe.h>

/* Here, not in module!: 6.12 takes `author: ".."` and 7.3 only `authors: [..]`. */
MODULE_AUTHOR("batchprobe developers");
MODULE_VERSION(BATCHPROBE_VERSION);

EXPORT_SYMBOL_GPL(batchprobe_create);
EXPORT_SYMBOL_GPL(batchprobe_enable);
EXPORT_SYMBOL_GPL(batchprobe_disable);
EXPORT_SYMBOL_GPL(batchprobe_unregister);
EXPORT_SYMBOL_GPL(batchprobe_unregister_sync);
EXPORT_SYMBOL_GPL(batchprobe_put);
EXPORT_SYMBOL_GPL(batchprobe_flush);
EXPORT_SYMBOL_GPL(batchprobe_read_counts);
