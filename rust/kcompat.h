/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels batchprobe builds for, on the C side:
 * the one place for it (Rust's is src/kcompat.rs). The BP_* feature macros
 * come from scripts/kcompat.mk, which reads the tree being built against.
 * bindgen reads the declarations here too (through helpers.h).
 */
#ifndef BATCHPROBE_KCOMPAT_H
#define BATCHPROBE_KCOMPAT_H

#include <linux/types.h>

struct pt_regs;
struct ftrace_regs;

/*
 * What an fprobe handler gets for the traced call's registers: a full
 * struct pt_regs through 6.13, the opaque struct ftrace_regs (read through
 * accessors only) once fprobe runs on fgraph.
 */
#ifdef BP_FPROBE_FGRAPH
typedef struct ftrace_regs bp_fprobe_regs;
#else
typedef struct pt_regs bp_fprobe_regs;
#endif

/* The traced call's first argument, from an fprobe handler's registers. */
unsigned long bp_fprobe_arg0(bp_fprobe_regs *regs);
/*
 * The pt_regs an fprobe handler's fetch arguments read: all of them through
 * 6.13, the argument registers, stack pointer and return value on fgraph.
 */
struct pt_regs *bp_fprobe_fetch_regs(bp_fprobe_regs *regs);

/*
 * The pt_regs an fprobe handler can hand on (struct batchprobe_hit's regs),
 * or NULL where it has only ftrace_regs. Only control sets reach the fprobe
 * backend, and they never look at it (API sets stay on int3 kprobes).
 */
struct pt_regs *bp_fprobe_pt_regs(bp_fprobe_regs *regs);

#ifndef __BINDGEN__
#include <linux/fprobe.h>
#include <linux/fs_struct.h>
#include <linux/path.h>
#include <linux/sched/task.h>
#include <linux/objtool.h>
#include <asm/ibt.h>
#include <asm/ptrace.h>

/*
 * The bodies of bp_fprobe_arg0(), bp_fprobe_pt_regs() and
 * bp_fprobe_fetch_regs() (rust/ftrace.c). On fgraph, the registers fetch
 * arguments read are the pt_regs inside ftrace_regs (x86 has
 * HAVE_FTRACE_REGS_HAVING_PT_REGS): the argument registers, the stack
 * pointer, the return value, what fprobe events read.
 */
#ifdef BP_FPROBE_FGRAPH
#define BP_FPROBE_ARG0(regs) ftrace_regs_get_argument((regs), 0)
#define BP_FPROBE_PT_REGS(regs) ((struct pt_regs *)NULL)
#define BP_FPROBE_FETCH_REGS(regs) ftrace_partial_regs((regs), NULL)
#else
#define BP_FPROBE_ARG0(regs) regs_get_kernel_argument((regs), 0)
#define BP_FPROBE_PT_REGS(regs) (regs)
#define BP_FPROBE_FETCH_REGS(regs) (regs)
#endif

/*
 * The objtool annotation of the exit trampoline's call to a local label,
 * for a C asm string. 6.12's objtool reads a .discard.intra_function_calls
 * entry (written out by hand here: its ANNOTATE_INTRA_FUNCTION_CALL is for
 * assembly files only); later ones read only .discard.annotate_insn, which
 * ASM_ANNOTATE writes. A feature test, not a release number.
 */
#ifdef ASM_ANNOTATE
#define BP_INTRA_FUNCTION_CALL ANNOTATE_INTRA_FUNCTION_CALL
#else
#define BP_INTRA_FUNCTION_CALL						\
"999:\n\t.pushsection .discard.intra_function_calls\n\t.long 999b\n\t.popsection\n"
#endif

/*
 * Whether the 4 bytes @insn are an endbr64 (or its poisoned form). 6.12's
 * is_endbr() took the value; later kernels take a pointer and do not export
 * it. gen_endbr() and gen_endbr_poison() are inline in both.
 */
#ifdef CONFIG_X86_KERNEL_IBT
#define bp_is_endbr(insn) ((insn) == gen_endbr() || (insn) == gen_endbr_poison())
#else
#define bp_is_endbr(insn) false
#endif
/*
 * The root of userspace init's view of the filesystems, for a path the
 * module reads whatever the writer's chroot (rust/btf.c). Later kernels keep
 * it apart from init_task's (which sees an empty root) as userspace_init_fs,
 * with the scoped_with_init_fs() macro: the feature test. Through 6.12
 * init_task.fs is it.
 */
static inline void bp_init_fs_root(struct path *root)
{
#ifdef scoped_with_init_fs
	get_fs_root(userspace_init_fs, root);
#else
	task_lock(&init_task);
	get_fs_root(init_task.fs, root);
	task_unlock(&init_task);
#endif
}
#endif /* !__BINDGEN__ */

#endif /* BATCHPROBE_KCOMPAT_H */
