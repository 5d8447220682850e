#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make cli`: build the batchprobe command (tools/batchprobe), static, so
# that the same binary runs here, on the machine `make install` puts it
# on, and in the test guest (a busybox initramfs without a libc). Prints
# the binary's path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=x86_64-unknown-linux-gnu
cd "$BP_ROOT/tools/batchprobe"
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" CARGO_INCREMENTAL=0 \
    cargo build --quiet --release --locked --target "$target" >&2 \
    || die "cli: cargo build failed (tools/batchprobe)"
bin=$BP_ROOT/tools/batchprobe/target/$target/release/batchprobe
[ -x "$bin" ] || die "cli: no $bin after the build"
echo "$bin"
