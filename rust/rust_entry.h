/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What batchprobe's C code calls on the Rust side: the #[no_mangle]
 * extern "C" functions of src/ that rust/ C and asm call into. The other
 * direction, the C helpers that Rust calls, is rust/helpers.h.
 *
 * bindgen never reads this header (rust/bindings_input.h does not include
 * it): Rust defines these functions, it must not also import them. Each
 * declaration here has to match its Rust definition by hand.
 *
 * The in-kernel API's functions (src/api.rs) are Rust too; other modules
 * call them, and include/batchprobe.h declares them.
 */
#ifndef BATCHPROBE_RUST_ENTRY_H
#define BATCHPROBE_RUST_ENTRY_H

#include <linux/types.h>

struct module;
struct pt_regs;
struct seq_file;

/* src/control.rs: the debugfs files' callbacks (rust/debugfs.c). */

/* The largest single write the control file accepts. */
#define BP_MAX_WRITE (1024 * 1024)

/* Implemented in Rust (src/control.rs): one write of the control file. */
ssize_t bp_rust_control_write(void *engine, const char *buf, size_t len);
/* Implemented in Rust (src/control.rs): fills a read-only file. */
int bp_rust_show(void *engine, unsigned int what, struct seq_file *m);

/*
 * Told by the module notifier (rust/module.c): src/engine.rs, a module
 * coming; src/api.rs, a module going away.
 */
void bp_rust_module_coming(struct module *mod);
void bp_rust_module_going(struct module *mod);

/*
 * src/events/program.rs: a record's fetch arguments (rust/events.c), from
 * the probe's registers (and what a return probe kept at entry, @edata):
 * the record filled (@rec is @len bytes, the probe's own fields are
 * @head, @tail more follow the arguments' fixed fields, before their
 * strings). The strings' bytes were measured by the Rust caller of
 * bp_event_entry()/_return()/_exit().
 */
void bp_rust_fetch_store(const void *fetch, struct pt_regs *regs, const void *edata,
			 void *rec, u32 head, u32 tail, u32 len);

/*
 * src/direct/index.rs: the handlers the ftrace-direct trampolines call
 * (rust/trampolines.c, from asm).
 */
void bp_direct_handle_count(unsigned long ret_ip, unsigned long arg0,
			    const unsigned long *frame);
void bp_direct_handle_record(unsigned long ret_ip, unsigned long arg0,
			     const unsigned long *frame);
u64 bp_direct_handle_exit_entry(unsigned long ret_ip, unsigned long arg0,
				const unsigned long *frame);
void bp_direct_handle_exit_return(unsigned long ret_ip, unsigned long retval,
				  u64 token, const unsigned long *caller,
				  const unsigned long *saved);

/*
 * src/direct/exit.rs: one round of the exit trampoline's release poll
 * (rust/module.c); true once it is done.
 */
bool bp_direct_exit_release(void);

#endif /* BATCHPROBE_RUST_ENTRY_H */
