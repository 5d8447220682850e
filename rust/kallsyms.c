// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms, read for the addresses of @SYM fetch arguments (src/events/symbols.rs). */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "helpers.h"

/*
 * /proc/kallsyms, whole, into a vmalloc'ed buffer: its length, or a
 * negative errno (-ENOENT without /proc in init's root, -EFBIG past @max
 * bytes, -EINTR once the writer is killed). Opened as the writer: its
 * credentials decide whether addresses show (zeroes without CAP_SYSLOG,
 * under kptr_restrict=2 or lockdown=confidentiality). Opened as
 * bp_btf_vmlinux_read() opens BTF; read with
 * seq_read_iter() into the buffer, as seq_read() reads it for userspace:
 * /proc/kallsyms is a seq_file (kernel/kallsyms.c, 6.12 and 7.3) whose
 * proc_ops have no proc_read_iter, so kernel_read() refuses it (-EINVAL).
 * Free the buffer with bp_vfree().
 */
/* seq_read() into kernel memory: what kernel_read() does for read_iter files. */
static ssize_t bp_seq_read(struct file *file, char *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t n;

	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	n = seq_read_iter(&kiocb, &iter);
	*pos = kiocb.ki_pos;
	return n;
}

/*
 * The lockdep class of our own instance of kallsyms' seq_file lock: it is
 * taken under bp_files_mutex (a control write), where our debugfs files'
 * seq_file locks are taken around it (rust/debugfs.c); all seq_file locks
 * share one class, so lockdep would see a cycle between two locks that
 * are not the same.
 */
static struct lock_class_key bp_kallsyms_seq_key;

long bp_kallsyms_read(void **buf, size_t max)
{
	size_t cap = SZ_1M, len = 0;
	struct file *file;
	loff_t pos = 0;
	char *p, *q;
	long ret;

	*buf = NULL;
	file = bp_open_from_init_root("/proc/kallsyms");
	if (IS_ERR(file))
		return PTR_ERR(file);
	/* Just opened, not held: its class may change. */
	lockdep_set_class(&((struct seq_file *)file->private_data)->lock, &bp_kallsyms_seq_key);
	p = vmalloc(cap);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= max) {
				ret = -EFBIG;
				goto fail;
			}
			cap = min(cap * 2, max);
			q = vmalloc(cap);
			if (!q) {
				ret = -ENOMEM;
				goto fail;
			}
			memcpy(q, p, len);
			vfree(p);
			p = q;
		}
		n = bp_seq_read(file, p + len, cap - len, &pos);
		if (n < 0) {
			ret = n;
			goto fail;
		}
		if (!n)
			break;
		len += n;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto fail;
		}
		cond_resched();
	}
	*buf = p;
	ret = len;
	goto out;
fail:
	vfree(p);
out:
	fput(file);
	return ret;
}
