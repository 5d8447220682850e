#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bundle-test`: proves the bundle needs nothing of the host. Unpacks
# it into an empty directory and runs it there as the only thing in a
# chroot (with /dev and /proc mounted, in a private mount namespace), with
# an empty environment: no host shell, libc, QEMU or tool can be reached.
# Without root (or unshare) it falls back to the unpacked directory with
# `env -i PATH=/nonexistent`. Runs `./run demo` and `./run check` on
# BP_BUNDLE_TEST_FLAVORS ("test") with BP_BUNDLE_TEST_TESTS (a few quick
# selftests), and checks what they print.
# Usage: test-bundle.sh [ARCHIVE] (default: make bundle's output)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

archive=${1:-${BP_BUNDLE_OUT:-$BP_ROOT/out/batchprobe-bundle.tar.gz}}
[ -f "$archive" ] || die "bundle-test: no $archive (run make bundle)"
flavors=${BP_BUNDLE_TEST_FLAVORS:-test}
tests=${BP_BUNDLE_TEST_TESTS:-test_load.sh test_lifecycle.sh test_api_c_client.sh}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
tar -C "$root" -xzf "$archive"
mkdir -p "$root"/{dev,proc,tmp}
bundle=/batchprobe-bundle

# inside CMD...: runs CMD in the bundle's own world.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
    inside() {
        unshare -m sh -c 'mount --make-rprivate / && mount --rbind /dev "$0/dev" &&
            mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" \
            /batchprobe-bundle/bin/busybox env -i PATH=/nonexistent "$@"
    }
    where="a chroot holding only the bundle"
else
    bundle=$root/batchprobe-bundle
    inside() { env -i PATH=/nonexistent "$@"; }
    where="$bundle with an empty environment (no root: no chroot)"
fi
log "bundle-test: $archive unpacked; running it in $where"

out=$root/demo.out
inside "$bundle/bin/busybox" sh "$bundle/run" demo 2>&1 | tee "$out"
grep -q '^   remove ' "$out" || die "bundle-test: demo printed no side-by-side table"
grep -q '__x64_sys_getppid.*hits=1000 ' "$out" || die "bundle-test: demo printed no direct counts"

out=$root/check.out
inside "$bundle/bin/busybox" sh "$bundle/run" check --flavors "$flavors" --tests "$tests" 2>&1 | tee "$out"
tail -1 "$out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$' || die "bundle-test: check did not pass"
log "bundle-test: demo and check ($flavors) ran from the bundle alone"
