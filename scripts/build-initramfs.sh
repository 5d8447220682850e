#!/usr/bin/env bash
# Build the guest's initramfs: busybox-static, our /init, the module, the
# selftests, and (given the kernel tree) its own ftracetest.
# Usage: [BP_EXTRA_KO="A.ko B.ko"] build-initramfs.sh OUT.cpio.gz MODULE.ko [KDIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1 ko=$2 kdir=${3:-}
busybox=/bin/busybox
[ -x "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q static || busybox=/usr/bin/busybox
[ -x "$busybox" ] || die "initramfs: busybox-static missing (run scripts/install-deps.sh)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"   # mktemp's 0700 would keep non-root guest users out of /
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,selftests}
cp "$busybox" "$root/bin/busybox"
cp "$BP_ROOT/scripts/guest-init.sh" "$root/init"
cp "$ko" "$root/batchprobe.ko"
# BP_EXTRA_KO: more modules for the selftests (the API's sample clients).
for k in ${BP_EXTRA_KO:-}; do cp "$k" "$root/"; done
cp "$BP_ROOT"/selftests/*.sh "$root/selftests/"
# Helpers the selftests run, built static for the busybox guest.
gcc -static -O2 -Wall -Werror -o "$root/bin/bptool" "$BP_ROOT/selftests/bptool.c" \
    || die "initramfs: building selftests/bptool.c failed (needs gcc and libc6-dev)"
for t in bpwrite bptime bphit bpnocap bpuser bpfuzz; do ln -s bptool "$root/bin/$t"; done
chmod +x "$root/init" "$root"/selftests/*.sh
# The kernel's own ftrace selftests, from the same tree the guest runs
# (selftests/test_ftracetest_kprobes.sh runs some with batchprobe loaded).
if [ -n "$kdir" ] && [ -d "$kdir/tools/testing/selftests/ftrace" ]; then
    cp -r "$kdir/tools/testing/selftests/ftrace" "$root/ftracetest"
fi
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out"
