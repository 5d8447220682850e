#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make stock-kernel`: batchprobe on Debian's own Rust-enabled kernel image,
# as a Debian user would build it, on any host, without changing the host.
#
# Debian's linux-image-7.3.4+deb13-amd64 (trixie-backports) is built with
# GCC 14 and rustc 1.85.1, and its headers package ships no Rust metadata
# (no rust/*.rmeta): an out-of-tree Rust module needs a tree prepared to
# match the image. This script:
#  1. with a private sources list, lists and cache under $BP_STOCK_DIR (the
#     Debian archive the system's apt sources already use; the system's
#     sources and packages stay as they are), downloads debootstrap, the
#     image, its headers, its modules and the same version's linux-source;
#  2. debootstraps a trixie chroot (minbase, debootstrap run from its
#     unpacked .deb) and installs the image's toolchain there: gcc-14,
#     rustc and rust-src 1.85.1, bindgen 0.71.1, libclang 19, pahole;
#  3. prepares the source in the chroot with the image's .config and
#     release: `make CC=x86_64-linux-gnu-gcc-14 KERNELRELEASE=...
#     olddefconfig modules_prepare` builds the Rust metadata (rust/) and
#     the host tools, nothing else of vmlinux; the headers package's
#     Module.symvers (vmlinux's exports, for modpost) and vmlinux (its BTF,
#     for the modules' BTF) go beside it;
#  4. builds batchprobe.ko and the selftest modules (clients/c,
#     clients/rust, docs/api.md's example, selftests/modules/*) in the
#     chroot, with its compiler, rustc and bindgen (scripts/build-module.sh
#     and build-clients.sh, from a copy of this working tree);
#  5. boots Debian's own vmlinuz under QEMU with our initramfs and runs the
#     selftests (check) or the demo, whose first part is the seed's
#     comparison (demo).
# Usage: stock-kernel.sh [build|check|demo|all]   (all: build, check, demo)
#        stock-kernel.sh tree             steps 1-3; prints the prepared tree
#        stock-kernel.sh initramfs OUT    steps 1-4 and our initramfs at OUT;
#                                         prints the image's vmlinuz
# (`make check` runs the selftests on the stock-7.3 flavor through the
# last two.)
# Environment: BP_STOCK_RELEASE (7.3.4+deb13-amd64), BP_STOCK_SUITE
# (trixie), BP_STOCK_DIR ($BP_CACHE/stock-7.3), BP_TESTS (a subset of the
# selftests, space-separated), BP_TIMEOUT (per guest, 3000 s).
# Needs root (debootstrap, chroot, a private mount namespace for /proc and
# /dev in the chroot), and about 4.5 GB under $BP_STOCK_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-all}
usage="usage: stock-kernel.sh [build|check|demo|all] | tree | initramfs OUT"
case $what in
    build|check|demo|all|tree) ;;
    initramfs) [ -n "${2:-}" ] || die "$usage" ;;
    *) die "$usage" ;;
esac
rel=${BP_STOCK_RELEASE:-7.3.4+deb13-amd64}
suite=${BP_STOCK_SUITE:-trixie}
S=${BP_STOCK_DIR:-$BP_CACHE/stock-7.3}
R=$S/chroot
kver=$(sed 's/^\([0-9]*\.[0-9]*\).*/\1/' <<<"$rel")   # 7.3: linux-source-7.3
ksrc=/build/linux-source-$kver                        # the tree, in the chroot
out=$S/out
[ "$(id -u)" -eq 0 ] || die "stock-kernel: needs root (debootstrap, chroot)"
mkdir -p "$S/debs" "$out"
# One at a time on $S: a second run (a check started again while the first
# one's preparation still runs) waits rather than unpack into the same chroot.
exec 8>"$S/.lock"
flock 8

# 1. A private apt: the suite and its backports, from the archive the
# system's sources use (lib.sh's archive_uri, as install-deps.sh's).
uri=$(archive_uri)
[ -n "$uri" ] || die "stock-kernel: no Debian archive in the system's apt sources"
apt=$S/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
    "$uri" "$suite" "$uri" "$suite-backports" > "$apt/sources.list"
aopts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
       -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o APT::Sandbox::User=root)
