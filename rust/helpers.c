// SPDX-License-Identifier: GPL-2.0
/*
 * C helpers for batchprobe's Rust code: static inlines and macros wrapped in
 * real functions, and the debugfs file_operations that call into Rust.
 * Declared in helpers.h, which bindgen also reads.
 */
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "helpers.h"

u64 bp_ktime_get_ns(void)
{
	return ktime_get_ns();
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

/*
 * The baseline for the per-call cost of a direct call: a trampoline that
 * does nothing, in the style of samples/ftrace/ftrace-direct-multi.c.
 */
#include <asm/ibt.h>
#include <asm/nospec-branch.h>

asm(
"	.pushsection	.text, \"ax\", @progbits\n"
"	.type		bp_direct_tramp_empty, @function\n"
"	.globl		bp_direct_tramp_empty\n"
"bp_direct_tramp_empty:"
	ASM_ENDBR
"	pushq %rbp\n"
"	movq %rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	leave\n"
	ASM_RET
"	.size		bp_direct_tramp_empty, .-bp_direct_tramp_empty\n"
"	.popsection\n"
);

static DEFINE_MUTEX(bp_direct_mutex);

void bp_direct_lock(void)
{
	mutex_lock(&bp_direct_mutex);
}

void bp_direct_unlock(void)
{
	mutex_unlock(&bp_direct_mutex);
}

static struct ftrace_ops bp_scratch_ops;

int bp_ftrace_check_ip(unsigned long ip, unsigned long *fentry)
{
	u32 insn;
	int ret;

	/*
	 * ftrace maps a function's address to its call site exactly only when
	 * they are equal; otherwise it asks kallsyms. Under IBT the site is
	 * right after the endbr64: try that first, so that the batch filter
	 * update later gets exact sites.
	 */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) &&
	    !copy_from_kernel_nofault(&insn, (void *)ip, sizeof(insn)) &&
	    is_endbr(insn) &&
	    !ftrace_set_filter_ip(&bp_scratch_ops, ip + ENDBR_INSN_SIZE, 0, 1)) {
		*fentry = ip + ENDBR_INSN_SIZE;
		return 0;
	}
	ret = ftrace_set_filter_ip(&bp_scratch_ops, ip, 0, 1);
	if (!ret)
		*fentry = ip;
	return ret;
}

void bp_ftrace_scratch_free(void)
{
	ftrace_free_filter(&bp_scratch_ops);
}

struct kretprobe *bp_get_kretprobe(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
NOKPROBE_SYMBOL(bp_get_kretprobe);

static ssize_t bp_control_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	ssize_t ret;
	char *buf;

	if (len > BP_MAX_WRITE)
		return -E2BIG;
	buf = kvmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, len)) {
		kvfree(buf);
		return -EFAULT;
	}
	buf[len] = '\0';
	ret = bp_rust_control_write(file->private_data, buf, len);
	kvfree(buf);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

static const struct file_operations bp_control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = bp_control_write,
	.llseek = noop_llseek,
};

#define BP_SHOW_FILE(fname, what)					\
static int bp_##fname##_show(struct seq_file *m, void *v)		\
{									\
	return bp_rust_show(m->private, what, m);			\
}									\
DEFINE_SHOW_ATTRIBUTE(bp_##fname)

BP_SHOW_FILE(sets, BP_SHOW_SETS);
BP_SHOW_FILE(stats, BP_SHOW_STATS);
BP_SHOW_FILE(last_error, BP_SHOW_LAST_ERROR);

int bp_debugfs_create_files(struct dentry *dir, void *engine)
{
	struct dentry *d[] = {
		debugfs_create_file("control", 0600, dir, engine, &bp_control_fops),
		debugfs_create_file("sets", 0400, dir, engine, &bp_sets_fops),
		debugfs_create_file("stats", 0400, dir, engine, &bp_stats_fops),
		debugfs_create_file("last_error", 0400, dir, engine, &bp_last_error_fops),
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(d); i++)
		if (IS_ERR(d[i]))
			return PTR_ERR(d[i]);
	return 0;
}
