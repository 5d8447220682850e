#!/usr/bin/env bash
# Build (once) the batchprobe test kernel from Debian's linux-source-6.12 and the
# committed config fragment. The tree lives in the cache, keyed by the source
# package version and a hash of the fragment and this script, so a rerun is a
# no-op. Prints the kernel tree path (KDIR) on stdout.
# BP_KERNEL_FLAVOR picks the flavor: test (the default), bench, distro or debug,
# each the base fragment with scripts/config/FLAVOR.config's lines taking
# precedence. Each flavor has its own clang (see flavor_clang in lib.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CONFIGS=$BP_ROOT/scripts/config
FRAGMENT=$CONFIGS/batchprobe.config
TARBALL=/usr/src/linux-source-6.12.tar.xz
[ -f "$TARBALL" ] || die "$TARBALL missing: run scripts/install-deps.sh"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
flavor=${BP_KERNEL_FLAVOR:-test}
case "$flavor" in
    test) extra= ; name=kernel ;;
    bench|distro|debug) extra=$CONFIGS/$flavor.config; name=kernel-$flavor ;;
    *) die "kernel: BP_KERNEL_FLAVOR must be test, bench, distro or debug" ;;
esac
use_clang "$(flavor_clang "$flavor")"
key=$(cat "$FRAGMENT" ${extra:+"$extra"} "$0" <(echo "clang$BP_LLVM") | sha256sum | cut -c1-12)
kdir=$BP_CACHE/$name-$pkgver-$key/linux-source-6.12
stamp=$kdir/.batchprobe-built

if [ -f "$stamp" ]; then
    log "kernel: cached at $kdir"
    echo "$kdir"
    exit 0
fi

mkdir -p "$BP_CACHE"
exec 9>"$BP_CACHE/.kernel.lock"
flock 9

kmake() { make -C "$kdir" -s LLVM="$BP_LLVM" RUSTC="$BP_RUSTC" BINDGEN="$(bindgen_bin)" "$@"; }

if [ ! -f "$stamp" ]; then
    if [ ! -f "$kdir/Makefile" ]; then
        log "kernel: unpacking linux-source $pkgver"
        rm -rf "${kdir%/*}.tmp"
        mkdir -p "${kdir%/*}.tmp"
        tar -C "${kdir%/*}.tmp" -xf "$TARBALL"
        rm -rf "${kdir%/*}"
        mv "${kdir%/*}.tmp" "${kdir%/*}"
    fi
    if [ -n "$extra" ]; then
        # The base fragment minus what the flavor's fragment sets (its
        # `CONFIG_X=...` and `# CONFIG_X is not set` lines; an option its
        # comments only mention stays), then it.
        names=$(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' \
            -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$extra" | sort -u)
        if [ -n "$names" ]; then
            grep -v -w -F "$names" "$FRAGMENT" > "$kdir/../fragment.config" || true
        else
            cp "$FRAGMENT" "$kdir/../fragment.config"
        fi
        cat "$extra" >> "$kdir/../fragment.config"
        FRAGMENT=$kdir/../fragment.config
    fi
    log "kernel: configuring $flavor kernel (tinyconfig + $(basename "$FRAGMENT"))"
    kmake tinyconfig >/dev/null
    "$kdir/scripts/kconfig/merge_config.sh" -m -O "$kdir" "$kdir/.config" "$FRAGMENT" >/dev/null
    kmake olddefconfig >/dev/null
    kmake rustavailable >/dev/null || die "kernel: Rust toolchain not usable (make rustavailable failed)"
    bad=0
    while IFS= read -r line; do
        case "$line" in CONFIG_*|"# CONFIG_"*" is not set") ;; *) continue ;; esac
        grep -qx -- "$line" "$kdir/.config" || { log "kernel: config did not take: $line"; bad=1; }
    done < "$FRAGMENT"
    [ "$bad" -eq 0 ] || die "kernel: config fragment not satisfied (see above)"
    log "kernel: building $flavor with clang-${BP_LLVM#-}, $(nproc) jobs (a cold build takes several minutes)"
    start=$(date +%s)
    kmake -j"$(nproc)" >"$kdir/../build.log" 2>&1 \
        || { tail -40 "$kdir/../build.log" >&2; die "kernel: build failed (log: $kdir/../build.log)"; }
    log "kernel: built in $(( $(date +%s) - start )) s"
    [ -f "$kdir/Module.symvers" ] || die "kernel: Module.symvers missing after build"
    touch "$stamp"
fi
echo "$kdir"