# The lists are fetched once, and again only when what they name is not in
# the cache yet: a run with everything cached needs no network (CI's).
apt_update() {
    log "stock-kernel: apt-get update ($suite, $suite-backports; private lists under $apt)"
    apt-get -qq "${aopts[@]}" update >&2 || die "stock-kernel: apt-get update failed"
}
image_version() { # (empty when the lists do not have the image)
    { apt-cache "${aopts[@]}" show "linux-image-$rel" 2>/dev/null || true; } \
        | sed -n 's/^Version: //p' | head -1
}
deb() { # PACKAGE [VERSION]: its .deb in $S/debs (any version if none given)
    local v=${2:-*}
    { ls "$S/debs/${1}_${v//:/%3a}_"*.deb 2>/dev/null || true; } | head -1
}
fetch() { # PACKAGE[=VERSION]: into $S/debs, once; fails if apt cannot
    local p=${1%%=*} v=
    [[ $1 = *=* ]] && v=${1#*=}
    [ -n "$(deb "$p" "$v")" ] && return 0
    (cd "$S/debs" && apt-get -qq "${aopts[@]}" download "$1" >&2)
}
fetch_all() { # the image's version from the lists, then its packages
    ver=$(image_version)
    [ -n "$ver" ] || return 1
    debs=("debootstrap" "linux-binary-$rel=$ver" "linux-headers-$rel=$ver"
          "linux-modules-$rel=$ver")
    for d in "${debs[@]}"; do fetch "$d" || return 1; done
}
[ -n "$(find "$apt/lists" -maxdepth 1 -name '*Packages*' 2>/dev/null)" ] || apt_update
# Stale lists (a newer build of the image, say): fetch them again, once.
fetch_all || { apt_update; fetch_all; } \
    || die "stock-kernel: linux-image-$rel or its packages are not in $suite or $suite-backports (see $apt)"
# The source: install-deps.sh's copy when it is the image's version.
srcdeb=$BP_CACHE/debs/linux-source-${kver}_${ver}_all.deb
[ -f "$srcdeb" ] || { fetch "linux-source-$kver=$ver" || die "stock-kernel: apt-get download linux-source-$kver=$ver failed"
                      srcdeb=$(deb "linux-source-$kver" "$ver"); }
log "stock-kernel: linux-image-$rel $ver, its headers and linux-source-$kver $ver"
unpack() { # DEB DIR
    [ -d "$2" ] || { mkdir -p "$2.tmp" && dpkg-deb -x "$1" "$2.tmp" && mv "$2.tmp" "$2"; }
}
# One directory per version (the layout before had none: gone).
rm -rf "$S/image" "$S/headers"
unpack "$(deb "linux-binary-$rel" "$ver")" "$S/image-$ver"
unpack "$(deb "linux-headers-$rel" "$ver")" "$S/headers-$ver"
vmlinuz=$S/image-$ver/usr/lib/modules/$rel/vmlinuz
[ -f "$vmlinuz" ] || vmlinuz=$S/image-$ver/boot/vmlinuz-$rel
[ -f "$vmlinuz" ] || die "stock-kernel: no vmlinuz in linux-binary-$rel"
hdr=$S/headers-$ver/usr/src/linux-headers-$rel
[ -f "$hdr/.config" ] && [ -f "$hdr/Module.symvers" ] || die "stock-kernel: no .config or Module.symvers in $hdr"

# Some of the image's own modules in the guest, as Debian installs them
# (decompressed: busybox's modprobe reads no .ko.xz), with what they
# depend on: ext4 and loop, and an ext4 file system to mount on a loop
# device. test_module_ext4.sh probes a distribution's module with them.
guest_modules=(ext4 loop)
gtree=$S/guest-$ver
if [ ! -f "$S/.guest-ready-$ver" ]; then
    log "stock-kernel: the image's modules for the guest (${guest_modules[*]}, and what they need) into $gtree"
    rm -rf "$gtree" "$gtree.tmp" "$S/modules-$ver"
    unpack "$(deb "linux-modules-$rel" "$ver")" "$S/modules-$ver"
    mods=$S/modules-$ver/usr/lib/modules/$rel
    [ -d "$mods/kernel" ] || die "stock-kernel: no modules in linux-modules-$rel"
    # Their dependencies and soft dependencies, as a Debian system's
    # modprobe finds them (depmod over the package's tree, in a scratch root).
    dm=$(mktemp -d)
    mkdir -p "$dm/lib/modules"
    ln -s "$mods" "$dm/lib/modules/$rel"
    depmod -b "$dm" "$rel" 2>/dev/null || die "stock-kernel: depmod over linux-modules-$rel failed"
    files=$(modprobe -a -d "$dm" -S "$rel" --show-depends "${guest_modules[@]}" | sed -n 's/^insmod \([^ ]*\).*/\1/p')
    rm -rf "$dm"
    [ -n "$files" ] || die "stock-kernel: modprobe found none of ${guest_modules[*]} in linux-modules-$rel"
    for f in $files; do
        f=${f#*"/lib/modules/$rel/"}
        mkdir -p "$gtree.tmp/lib/modules/$rel/$(dirname "$f")"
        case $f in
            *.xz) xz -dc "$mods/$f" > "$gtree.tmp/lib/modules/$rel/${f%.xz}" ;;
            *.zst) zstd -qdc "$mods/$f" > "$gtree.tmp/lib/modules/$rel/${f%.zst}" ;;
            *) cp "$mods/$f" "$gtree.tmp/lib/modules/$rel/$f" ;;
        esac
    done
    mkdir -p "$gtree.tmp/var/lib/batchprobe"
    mke2fs -q -t ext4 -L bp-ext4 -F "$gtree.tmp/var/lib/batchprobe/ext4.img" 16M \
        || die "stock-kernel: mke2fs -t ext4 failed (e2fsprogs)"
    rm -rf "$S/modules-$ver"
    mv "$gtree.tmp" "$gtree"
    touch "$S/.guest-ready-$ver"
