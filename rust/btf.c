// SPDX-License-Identifier: GPL-2.0
/* The kernel's and its modules' BTF, read for the exit trampoline's signature rule (src/direct/btf.rs). */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

#include "helpers.h"

/*
 * The BTF /sys/kernel/btf/@name serves: the kernel's (vmlinux, the raw
 * __start_BTF section) or a loaded module's (split on the kernel's; the
 * name has at most @len bytes, no NUL, no '/'), into a vmalloc'ed buffer:
 * its size, or -ENOENT when there is none (a kernel without
 * CONFIG_DEBUG_INFO_BTF, a module without BTF or not loaded). Free with
 * bp_vfree().
 *
 * Read with file_open_root() and kernel_read(), not kernel_read_file():
 * that one asks the LSMs with a kernel_read_file_id, which has no value
 * for BTF, and IPE (an LSM Debian's kernels enable) WARNs on
 * READING_UNKNOWN ("no rule setup for kernel_read_file enum 0").
 */
/*
 * Opens @path for reading as the writer, from the root userspace init
 * sees (a writer's chroot may lack /sys or /proc).
 */
struct file *bp_open_from_init_root(const char *path)
{
	struct path root;
	struct file *file;

	bp_init_fs_root(&root);
	file = file_open_root(&root, path, O_RDONLY, 0);
	path_put(&root);
	return file;
}

long bp_btf_read(const char *name, size_t len, void **buf)
{
	char path[sizeof("/sys/kernel/btf/") + MODULE_NAME_LEN];
	struct file *file;
	loff_t size, pos = 0;
	void *p;
	long ret;

	*buf = NULL;
	if (!len || len >= MODULE_NAME_LEN || memchr(name, '/', len) || memchr(name, 0, len))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%.*s", (int)len, name);
	file = bp_open_from_init_root(path);
	if (IS_ERR(file))
		return PTR_ERR(file);
	size = i_size_read(file_inode(file));
	if (size <= 0 || size > INT_MAX) {
		ret = size <= 0 ? -ENOENT : -EFBIG;
		goto out;
	}
	p = vmalloc(size);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	while (pos < size) {
		ssize_t n = kernel_read(file, p + pos, size - pos, &pos);

		if (n <= 0) {
			vfree(p);
			ret = n < 0 ? n : -EIO;
			goto out;
		}
	}
	*buf = p;
	ret = size;
out:
	fput(file);
	return ret;
}

void bp_vfree(void *p)
{
	vfree(p);
}
