#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install everything batchprobe needs on a Debian 12 machine; idempotent.
# The kernel sources: linux-source-6.12 from the machine's suites, 7.3's from
# trixie-backports into the cache (fetch_source below).
# Debian packages for the kernel, Rust-for-Linux, QEMU and the initramfs,
# plus bindgen-cli from crates.io. rsync: the kselftest install rules use it. clang-19 builds the distro flavor (return
# thunks and call-depth tracking need clang >= 15; Debian 12's default is 14).
# dwarves (pahole) writes the BTF of the distro and debug flavors.
# e2fsprogs (mke2fs) makes the ext4 file system Debian's image mounts in its guest.
# libelf-dev and zlib1g-dev (their static libraries) link bpfpeer, the BPF
# peers' loader, static against each kernel tree's own libbpf.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(linux-source-6.12 rustc-web rust-web-src clang lld llvm libclang-dev
      qemu-system-x86 busybox-static flex bison bc libelf-dev zlib1g-dev libssl-dev cpio rust-web-clippy
      kmod make gcc libc6-dev file xz-utils rsync e2fsprogs
      clang-19 lld-19 llvm-19 dwarves)
BINDGEN_VERSION=${BINDGEN_VERSION:-0.73.2}

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

if ! bindgen_bin >/dev/null 2>&1; then
    log "installing bindgen-cli $BINDGEN_VERSION from crates.io"
    cargo install --locked --quiet bindgen-cli --version "$BINDGEN_VERSION"
fi
# Kernel sources newer than the machine's own suites: Debian's linux-source-X.Y
# from the backports suite of trixie (Debian 13), on the same archive the
# machine already uses. A private sources list, lists and cache under the
# batchprobe cache serve `apt-get download`; the system's apt sources, lists
# and package state stay as they are. The .deb is kept in the cache, and
# build-kernel.sh unpacks the tarball from it.
declare -A NEW_SOURCES=([7.3]="trixie-backports")
fetch_source() {
    local kver=$1 suite=${NEW_SOURCES[$1]} dir uri apt
    dir=$(source_deb_dir)
    ls "$dir"/linux-source-"$kver"_*_all.deb >/dev/null 2>&1 && return 0
    uri=$(archive_uri)
    [ -n "$uri" ] || die "no Debian archive in the system's apt sources to fetch linux-source-$kver from"
    log "fetching linux-source-$kver from $suite (private sources list; the system's stay as they are)"
    apt=$BP_CACHE/apt
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dir"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" > "$apt/sources.list"
    local opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o APT::Sandbox::User=root)
    apt-get -qq "${opts[@]}" update || die "apt-get update of $suite failed"
    (cd "$dir" && apt-get -qq "${opts[@]}" download "linux-source-$kver") \
        || die "apt-get download linux-source-$kver failed"
}
for v in $BP_KVERS; do
    if [ -n "${NEW_SOURCES[$v]:-}" ]; then fetch_source "$v"; fi
done
log "dependencies present (rustc: $(/usr/bin/rustc --version), bindgen: $("$(bindgen_bin)" --version))"