fi

# Runs a command in the chroot, with /proc and /dev mounted in a private
# mount namespace (gone with the command) and a clean environment.
in_chroot() {
    unshare -m --propagation private bash -c '
        R=$1; shift
        mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" || exit 1
        exec chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
            LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' bash "$R" "$@"
}

# 2. The chroot and the image's toolchain.
toolchain=(gcc-14 make flex bison bc libelf-dev libssl-dev rustc rust-src bindgen
           libclang-19-dev dwarves kmod cpio perl python3 xz-utils libc6-dev)
if [ ! -f "$S/.chroot-ready" ]; then
    unpack "$(ls "$S/debs/debootstrap_"*.deb)" "$S/debootstrap"
    if [ ! -x "$R/usr/bin/apt-get" ]; then
        log "stock-kernel: debootstrap --variant=minbase $suite into $R"
        rm -rf "$R"
        DEBOOTSTRAP_DIR=$S/debootstrap/usr/share/debootstrap nice -n 10 \
            "$S/debootstrap/usr/sbin/debootstrap" --variant=minbase \
            --keyring=/usr/share/keyrings/debian-archive-keyring.gpg "$suite" "$R" "$uri" \
            > "$S/debootstrap.log" 2>&1 || die "stock-kernel: debootstrap failed (see $S/debootstrap.log)"
    fi
    log "stock-kernel: installing the toolchain in the chroot: ${toolchain[*]}"
    in_chroot sh -c 'apt-get -qq update && nice -n 10 apt-get install -y -qq --no-install-recommends "$@"' \
        sh "${toolchain[@]}" > "$S/chroot-apt.log" 2>&1 \
        || die "stock-kernel: installing the toolchain failed (see $S/chroot-apt.log)"
    touch "$S/.chroot-ready"
fi
want_rustc=$(sed -n 's/^CONFIG_RUSTC_VERSION_TEXT="\(.*\)"$/\1/p' "$hdr/.config")
have_rustc=$(in_chroot rustc --version)
[ "$have_rustc" = "$want_rustc" ] \
    || die "stock-kernel: the image was built with \"$want_rustc\", $suite's rustc is \"$have_rustc\""
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*"$/\1/p' "$hdr/.config")
log "stock-kernel: chroot toolchain: $(in_chroot "$cc" --version | head -1), $have_rustc, $(in_chroot bindgen --version)"

# 3. The source, prepared with the image's config and release.
stamp=$S/.prepared-$ver
if [ ! -f "$stamp" ]; then
    log "stock-kernel: unpacking linux-source-$kver into $R$ksrc"
    rm -rf "$R$ksrc" "$S/src-deb"
    mkdir -p "$R/build"
    dpkg-deb -x "$srcdeb" "$S/src-deb"
    nice -n 10 tar -C "$R/build" -xaf "$S/src-deb/usr/src/linux-source-$kver.tar.xz"
    rm -rf "$S/src-deb"
    cp "$hdr/.config" "$hdr/Module.symvers" "$R$ksrc/"
    log "stock-kernel: modules_prepare (Rust metadata included; 1 to 6 minutes on 2 cores)"
    t=$(date +%s)
    in_chroot bash -c "cd $ksrc && nice -n 10 make -j$(nproc) CC=$cc HOSTCC=$cc KERNELRELEASE=$rel olddefconfig modules_prepare" \
        > "$S/prepare.log" 2>&1 || die "stock-kernel: modules_prepare failed (see $S/prepare.log)"
    log "stock-kernel: prepared in $(( $(date +%s) - t )) s"
    touch "$stamp"
