// SPDX-License-Identifier: GPL-2.0
/*
 * batchprobe's debugfs files: their file_operations, which call into Rust
 * (src/control.rs) under one mutex; the control write, which the control
 * device (rust/chardev.c) shares.
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "helpers.h"
#include "rust_entry.h"

/*
 * Serialises every control write and file read, killably: a task waiting
 * behind a long batch (tens of thousands of lines, a glob over every kernel
 * function) can be killed instead of sitting in D state. The registry's own
 * lock inside is then never contended by file users.
 */
static DEFINE_MUTEX(bp_files_mutex);

ssize_t bp_control_write_user(void *engine, const char __user *ubuf, size_t len)
{
	ssize_t ret;
	char *buf;

	/*
	 * The file is 0600, but root with CAP_SYS_ADMIN dropped must not
	 * attach probes to the kernel either (as for kprobe_events, where
	 * tracefs' own checks do this).
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
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
	ret = mutex_lock_killable(&bp_files_mutex);
	if (!ret) {
		ret = bp_rust_control_write(engine, buf, len);
		mutex_unlock(&bp_files_mutex);
	}
	kvfree(buf);
	return ret;
}

static ssize_t bp_control_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	ssize_t ret = bp_control_write_user(file->private_data, ubuf, len);

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
	int ret = mutex_lock_killable(&bp_files_mutex);			\
									\
	if (ret)							\
		return ret;						\
	ret = bp_rust_show(m->private, what, m);			\
	mutex_unlock(&bp_files_mutex);					\
	return ret;							\
}									\
DEFINE_SHOW_ATTRIBUTE(bp_##fname)

BP_SHOW_FILE(sets, BP_SHOW_SETS);
BP_SHOW_FILE(stats, BP_SHOW_STATS);
BP_SHOW_FILE(last_error, BP_SHOW_LAST_ERROR);

/*
 * The read-only files first, then control, the only way to make a set, and
 * only if they all were made: when this fails, no write has run, so a
 * failed module init leaves no set behind.
 */
int bp_debugfs_create_files(struct dentry *dir, void *engine)
{
	struct dentry *d;

	d = debugfs_create_file("sets", 0400, dir, engine, &bp_sets_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	d = debugfs_create_file("stats", 0400, dir, engine, &bp_stats_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	d = debugfs_create_file("last_error", 0400, dir, engine, &bp_last_error_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	d = debugfs_create_file("control", 0600, dir, engine, &bp_control_fops);
	return PTR_ERR_OR_ZERO(d);
}
