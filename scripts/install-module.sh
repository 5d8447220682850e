#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make sign | make install | make uninstall, for the kernel the module was
# built against (KDIR, as build-module.sh resolves it; run `make module`
# first).
#
#   sign [MODULE.ko...]
#              BP_SIGN_KEY=KEY.pem BP_SIGN_CERT=CERT(.der|.pem): signs the
#              modules given, by default batchprobe.ko and the sample
#              clients where built, with the
#              kernel's own scripts/sign-file (built from KDIR's source when
#              the tree has none), hash BP_SIGN_HASH (sha256). A Secure Boot
#              machine loads it once CERT is enrolled as a Machine Owner Key
#              (README, "Installing, signing, Secure Boot").
#   install    signs first when BP_SIGN_KEY is set; then, as modules_install
#              lays it out, batchprobe.ko into
#              $INSTALL_MOD_PATH/lib/modules/RELEASE/updates/ (with
#              INSTALL_MOD_STRIP, as kbuild's: stripped there, 1 meaning
#              --strip-debug, then signed) and depmod, so
#              that `modprobe batchprobe` finds it; include/batchprobe.h into
#              $DESTDIR$PREFIX/include/batchprobe/ (a client's Kbuild adds
#              that directory alone: ccflags-y += -I...) and the module's
#              Module.symvers into $DESTDIR$PREFIX/share/batchprobe/RELEASE/
#              (its KBUILD_EXTRA_SYMBOLS); the batchprobe command
#              (scripts/build-cli.sh) into $DESTDIR$PREFIX/sbin/ and its man
#              pages (batchprobe(8), batchprobe-count(8), ...) into
#              $DESTDIR$PREFIX/share/man/man8/; batchprobe.service (not
#              enabled: it applies /etc/batchprobe.d/*.batch at boot) into
#              $DESTDIR$PREFIX/lib/systemd/system/ and examples for
#              /etc/modules-load.d, /etc/modprobe.d and /etc/batchprobe.d
#              into $DESTDIR$PREFIX/share/batchprobe/examples/ (contrib/).
#              PREFIX: /usr/local.
#   uninstall  removes what install put there, and runs depmod.
#   unsign MODULE.ko...
#              removes an appended signature, where there is one.
#
# BP_KO names another batchprobe.ko to sign and install (build-initramfs.sh:
# the guest's copy).
# RELEASE is the one batchprobe.ko was built for (its vermagic's first
# word); installing for another than the running kernel's says so. The copy is install(1)'s, not kbuild's
# modules_install: that one would also sign (or fail to sign) with the
# kernel tree's own key where its config says CONFIG_MODULE_SIG_ALL, which a
# distribution's headers have without the key.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:?usage: install-module.sh sign|unsign|install|uninstall}
[ -n "${KDIR:-}" ] || KDIR=$("$BP_ROOT/scripts/build-kernel.sh")
[ -f "$KDIR/Makefile" ] || die "$what: KDIR=$KDIR is not a kernel tree"
ko=${BP_KO:-$BP_ROOT/batchprobe.ko}
[ -f "$ko" ] || die "$what: no $ko (make module first)"
release=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
[ -n "$release" ] || die "$what: batchprobe.ko has no vermagic"
prefix=${PREFIX:-/usr/local}
moddir=${INSTALL_MOD_PATH:-}/lib/modules/$release
shared=${DESTDIR:-}$prefix/share/batchprobe/$release
header=${DESTDIR:-}$prefix/include/batchprobe/batchprobe.h
cli=${DESTDIR:-}$prefix/sbin/batchprobe
man=${DESTDIR:-}$prefix/share/man/man8
unit=${DESTDIR:-}$prefix/lib/systemd/system/batchprobe.service
examples=${DESTDIR:-}$prefix/share/batchprobe/examples

# sign-file: the tree's, or built from its source with the host's libcrypto.
sign_file() {
    local tool=$KDIR/scripts/sign-file built
    built=$BP_ROOT/out/sign-file-$(printf %s "$KDIR" | md5sum | cut -c1-12)
    if [ -x "$tool" ]; then echo "$tool"; return; fi
    [ -f "$KDIR/scripts/sign-file.c" ] || die "sign: $KDIR has neither scripts/sign-file nor its source"
    mkdir -p "$BP_ROOT/out"
    if [ ! -x "$built" ] || [ "$KDIR/scripts/sign-file.c" -nt "$built" ]; then
        # scripts/Makefile's flags: libcrypto's, and the tools' uapi copy
        # (7.3's sign-file includes <linux/module_signature.h> from it).
        cc -O2 -I"$KDIR/tools/include/uapi" -o "$built" "$KDIR/scripts/sign-file.c" -lcrypto ||
            die "sign: building sign-file failed (libssl-dev: scripts/install-deps.sh)"
    fi
    echo "$built"
}