fi
# modules_prepare leaves no vmlinux: the headers package's (BTF only) is
# what the modules' BTF is encoded against, as on a Debian machine.
[ -f "$hdr/vmlinux" ] && cp "$hdr/vmlinux" "$R$ksrc/vmlinux"
[ -f "$R$ksrc/rust/kernel.o" ] && ls "$R$ksrc"/rust/libkernel.rmeta >/dev/null \
    || die "stock-kernel: $R$ksrc has no Rust metadata (see $S/prepare.log)"

[ "$what" = tree ] && { echo "$R$ksrc"; exit 0; }

# 4. The modules, built in the chroot from a copy of this working tree.
if [ "$what" = build ] || [ "$what" = all ] || [ "$what" = initramfs ] || [ ! -f "$out/batchprobe.ko" ]; then
    log "stock-kernel: building batchprobe and its selftest modules in the chroot"
    mkdir -p "$R/batchprobe"
    # Tracked and untracked-not-ignored files: the sources, not this tree's
    # own build outputs (the copy keeps its own, Kbuild rebuilds what changed).
    # Compared by content, and copied without the source's mtime (no -t):
    # a file copied is newer than every output, one left alone keeps its
    # time. (rsync -a kept a file's own mtime, older than the copy's outputs
    # when it was edited before another clone's build: a changed header or
    # C file went unseen, and the build linked stale objects.)
    (cd "$BP_ROOT" && git ls-files -co --exclude-standard) \
        | rsync -rlpD --checksum --files-from=- "$BP_ROOT/" "$R/batchprobe/src/"
    in_chroot bash -c "cd /batchprobe/src && KDIR=$ksrc nice -n 10 scripts/build-module.sh >/dev/null && KDIR=$ksrc nice -n 10 scripts/build-clients.sh >/dev/null" \
        || die "stock-kernel: building the modules failed"
    rm -f "$out"/*.ko
    for ko in batchprobe.ko clients/c/bpclient_c.ko clients/rust/bpclient_rs.ko \
              selftests/modules/bp_foreign/bp_foreign.ko; do
        cp "$R/batchprobe/src/$ko" "$out/"
    done
    modinfo -F vermagic "$out/batchprobe.ko" | sed 's/^/[batchprobe] stock-kernel: vermagic /' >&2
fi
[ "$what" = build ] && { ls "$out"/*.ko; exit 0; }

# 5. Debian's vmlinuz with our initramfs.
initrd=$out/initramfs.cpio.gz
[ "$what" = initramfs ] && initrd=$2
BP_EXTRA_KO="$out/bpclient_c.ko $out/bpclient_rs.ko $out/bp_foreign.ko" BP_GUEST_TREE=$gtree \
    "$BP_ROOT/scripts/build-initramfs.sh" "$initrd" "$out/batchprobe.ko" "$R$ksrc" >&2
[ "$what" = initramfs ] && { echo "$vmlinuz"; exit 0; }
guest() { # MODE LOG
    local rc=0 t=$(date +%s)
    log "stock-kernel: booting Debian's vmlinuz ($rel) under QEMU, bp.mode=$1; console log: $2"
    BP_QUIET=1 BP_TIMEOUT=${BP_TIMEOUT:-3000} "$BP_ROOT/scripts/run-qemu.sh" "$vmlinuz" "$initrd" "$2" \
        bp.mode="$1" ${BP_TESTS:+bp.tests=${BP_TESTS// /,}} || rc=$?
    log "stock-kernel: guest done in $(( $(date +%s) - t )) s (QEMU status $rc)"
}
rc=0
if [ "$what" = check ] || [ "$what" = all ]; then
    logf=$out/check-console.log
    guest check "$logf"
    grep -a -E '^(ok|not ok) |^# ' "$logf" | tr -d '\r' | grep -av '^# Totals' || true
    "$BP_ROOT/scripts/check-log.sh" "$logf" "${BP_SMP:-2}" || rc=1
fi
if [ "$what" = demo ] || [ "$what" = all ]; then
    logf=$out/demo-console.log
    guest demo "$logf"
    tr -d '\r' < "$logf" | sed -n '/BATCHPROBE-GUEST-START/,/BATCHPROBE-GUEST-DONE/p' \
        | grep -av -e '^BATCHPROBE-GUEST-' -e '^\[ *[0-9]*\.[0-9]*\] '
    grep -aq 'BATCHPROBE-GUEST-DONE rc=0' "$logf" || { log "stock-kernel: demo failed (see $logf)"; rc=1; }
fi
exit "$rc"
