# SPDX-License-Identifier: GPL-2.0
# Shared settings for batchprobe's scripts; sourced, not run.
# shellcheck shell=bash

BP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BP_CACHE=${BP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/batchprobe}
# Debian's rustc-web: the only toolchain here with a rust-src the kernel accepts.
BP_RUSTC=${BP_RUSTC:-/usr/bin/rustc}
# /sbin and /usr/sbin: modinfo and depmod (install-module.sh), which
# Debian keeps there, off a non-root user's PATH.
export PATH="$HOME/.cargo/bin:$PATH:/usr/sbin:/sbin"

log() { printf '[batchprobe] %s\n' "$*" >&2; }
die() { printf '[batchprobe] error: %s\n' "$*" >&2; exit 1; }

bindgen_bin() {
    local b
    for b in "$HOME/.cargo/bin/bindgen" "$(command -v bindgen 2>/dev/null || true)"; do
        [ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return 0; }
    done
    return 1
}

# Kernel releases batchprobe builds for. A flavor is NAME (the 6.12 tree, or
# BP_KVER's) or NAME-KVER (say distro-7.3): flavor_kver and flavor_base split it.
BP_KVERS="6.12 7.3"
flavor_kver() {
    case "$1" in
        *-[0-9]*.[0-9]*) echo "${1##*-}" ;;
        *) echo "${BP_KVER:-6.12}" ;;
    esac
}
flavor_base() {
    case "$1" in
        *-[0-9]*.[0-9]*) echo "${1%-*}" ;;
        *) echo "$1" ;;
    esac
}

# The URI of the Debian archive the system's apt sources use: the entry that
# carries this release's main suite, from the one-line or the deb822 format.
# install-deps.sh fetches newer kernel sources from it, stock-kernel.sh the
# stock image and a chroot's toolchain.
archive_uri() {
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    {
        cat /etc/apt/sources.list 2>/dev/null | awk -v c="$codename" '$1 == "deb" {
            i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
            if ($(i+1) == c) { print $i; exit } }'
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            awk -v c="$codename" 'BEGIN { RS = ""; FS = "\n" } {
                uri = ""; ok = 0
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
                    if ($i ~ /^Suites:/) { n = split($i, a, /[ \t]+/); for (j = 2; j <= n; j++) if (a[j] == c) ok = 1 }
                }
                if (ok && uri != "") print uri }' "$f"
        done
    } | head -1
}
# The Debian source package of kernel release $1: 6.12 is installed from the
# machine's own suites (/usr/src), newer ones are fetched by install-deps.sh
# into the cache (see fetch_source there).
source_deb_dir() { echo "$BP_CACHE/debs"; }

# The clang major version each kernel flavor is built with. A distro-like kernel
# needs clang >= 15 (return thunks and call-depth tracking); the other 6.12
# flavors use Debian 12's default clang (14). 7.3 needs LLVM >= 17, so every
# 7.3 flavor uses clang 19.
flavor_clang() {
    case "$(flavor_kver "$1"):$(flavor_base "$1")" in
        6.12:distro) echo "${BP_DISTRO_CLANG:-19}" ;;
        6.12:*) echo "${BP_CLANG:-14}" ;;
        *) echo "${BP_NEW_CLANG:-19}" ;;
    esac
}

# Sets BP_LLVM (the LLVM= value for make) and exports LIBCLANG_PATH for the
# clang major version $1. bindgen-cli otherwise loads the newest libclang
# installed, which rejects an older clang's kernel flags (and vice versa).
use_clang() {
    local major=$1
    command -v "clang-$major" >/dev/null || die "clang-$major not found (run scripts/install-deps.sh)"
    BP_LLVM=-$major
    export LIBCLANG_PATH=/usr/lib/llvm-$major/lib
}

# The clang major version a built kernel tree was compiled with, from its
# .config (CONFIG_CC_VERSION_TEXT): a module must use its kernel's compiler.
kernel_clang() {
    local text
    text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1/.config" 2>/dev/null)
    case "$text" in
        *clang\ version\ *) sed 's/.*clang version \([0-9]*\).*/\1/' <<<"$text" ;;
        *) die "$1/.config: not built with clang (CONFIG_CC_VERSION_TEXT=\"$text\")" ;;
    esac
}