sign() {
    [ -n "${BP_SIGN_KEY:-}" ] && [ -n "${BP_SIGN_CERT:-}" ] ||
        die "sign: set BP_SIGN_KEY (private key, PEM) and BP_SIGN_CERT (its X.509 certificate, DER or PEM)"
    [ -r "$BP_SIGN_KEY" ] && [ -r "$BP_SIGN_CERT" ] || die "sign: cannot read $BP_SIGN_KEY or $BP_SIGN_CERT"
    local tool m
    tool=$(sign_file)
    [ $# -gt 0 ] || set -- "$ko" "$BP_ROOT/clients/c/bpclient_c.ko" "$BP_ROOT/clients/rust/bpclient_rs.ko"
    for m in "$@"; do
        [ -f "$m" ] || continue
        # sign-file appends a signature: strip an earlier one first, as
        # re-signing a signed module would sign the old signature too.
        strip_signature "$m"
        "$tool" "${BP_SIGN_HASH:-sha256}" "$BP_SIGN_KEY" "$BP_SIGN_CERT" "$m" || die "sign: $m failed"
        log "sign: ${m#"$BP_ROOT"/} signed ($(modinfo -F signer "$m" 2>/dev/null || echo '?'))"
    done
}

# is_signed MODULE.ko: it ends with an appended signature.
is_signed() {
    [ "$(tail -c 28 "$1" | head -c 27 | tr -d '\0')" = '~Module signature appended~' ]
}

# A module's appended signature ends with "~Module signature appended~\n";
# the 12 bytes before that magic say the signature's length
# (struct module_signature: 8 bytes, then a big-endian u32). Removed if there.
strip_signature() {
    local m=$1 size siglen
    size=$(stat -c %s "$m")
    is_signed "$m" || return 0
    siglen=$(tail -c 40 "$m" | head -c 12 | tail -c 4 | od -An -tu1 |
        awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
    [ "$siglen" -gt 0 ] && [ "$siglen" -lt $((size - 40)) ] ||
        die "sign: $m ends with a signature marker but a bad length ($siglen)"
    truncate -s $((size - 40 - siglen)) "$m"
}

install_all() {
    if [ -z "${INSTALL_MOD_PATH:-}" ] && [ "$release" != "$(uname -r)" ]; then
        log "install: batchprobe.ko is built for $release, this machine runs $(uname -r)"
    fi
    local dest=$moddir/updates/batchprobe.ko
    if [ -n "${INSTALL_MOD_STRIP:-}" ]; then
        # kbuild's modules_install convention: INSTALL_MOD_STRIP=1 strips
        # the debug info (--strip-debug), any other value is strip's
        # options. The installed copy is stripped, then signed (strip drops
        # an appended signature, and one made before would not match).
        if is_signed "$ko" && [ -z "${BP_SIGN_KEY:-}" ]; then
            die "install: $ko is signed, and INSTALL_MOD_STRIP would drop its signature: set BP_SIGN_KEY and BP_SIGN_CERT to sign the stripped copy, or install without INSTALL_MOD_STRIP"
        fi
        install -D -m 0644 "$ko" "$dest"
        strip_signature "$dest"
        local opts=--strip-debug
        [ "$INSTALL_MOD_STRIP" = 1 ] || opts=$INSTALL_MOD_STRIP
        # shellcheck disable=SC2086
        "${STRIP:-strip}" $opts "$dest" || die "install: strip $opts $dest failed"
        [ -z "${BP_SIGN_KEY:-}" ] || sign "$dest"
    else
        [ -z "${BP_SIGN_KEY:-}" ] || sign
        install -D -m 0644 "$ko" "$dest"
    fi
    install -D -m 0644 "$BP_ROOT/include/batchprobe.h" "$header"
    # The module's exports for clients' builds, from the build beside it.
    local symvers=", $shared/Module.symvers"
    if [ -f "$(dirname "$ko")/Module.symvers" ]; then
        install -D -m 0644 "$(dirname "$ko")/Module.symvers" "$shared/Module.symvers"
    else
        log "install: no Module.symvers beside $ko: none installed"
        symvers=
    fi
    # The batchprobe command (tools/batchprobe) and its man page, which
    # the command writes itself (clap_mangen).
    local bin
    bin=$("$BP_ROOT/scripts/build-cli.sh")
    install -D -m 0755 "$bin" "$cli"
    mkdir -p "$man"
    "$bin" man --dir "$man"
    # batchprobe.service (not enabled) and the examples for
    # /etc/modules-load.d, /etc/modprobe.d and /etc/batchprobe.d.
    install -d "$(dirname "$unit")" "$examples"
    sed "s|@PREFIX@|$prefix|g" "$BP_ROOT/contrib/systemd/batchprobe.service" > "$unit"
    chmod 0644 "$unit"
    install -m 0644 "$BP_ROOT/contrib/modules-load/batchprobe.conf" "$examples/modules-load.d-batchprobe.conf"
    install -m 0644 "$BP_ROOT/contrib/modprobe/batchprobe.conf" "$examples/modprobe.d-batchprobe.conf"
    install -m 0644 "$BP_ROOT/contrib/batchprobe-d/example.batch" "$examples/example.batch"
    depmod_run
    log "install: $moddir/updates/batchprobe.ko ($release), $header$symvers, $cli, $man/batchprobe*.8, $unit, $examples"
}

uninstall_all() {
    rm -f "$moddir/updates/batchprobe.ko" "$header" "$shared/Module.symvers" "$cli" "$man"/batchprobe.8 "$man"/batchprobe-*.8 "$unit" \
        "$examples"/modules-load.d-batchprobe.conf "$examples"/modprobe.d-batchprobe.conf "$examples"/example.batch
    rmdir "$examples" "$shared" "$(dirname "$shared")" "$(dirname "$header")" "$moddir/updates" 2>/dev/null || true
    depmod_run
    log "uninstall: batchprobe removed from $moddir ($release)"
}

depmod_run() {
    if [ -n "${INSTALL_MOD_PATH:-}" ]; then
        depmod -b "$INSTALL_MOD_PATH" "$release"
    else
        depmod "$release"
    fi
}

case $what in
    sign) shift; sign "$@" ;;
    unsign) shift; for m in "$@"; do strip_signature "$m"; done ;;
    install) install_all ;;
    uninstall) uninstall_all ;;
    *) die "usage: install-module.sh sign|unsign|install|uninstall" ;;
esac
