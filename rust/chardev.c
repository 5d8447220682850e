// SPDX-License-Identifier: GPL-2.0
/*
 * The control device, /dev/batchprobe: a misc character device whose write
 * is a control write (rust/debugfs.c's bp_control_write_user()), for
 * machines where debugfs takes no writes. With lockdown=integrity (Secure
 * Boot on a distribution's kernel), debugfs refuses to open a file that can
 * be written (LOCKDOWN_DEBUGFS, an integrity reason); a device node is not
 * locked down, and a write to it reaches the driver whole, so one write is
 * still one batch up to BP_MAX_WRITE (a sysfs or configfs attribute would
 * cut it at a page). Reads stay on debugfs (sets, stats, last_error), which
 * lockdown leaves readable.
 *
 * An open file holds a reference on the module (fops.owner), so no write
 * runs once the module is going, and the engine outlives every open file.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "helpers.h"

struct bp_chardev {
	struct miscdevice misc;
	void *engine;
};

static int bp_chardev_open(struct inode *inode, struct file *file)
{
	/* misc_open() set private_data to our miscdevice. */
	struct bp_chardev *dev = container_of(file->private_data, struct bp_chardev, misc);

	file->private_data = dev->engine;
	return nonseekable_open(inode, file);
}

static ssize_t bp_chardev_write(struct file *file, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	return bp_control_write_user(file->private_data, ubuf, len);
}

static const struct file_operations bp_chardev_fops = {
	.owner = THIS_MODULE,
	.open = bp_chardev_open,
	.write = bp_chardev_write,
};

/*
 * Fault injection, for selftests/test_device_failure.sh: the registration
 * fails as when no minor is left (-EBUSY, misc_register()'s own), which a
 * test cannot bring about otherwise without the driver core's warning (a
 * second "batchprobe" in /sys/class/misc). Read at load only (0: not in
 * sysfs); the module's init must go on without the device.
 */
static bool fail_device;
module_param(fail_device, bool, 0);
MODULE_PARM_DESC(fail_device,
		 "test only: /dev/batchprobe's registration fails at load (-EBUSY), control through debugfs");

void *bp_chardev_register(void *engine)
{
	struct bp_chardev *dev;
	int ret;

	if (fail_device)
		return ERR_PTR(-EBUSY);
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->engine = engine;
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "batchprobe";
	dev->misc.fops = &bp_chardev_fops;
	dev->misc.mode = 0600;
	ret = misc_register(&dev->misc);
	if (ret) {
		kfree(dev);
		return ERR_PTR(ret);
	}
	return dev;
}

void bp_chardev_unregister(void *dev)
{
	struct bp_chardev *d = dev;

	misc_deregister(&d->misc);
	kfree(d);
}
