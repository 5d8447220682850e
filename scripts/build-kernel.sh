#!/usr/bin/env bash
# Build (once) a batchprobe test kernel from Debian's linux-source-X.Y and the
# committed config fragments. The tree lives in the cache, keyed by the source
# package version and a hash of the fragments and this script, so a rerun is a
# no-op. Prints the kernel tree path (KDIR) on stdout.
# BP_KERNEL_FLAVOR picks the flavor: test (the default), bench, distro or
# debug, optionally with a release suffix (distro-7.3); without one, BP_KVER
# (default 6.12) picks the release. The fragments, each overriding the
# options the ones before it set: batchprobe.config, then FLAVOR.config (not
# for test), then KVER/batchprobe.config and KVER/FLAVOR.config where they
# exist. Each flavor has its own clang (see flavor_clang in lib.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CONFIGS=$BP_ROOT/scripts/config
flavor=${BP_KERNEL_FLAVOR:-test}
kver=$(flavor_kver "$flavor")
base=$(flavor_base "$flavor")
case " $BP_KVERS " in *" $kver "*) ;; *) die "kernel: release $kver is not one of: $BP_KVERS" ;; esac
case "$base" in
    test) name=kernel ;;
    bench|distro|debug) name=kernel-$base ;;
    *) die "kernel: BP_KERNEL_FLAVOR must be test, bench, distro or debug (with -KVER for another release)" ;;
esac
if [ "$kver" = 6.12 ]; then
    TARBALL=/usr/src/linux-source-6.12.tar.xz
    [ -f "$TARBALL" ] || die "$TARBALL missing: run scripts/install-deps.sh"
    pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
else
    # Fetched by install-deps.sh, never installed: the tarball comes out of the .deb.
    deb=$(ls "$(source_deb_dir)"/linux-source-"$kver"_*_all.deb 2>/dev/null | sort -V | tail -1)
    [ -n "$deb" ] || die "linux-source-$kver not fetched: run scripts/install-deps.sh"
    TARBALL=
    pkgver=$(dpkg-deb -f "$deb" Version)
    name=$name-$kver
fi
fragments=("$CONFIGS/batchprobe.config")
[ "$base" = test ] || fragments+=("$CONFIGS/$base.config")
for f in "$CONFIGS/$kver/batchprobe.config" "$CONFIGS/$kver/$base.config"; do
    [ -f "$f" ] && fragments+=("$f")
done
use_clang "$(flavor_clang "$flavor")"
key=$(cat "${fragments[@]}" "$0" <(echo "clang$BP_LLVM") | sha256sum | cut -c1-12)
kdir=$BP_CACHE/$name-$pkgver-$key/linux-source-$kver
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
        if [ -n "$TARBALL" ]; then
            tar -C "${kdir%/*}.tmp" -xf "$TARBALL"
        else
            dpkg-deb --fsys-tarfile "$deb" \
                | tar -xO "./usr/src/linux-source-$kver.tar.xz" \
                | tar -C "${kdir%/*}.tmp" -xJ
        fi
        [ -f "${kdir%/*}.tmp/linux-source-$kver/Makefile" ] || die "kernel: linux-source-$kver.tar.xz did not unpack"
        rm -rf "${kdir%/*}"
        mv "${kdir%/*}.tmp" "${kdir%/*}"
    fi
    # Each fragment overrides what the ones before it set: their
    # `CONFIG_X=...` and `# CONFIG_X is not set` lines for an option it sets
    # go (an option its comments only mention stays), then its lines follow.
    merged=$kdir/../fragment.config
    : > "$merged"
    for f in "${fragments[@]}"; do
        names=$(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' \
            -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$f" | sort -u)
        if [ -n "$names" ]; then
            grep -v -w -F "$names" "$merged" > "$merged.new" || true
            mv "$merged.new" "$merged"
        fi
        cat "$f" >> "$merged"
    done
    log "kernel: configuring $flavor kernel ($kver, tinyconfig + ${fragments[*]#"$CONFIGS"/})"
    kmake tinyconfig >/dev/null
    "$kdir/scripts/kconfig/merge_config.sh" -m -O "$kdir" "$kdir/.config" "$merged" >/dev/null
    kmake olddefconfig >/dev/null
    kmake rustavailable >/dev/null || die "kernel: Rust toolchain not usable (make rustavailable failed)"
    # Every line must hold in the final .config. "# CONFIG_X is not set" also
    # holds where Kconfig hides X altogether (its dependencies fail: 7.3 has
    # no PREEMPT_VOLUNTARY on x86).
    bad=0
    while IFS= read -r line; do
        case "$line" in
            CONFIG_*) grep -qx -- "$line" "$kdir/.config" && continue ;;
            "# CONFIG_"*" is not set")
                opt=${line#"# "}; opt=${opt%" is not set"}
                grep -q "^$opt=" "$kdir/.config" || continue ;;
            *) continue ;;
        esac
        log "kernel: config did not take: $line"; bad=1
    done < "$merged"
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
