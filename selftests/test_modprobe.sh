#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `make install`'s layout (batchprobe.ko in /lib/modules/RELEASE/updates/, stripped of its debug info with INSTALL_MOD_STRIP=1, depmod's modules.dep): modprobe loads the module by name with its options from /etc/modprobe.d/ as docs/install.md writes them, the module works, and modprobe -r removes it
# requires: CONFIG_KPROBES
#
# scripts/build-initramfs.sh runs scripts/install-module.sh install (what
# `make install INSTALL_MOD_STRIP=1` runs) into the guest's root, with the
# collection's batchprobe.ko: the installed copy stripped of its debug info
# (a fraction of the collection's size), then signed with the kernel's key
# on the locked-down flavor, where only a signed module loads: there
# modprobe loading it shows the signature made after the strip is good.
# Debian's image gets the same.
. ./bp_lib.sh
d=/lib/modules/$(uname -r)
[ -f "$d/updates/batchprobe.ko" ] ||
    bp_skip_all "no $d/updates/batchprobe.ko: this initramfs was not made by scripts/build-initramfs.sh"
ktap_plan 9
S=$BP_GETPPID

bp_cleanup_on_exit
ktap_check "depmod_lists_it_in_updates" grep -q '^updates/batchprobe\.ko:' "$d/modules.dep"
ktap_check "installed_stripped" test "$(stat -c %s "$d/updates/batchprobe.ko")" -lt "$(($(stat -c %s "$BP_KO") / 2))"
ktap_check "installed_for_this_release" test "$(modinfo -F vermagic "$d/updates/batchprobe.ko" | cut -d' ' -f1)" = "$(uname -r)"
# docs/install.md's example (Installing, signing, Secure Boot).
mkdir -p /etc/modprobe.d
echo 'options batchprobe max_return_pool_kib=65536' > /etc/modprobe.d/batchprobe.conf
ktap_check "modprobe_by_name" modprobe batchprobe
ktap_check "option_from_modprobe_d" test "$(cat /sys/module/batchprobe/parameters/max_return_pool_kib)" -eq 65536
ktap_check "it_counts" sh -c ". ./bp_lib.sh; bp_ctl 'p:mp/g $S\ncreate mp\nenable mp\n' && bphit 3 > /dev/null && test \$(bp_probe_hits mp g) -ge 3"
ktap_check "set_unregistered" bp_ctl 'unregister mp --sync\n'
ktap_check "modprobe_r" modprobe -r batchprobe
ktap_check "gone" test ! -d /sys/module/batchprobe
rm -f /etc/modprobe.d/batchprobe.conf
ktap_finish
