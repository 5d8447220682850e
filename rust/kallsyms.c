// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms, read for the addresses of @SYM fetch arguments
 * (src/events/symbols.rs), and kprobes' blacklist in debugfs, read for
 * the functions a p: line may not probe (src/fprobe/blacklist.rs): the
 * symbol tables the kernel prints; where core-kernel text ends, for the
 * walk of its symbols (src/kallsyms.rs).
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/magic.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <asm/pgtable_types.h>

#include "helpers.h"

/*
 * /proc/kallsyms, whole, into a vmalloc'ed buffer: its length, or a
 * negative errno (-ENOENT without procfs' kallsyms at /proc/kallsyms in
 * init's root, -EFBIG past @max bytes, -EINTR once the writer is killed). Opened as the writer: its
 * credentials decide whether addresses show (zeroes without CAP_SYSLOG,
 * under kptr_restrict=2 or lockdown=confidentiality). Opened as
 * bp_btf_read() opens BTF; read with
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

/*
 * Whether @file is procfs' own kallsyms, a seq_file: not whatever a bind
 * mount or another file system put at /proc/kallsyms in init's root.
 */
static bool bp_is_proc_kallsyms(struct file *file)
{
	struct dentry *d = file->f_path.dentry;

	return file_inode(file)->i_sb->s_magic == PROC_SUPER_MAGIC &&
	       S_ISREG(file_inode(file)->i_mode) && IS_ROOT(d->d_parent) &&
	       !strcmp(d->d_name.name, "kallsyms") && file->private_data;
}

/*
 * A seq_file the kernel prints (@file, just opened), whole into a vmalloc'ed
 * buffer: its length, or -EFBIG past @max bytes, -EINTR once the writer is
 * killed, -ENOMEM. @key: our own lockdep class for its lock.
 */
static long bp_seq_read_whole(struct file *file, void **buf, size_t max,
			      struct lock_class_key *key)
{
	size_t cap = SZ_64K, len = 0;
	loff_t pos = 0;
	char *p, *q;
	long ret;

	*buf = NULL;
	/* Just opened, not held: its class may change. */
	lockdep_set_class(&((struct seq_file *)file->private_data)->lock, key);
	p = vmalloc(cap);
	if (!p)
		return -ENOMEM;
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
		/*
		 * A bounded piece at a time: seq_read_iter() formats all it is
		 * asked for without a reschedule point or a signal check.
		 */
		n = bp_seq_read(file, p + len, min_t(size_t, cap - len, SZ_256K), &pos);
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
	return len;
fail:
	vfree(p);
	return ret;
}

/*
 * The file at @path in init's root, if @is_it says it is the kernel's own,
 * read whole (bp_seq_read_whole()); -ENOENT if it is not.
 */
static long bp_read_printed(const char *path, bool (*is_it)(struct file *),
			    struct lock_class_key *key, void **buf, size_t max)
{
	struct file *file;
	long ret;

	*buf = NULL;
	file = bp_open_from_init_root(path);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = is_it(file) ? bp_seq_read_whole(file, buf, max, key) : -ENOENT;
	fput(file);
	return ret;
}

long bp_kallsyms_read(void **buf, size_t max)
{
	return bp_read_printed("/proc/kallsyms", bp_is_proc_kallsyms, &bp_kallsyms_seq_key, buf, max);
}

/* Our own class for kprobes/blacklist's seq_file lock (see bp_kallsyms_seq_key). */
static struct lock_class_key bp_blacklist_seq_key;

/*
 * Whether @file is kprobes' own debugfs blacklist (kernel/kprobes.c,
 * debugfs_kprobe_init()): debugfs' kprobes/blacklist, a seq_file.
 */
static bool bp_is_kprobe_blacklist(struct file *file)
{
	struct dentry *d = file->f_path.dentry;

	return file_inode(file)->i_sb->s_magic == DEBUGFS_MAGIC &&
	       S_ISREG(file_inode(file)->i_mode) && !strcmp(d->d_name.name, "blacklist") &&
	       !strcmp(d->d_parent->d_name.name, "kprobes") && IS_ROOT(d->d_parent->d_parent) &&
	       file->private_data;
}

/*
 * kprobes' blacklist as debugfs prints it ("0x%px-0x%px\t%ps" a line, the
 * addresses zeroes where the writer may not see them), whole: its length,
 * or a negative errno (-ENOENT without debugfs at /sys/kernel/debug in
 * init's root, or a file there that is not kprobes'). The file is never
 * removed (kprobes are built in), so reading it past debugfs' proxy is
 * safe. Free the buffer with bp_vfree().
 */
long bp_kprobe_blacklist_read(void **buf, size_t max)
{
	return bp_read_printed("/sys/kernel/debug/kprobes/blacklist", bp_is_kprobe_blacklist,
			       &bp_blacklist_seq_key, buf, max);
}

/*
 * Whether @addr is mapped executable in the kernel's page tables. Core
 * kernel text (_stext to _etext) is; from the page after _etext's on
 * nothing is (mark_rodata_ro() makes rodata, data and bss NX, unless
 * rodata=off; freed init text is made NX or unmapped, free_init_pages()):
 * the end of a walk of text symbols, where kallsyms may name _etext by
 * another symbol at its address. On a CPU without NX every mapped address
 * is executable.
 */
bool bp_kernel_text_mapped(unsigned long addr)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);

	return pte && pte_present(*pte) && !(pte_flags(*pte) & _PAGE_NX);
}