# kernel_sign_key KDIR: "KEY CERT HASH" when KDIR's kernel checks module
# signatures (CONFIG_MODULE_SIG) and the tree holds the key its own build
# generated (certs/signing_key.pem, CONFIG_MODULE_SIG_KEY's default: a tree
# built here; a distribution's headers, such as Debian's image's, have no
# private key), HASH its CONFIG_MODULE_SIG_HASH; fails otherwise.
kernel_sign_key() {
    local kdir=$1 hash
    grep -qx CONFIG_MODULE_SIG=y "$kdir/.config" 2>/dev/null || return 1
    [ -f "$kdir/certs/signing_key.pem" ] && [ -f "$kdir/certs/signing_key.x509" ] || return 1
    hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kdir/.config")
    echo "$kdir/certs/signing_key.pem $kdir/certs/signing_key.x509 ${hash:-sha512}"
}
# kernel_lockdown_args KDIR: the kernel command line that runs KDIR's kernel
# as a Secure Boot machine runs (lockdown=integrity) and refuses unsigned
# modules (module.sig_enforce=1), where it has the lockdown LSM and its own
# signing key (kernel_sign_key: the modules booted with it are signed);
# nothing otherwise.
kernel_lockdown_args() {
    grep -qx CONFIG_SECURITY_LOCKDOWN_LSM=y "$1/.config" 2>/dev/null || return 0
    kernel_sign_key "$1" > /dev/null || return 0
    echo "lockdown=integrity module.sig_enforce=1"
}

# kernel_toolchain KDIR: the compiler and rustc a module for KDIR must be
# built with, read from KDIR's .config. Sets kcc_args, the make arguments
# naming the compiler: LLVM=-N for a clang-built kernel (and LIBCLANG_PATH
# for bindgen to that clang's libclang), CC=the kernel's own GCC (the first
# word of CONFIG_CC_VERSION_TEXT, x86_64-linux-gnu-gcc-14 for Debian's) for
# a GCC-built one, whose C flags scripts/bindgen-flags.mk filters for
# bindgen. LLVM=, CC= and LIBCLANG_PATH in the environment override.
# Refuses a rustc ($BP_RUSTC) other than the kernel's
# (CONFIG_RUSTC_VERSION_TEXT): the kernel crate's metadata and its exported
# symbols' mangled names are that rustc's.
kernel_toolchain() {
    local kdir=$1 text cc want have user_libclang=${LIBCLANG_PATH:-}
    text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config" 2>/dev/null)
    case "$text" in
        *clang\ version\ *)
            use_clang "$(kernel_clang "$kdir")"
            export LIBCLANG_PATH=${user_libclang:-$LIBCLANG_PATH}
            kcc_args=(LLVM="${LLVM:-$BP_LLVM}") ;;
        *gcc*)
            cc=${CC:-${text%% *}}
            command -v "$cc" >/dev/null \
                || die "$kdir was built with $text: $cc not found (install that GCC, or set CC=)"
            kcc_args=(LLVM= CC="$cc") ;;
        *) die "$kdir/.config: unknown compiler (CONFIG_CC_VERSION_TEXT=\"$text\")" ;;
    esac
    want=$(sed -n 's/^CONFIG_RUSTC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config")
    [ -n "$want" ] || die "$kdir/.config: no CONFIG_RUSTC_VERSION_TEXT (a kernel without Rust support?)"
    have=$("$BP_RUSTC" --version 2>/dev/null) || die "rustc $BP_RUSTC does not run"
    [ "$have" = "$want" ] || die "$kdir was built with \"$want\" but $BP_RUSTC is \"$have\": a Rust module must be built with its kernel's rustc (set BP_RUSTC=)"
}

# What pahole prints while it writes a module's BTF from Rust units' DWARF
# (BTF [M] lines): DWARF tags BTF has no encoding for (template parameters,
# enum variants, methods inside enums) and the functions they leave
# nameless. pahole skips them and the module's BTF is complete for its C
# and the kinds it encodes; the lines are hidden and counted.
BP_PAHOLE_NOISE='^(die__process_function: tag not supported|die__process_class: tag not supported|die__create_new_enumeration: DW_TAG_subprogram .* not handled!|tag__recode_dwarf_type: couldn.t find name for function)'

# What objtool prints about core's own sort when the module is built with
# an older rustc (1.85, Debian's): a `core::slice::sort` instantiation
# (sort_unstable* in our code) whose last instruction is the call to
# core's panic_on_ord_violation (the panic an inconsistent Ord gets), which
# 7.3's objtool does not list as noreturn (is_rust_noreturn in
# tools/objtool/check.c), so it sees the function "fall through" into the
# next. rustc 1.96 lays the same call out before other code, and objtool
# says nothing. Nothing falls through at run time; the lines are hidden and
# counted. Only core's sort functions match: an objtool line about our own
# code still fails the build.
BP_OBJTOOL_NOISE='^[^ ]*\.o: warning: objtool: _R[0-9A-Za-z_]*4core5slice4sort[0-9A-Za-z_]*\(\) falls through to next function'

