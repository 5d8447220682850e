#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's initramfs: busybox-static, our /init, and the kselftest
# tree (scripts/install-selftests.sh: the kernel's runner plus our collection
# with the module and BP_EXTRA_KO in it) at /kselftest, and the kernel
# tree's own ftracetest.
# BP_GUEST_TREE: a directory copied into the guest's root as it is (Debian's
# image's own modules and a file system for them: stock-kernel.sh), before
# `make install`'s depmod, which then lists its modules for modprobe.
# Usage: [BP_EXTRA_KO="A.ko B.ko"] [BP_GUEST_TREE=DIR] build-initramfs.sh OUT.cpio.gz MODULE.ko KDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1 ko=$2 kdir=${3:?usage: build-initramfs.sh OUT.cpio.gz MODULE.ko KDIR}
busybox=/bin/busybox
[ -x "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q static || busybox=/usr/bin/busybox
[ -x "$busybox" ] || die "initramfs: busybox-static missing (run scripts/install-deps.sh)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"   # mktemp's 0700 would keep non-root guest users out of /
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc}
cp "$busybox" "$root/bin/busybox"
cp "$BP_ROOT/scripts/guest-init.sh" "$root/init"
chmod +x "$root/init"
# The kselftest tree: run_kselftest.sh, the runner, our collection.
# shellcheck disable=SC2086
"$BP_ROOT/scripts/install-selftests.sh" "$kdir" "$root/kselftest" "$ko" ${BP_EXTRA_KO:-} >/dev/null
col=$root/kselftest/batchprobe
# A kernel that checks module signatures with the key its build made (the
# locked-down flavor, distro-7.3): every module of the collection signed
# with that key, as `make sign` does, and an unsigned copy of batchprobe.ko
# kept for test_lockdown.sh, which shows the kernel refusing it.
# (A module `make sign` signed in place loses that signature in the copy.)
if sign=$(kernel_sign_key "$kdir"); then
    read -r key cert hash <<<"$sign"
    cp "$ko" "$col/batchprobe.ko.unsigned"
    KDIR=$kdir BP_KO=$ko "$BP_ROOT/scripts/install-module.sh" unsign "$col/batchprobe.ko.unsigned"
    KDIR=$kdir BP_SIGN_KEY=$key BP_SIGN_CERT=$cert BP_SIGN_HASH=$hash \
        "$BP_ROOT/scripts/install-module.sh" sign "$col"/*.ko
fi
if [ -n "${BP_GUEST_TREE:-}" ]; then
    [ -d "$BP_GUEST_TREE" ] || die "initramfs: BP_GUEST_TREE=$BP_GUEST_TREE is not a directory"
    cp -a "$BP_GUEST_TREE/." "$root/"
fi
# `make install INSTALL_MOD_STRIP=1` into the guest's root, as a
# distribution installs its modules: batchprobe.ko without its debug info
# in /lib/modules/RELEASE/updates/ (signed there with this kernel's key
# where the collection's is signed) with depmod's modules.dep, for modprobe
# (test_modprobe.sh); a key the caller set for `make install` is not this
# guest's.
cp "$(dirname "$ko")/Module.symvers" "$col/" 2>/dev/null || true
signing=(-u BP_SIGN_KEY -u BP_SIGN_CERT)
[ -z "${key:-}" ] || signing=(BP_SIGN_KEY="$key" BP_SIGN_CERT="$cert" BP_SIGN_HASH="$hash")
env "${signing[@]}" KDIR="$kdir" BP_KO="$col/batchprobe.ko" INSTALL_MOD_STRIP=1 \
    INSTALL_MOD_PATH="$root" DESTDIR="$root" "$BP_ROOT/scripts/install-module.sh" install
# The kernel's own ftrace selftests, from the same tree the guest runs
# (selftests/test_ftracetest_kprobes.sh runs some with batchprobe loaded).
# A tree without them says so in the image: the test skips there, and
# fails where they should have been copied and are not.
if [ -d "$kdir/tools/testing/selftests/ftrace" ]; then
    cp -r "$kdir/tools/testing/selftests/ftrace" "$root/ftracetest"
else
    echo "$kdir has no tools/testing/selftests/ftrace" > "$root/ftracetest.absent"
fi
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out"
