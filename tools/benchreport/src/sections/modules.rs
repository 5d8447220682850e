// SPDX-License-Identifier: GPL-2.0

//! A module's functions: ext4's on Debian's image (`module_peers` in
//! selftests/bench_lib.sh).

use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::tables::*;

/// One `p:` line over a module against one kprobe_multi link on its
/// functions, int3 kprobes and direct calls, in the same boot.
pub(crate) fn modules_section(o: &mut String, b: &Bench, sum: &Summary) {
    if !sum.keys().any(|k| MOD_METHODS.contains(&k.0.as_str())) {
        return;
    }
    let info = |k: &str| b.info.get(k).cloned().unwrap_or_else(|| "?".into());
    let _ = writeln!(
        o,
        "## A module's functions\n\next4's, on the image's own ext4 module (loaded in the \
         guest with `modprobe`: {} of its text symbols), as a user counts them: \
         `mod-bp-fprobe` is batchprobe's line `p:SET/ ext4:ext4_*` (`batchprobe count \
         'ext4:ext4_*'`), its members the {} `ext4_*` functions ftrace traces, fprobes, the set \
         holding ext4 loaded until it is unregistered; `mod-kprobe-multi` one kprobe_multi link \
         on their names (bpftrace's `kprobe:ext4:ext4_*`; {} names, each once: got says how \
         many it attached); `mod-bp-int3` the same line as int3 kprobes (`p!:`, what every \
         member was before fprobes served them: one ftrace update each); `mod-bp-direct` as \
         direct calls (`d:`). `attach` is batchprobe's staging write plus `create; enable`, \
         or BPF's load plus link; `detach` the `unregister --sync` write, or closing the link. \
         The methods take turns within each of {} repeats.\n",
        info("mod_kallsyms"),
        info("mod_functions"),
        info("mod_names"),
        info("mod_runs"),
    );
    phase_table(
        o,
        b,
        sum,
        "ms: median [min–max]",
        &MOD_METHODS,
        &EXIT_PHASES,
    );
    let base = "mod-bp-fprobe";
    let others: Vec<&str> = MOD_METHODS.iter().copied().filter(|m| *m != base).collect();
    let ns = sizes(sum, b, &MOD_METHODS);
    let has = |m: &str, p: &str, n| median(sum, m, p, n).is_some();
    let cell = |m: &str, p: &str, n| match speedup(median(sum, m, p, n), median(sum, base, p, n)) {
        Some(r) => format!("{r:.2}×"),
        None => "–".into(),
    };
    table(
        o,
        "Each way's median / the p: line's (×, above 1: the p: line faster)",
        &ns,
        (&others, &EXIT_PHASES),
        has,
        cell,
    );
}
