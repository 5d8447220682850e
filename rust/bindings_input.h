/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C side that batchprobe's Rust code sees: bindgen reads this header
 * (see Kbuild) with the kernel's own C flags. Kernel headers for the APIs we
 * call, plus the declarations of our C helpers (rust/helpers.h, defined in
 * rust/*.c) for what is a static inline or a macro in C. Never the Rust
 * functions that C calls (rust/rust_entry.h): Rust defines those.
 */
#ifndef BATCHPROBE_BINDINGS_INPUT_H
#define BATCHPROBE_BINDINGS_INPUT_H

#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/timekeeping.h>

#include "helpers.h"
#include "../include/batchprobe.h"

#endif /* BATCHPROBE_BINDINGS_INPUT_H */
