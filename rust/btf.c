// SPDX-License-Identifier: GPL-2.0
/* The kernel's BTF, read for the exit trampoline's signature rule (src/btf.rs). */
#include <linux/fs.h>
#include <linux/kernel_read_file.h>
#include <linux/limits.h>
#include <linux/vmalloc.h>

#include "helpers.h"

/*
 * The kernel's BTF, as /sys/kernel/btf/vmlinux serves it (the raw
 * __start_BTF section), into a vmalloc'ed buffer: its size, or -ENOENT
 * on a kernel without CONFIG_DEBUG_INFO_BTF. Free with bp_vfree().
 */
long bp_btf_vmlinux_read(void **buf)
{
	size_t size = 0;
	ssize_t ret;

	*buf = NULL;
	/* In the initial mount namespace: a writer's chroot may lack /sys. */
	ret = kernel_read_file_from_path_initns("/sys/kernel/btf/vmlinux", 0, buf, INT_MAX,
						&size, READING_UNKNOWN);
	if (ret >= 0 && (size_t)ret != size) {
		vfree(*buf);
		*buf = NULL;
		return -EIO;
	}
	return ret;
}

void bp_vfree(void *p)
{
	vfree(p);
}