# kbuild_dir WHAT DIR GENERATED [MAKE ARGS...]: builds the out-of-tree
# modules in DIR against $KDIR with the compiler in kcc_args (set by
# kernel_toolchain) and BINDGEN=$bindgen (set by the caller). Kbuild does not notice that KDIR changed (say from the test
# kernel to the bench kernel): a stamp file does, and then DIR is cleaned
# and GENERATED (bindgen output, "" for none) removed, so no module keeps
# another kernel's struct module. Warnings are errors: an objtool warning
# on Rust code usually means a panic path objtool does not know is
# noreturn, i.e. code that can panic. WHAT names DIR in messages.
kbuild_dir() {
    local what=$1 dir=$2 generated=$3 out rc=0
    shift 3
    if [ "$(cat "$dir/.batchprobe-kdir" 2>/dev/null)" != "$KDIR" ]; then
        make -C "$KDIR" M="$dir" "${kcc_args[@]}" RUSTC="$BP_RUSTC" clean >/dev/null 2>&1 || true
        [ -z "$generated" ] || rm -f "$generated"
        echo "$KDIR" > "$dir/.batchprobe-kdir"
    fi
    out=$(mktemp)
    # pipefail (set by every caller): make's status; grep -v's "printed
    # nothing" does not count.
    make -C "$KDIR" M="$dir" "${kcc_args[@]}" RUSTC="$BP_RUSTC" BINDGEN="$bindgen" "$@" modules 2>&1 \
        | tee "$out" | { grep -v -E -e "$BP_PAHOLE_NOISE" -e "$BP_OBJTOOL_NOISE" >&2 || true; } || rc=1
    if [ "$rc" -eq 0 ] && grep -v -E -e "$BP_PAHOLE_NOISE" -e "$BP_OBJTOOL_NOISE" "$out" | grep -E 'warning:|WARNING:|objtool:' >/dev/null; then rc=2; fi
    local noise
    noise=$(grep -c -E "$BP_PAHOLE_NOISE" "$out" || true)
    [ "$noise" -eq 0 ] || log "$what: $noise lines of pahole's about Rust DWARF hidden (see BP_PAHOLE_NOISE in scripts/lib.sh)"
    noise=$(grep -c -E "$BP_OBJTOOL_NOISE" "$out" || true)
    [ "$noise" -eq 0 ] || log "$what: $noise lines of objtool's about core's sort and panic_on_ord_violation hidden (see BP_OBJTOOL_NOISE in scripts/lib.sh)"
    rm -f "$out"
    [ "$rc" -ne 1 ] || die "$what: build failed"
    [ "$rc" -ne 2 ] || die "$what: the build printed warnings (see above); treat them as errors"
}

# How many guests boot at once (make check's and make bench's): under TCG
# with one thread (run-qemu.sh's default) a guest keeps one host core busy,
# under KVM or multi-threaded TCG one per vCPU. BP_JOBS overrides.
# Usage: guest_jobs SMP ACCEL
guest_jobs() {
    local smp=$1 accel=$2 jobs
    if [ -n "${BP_JOBS:-}" ]; then
        jobs=$BP_JOBS
    elif [ "$accel" = tcg ] && [ "${BP_TCG_THREAD:-single}" = single ]; then
        jobs=$(nproc)
    else
        jobs=$(( $(nproc) / smp ))
    fi
    [ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
    echo "$jobs"
}

# Runs FUNC ITEM for each ITEM in the background, at most JOBS at once, in
# the order given, and waits for them all (their status is not checked:
# each writes its own result).
# Usage: run_at_most JOBS FUNC ITEM...
run_at_most() {
    local jobs=$1 fn=$2 running=0 item p
    local pids=()
    shift 2
    for item in "$@"; do
        if [ "$running" -ge "$jobs" ]; then
            wait -n "${pids[@]}" || true
            running=$((running - 1))
        fi
        "$fn" "$item" &
        pids+=($!)
        running=$((running + 1))
    done
    for p in "${pids[@]}"; do wait "$p" || true; done
}

# boot_mode FLAVOR MODE LOG [QEMU_TIMEOUT]: boots FLAVOR's kernel with our
# initramfs (its module built here, or Debian's image's in the chroot) and
# bp.mode=MODE (the collection's guest-MODE.sh), locked down where the
# flavor boots so; the console in LOG. Fails unless the guest's script
# ended with status 0.
boot_mode() {
    local f=$1 mode=$2 logf=$3 initrd=$BP_ROOT/out/initramfs-$2-$1.cpio.gz kdir image ko
    mkdir -p "$BP_ROOT/out"
    if [ "$(flavor_base "$f")" = stock ]; then
        image=$("$BP_ROOT/scripts/stock-kernel.sh" initramfs "$initrd")
        kdir=$("$BP_ROOT/scripts/stock-kernel.sh" tree)
    else
        kdir=$(KDIR= BP_KERNEL_FLAVOR=$f "$BP_ROOT/scripts/build-kernel.sh")
        ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
        "$BP_ROOT/scripts/build-initramfs.sh" "$initrd" "$ko" "$kdir"
        image=$kdir/arch/x86/boot/bzImage
    fi
    log "$mode on $f: booting (console log: $logf)"
    # shellcheck disable=SC2046
    BP_QUIET=1 BP_TIMEOUT=${4:-900} "$BP_ROOT/scripts/run-qemu.sh" "$image" "$initrd" "$logf" \
        $(kernel_lockdown_args "$kdir") bp.mode="$mode"
    grep -aq 'BATCHPROBE-GUEST-DONE rc=0' "$logf" || die "$mode: the $f guest failed (see $logf)"
}
