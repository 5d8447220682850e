#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the sample in-kernel API clients (clients/c, clients/rust), the
# API example of docs/api.md and the selftests' helper modules (selftests/modules)
# against KDIR and batchprobe's Module.symvers (KBUILD_EXTRA_SYMBOLS), with
# the kernel's own compiler, as build-module.sh builds batchprobe.ko (run
# that first). Prints the paths of the modules the selftests load.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -n "${KDIR:-}" ] || KDIR=$("$BP_ROOT/scripts/build-kernel.sh")
[ -f "$BP_ROOT/Module.symvers" ] || die "clients: build batchprobe.ko first (no Module.symvers)"
grep -q batchprobe_create "$BP_ROOT/Module.symvers" \
    || die "clients: Module.symvers lacks batchprobe_create"
bindgen=$(bindgen_bin) || die "clients: bindgen not found (run scripts/install-deps.sh)"
kernel_toolchain "$KDIR"
# docs/api.md's example, compiled as shown (plus a module_init calling it).
readme=$BP_ROOT/out/readme-example
mkdir -p "$readme"
awk '/^## In-kernel API/ { a = 1 } a && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' \
    "$BP_ROOT/docs/api.md" > "$readme/readme_example.c"
grep -q batchprobe_create "$readme/readme_example.c" || die "clients: no API example in docs/api.md"
cat >> "$readme/readme_example.c" <<'EOF'

/* Appended by scripts/build-clients.sh: docs/api.md's example as a module. */
static int __init readme_example_init(void)
{
	return start();
}
module_init(readme_example_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("The README's in-kernel API example");
EOF
printf 'obj-m := readme_example.o\nccflags-y += -I%s/include\n' "$BP_ROOT" > "$readme/Kbuild"
for dir in "$BP_ROOT/clients/c" "$BP_ROOT/clients/rust" "$readme" "$BP_ROOT/selftests/modules/bp_foreign"; do
    gen=""
    [ -f "$dir/batchprobe_api.rs" ] && gen=$dir/batchprobe_bindings.rs
    kbuild_dir "clients: ${dir#"$BP_ROOT"/}" "$dir" "$gen" \
        KBUILD_EXTRA_SYMBOLS="$BP_ROOT/Module.symvers" "$@"
done
ls "$BP_ROOT/clients/c/bpclient_c.ko" "$BP_ROOT/clients/rust/bpclient_rs.ko" \
    "$BP_ROOT/selftests/modules/bp_foreign/bp_foreign.ko"
