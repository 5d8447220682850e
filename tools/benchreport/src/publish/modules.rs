// SPDX-License-Identifier: GPL-2.0

//! A module's functions: one `p:` line over a module (ext4 on Debian's
//! image) against one kprobe_multi link on the same functions, and the same
//! line as int3 kprobes and as direct calls.

use std::fmt::Write as _;

use super::kprobes::cell_of;
use super::Run;
use crate::methods::MOD_METHODS;
use crate::tables::sizes;

/// What a reader calls each way.
fn label(method: &str) -> &str {
    match method {
        "mod-bp-fprobe" => "batchprobe, `p:SET/ ext4:ext4_*` (fprobes)",
        "mod-kprobe-multi" => "one kprobe_multi link (`kprobe:ext4:ext4_*`)",
        "mod-bp-direct" => "batchprobe, `d:SET/ ext4:ext4_*` (direct calls)",
        "mod-bp-int3" => "batchprobe, `p!:SET/ ext4:ext4_*` (int3 kprobes)",
        m => m,
    }
}

/// Whether the run measured a module's functions.
pub(crate) fn has(r: &Run) -> bool {
    r.sum
        .keys()
        .any(|k| k.1 == "attach" && MOD_METHODS.contains(&k.0.as_str()))
}

/// The table: attach and detach per way, and the kprobe_multi link's
/// median over each (above 1: that way faster than the link).
pub(crate) fn section(o: &mut String, r: &Run) {
    if !has(r) {
        return;
    }
    let _ = writeln!(
        o,
        "### A module's functions: one line over ext4 against kprobe_multi\n\n\
         Counting calls on ext4's functions, the image's own module loaded in the guest \
         ({} text symbols): the {} `ext4_*` functions ftrace traces, as batchprobe's line \
         over the module takes them and as one kprobe_multi link takes their {} names. The \
         fprobes and the direct calls hold ext4 loaded until the set is unregistered (as the \
         link does); the int3 kprobes, what every member was before, pay one ftrace update each. \
         *attach*: the staging write plus `create; enable`, or the programs' load plus the \
         link; *detach*: `unregister --sync`, or closing the link. *×* is the kprobe_multi \
         link's median over the way's (above 1: batchprobe faster). {} runs, the ways \
         taking turns, warm (the module loaded and used before in the boot).\n",
        r.info("mod_kallsyms"),
        r.info("mod_functions"),
        r.info("mod_names"),
        r.info("mod_runs"),
    );
    let _ = writeln!(
        o,
        "| N | way | attach (ms) | detach (ms) | × the kprobe_multi link: attach, detach |\n\
         | ---: | --- | ---: | ---: | ---: |"
    );
    let base = "mod-kprobe-multi";
    for n in sizes(&r.sum, &r.b, &MOD_METHODS) {
        for m in MOD_METHODS {
            if !r.sum.keys().any(|k| k.0 == m && k.2 == n) {
                continue;
            }
            let shown = |phase: &str| match r.live(m, phase, n) {
                Ok(_) => cell_of(r, m, phase, n),
                Err(e) => e,
            };
            let ratio = |phase: &str| match (r.live(base, phase, n), r.live(m, phase, n)) {
                (Ok(b), Ok(x)) if x > 0.0 => format!("{:.2}×", b / x),
                _ => "–".into(),
            };
            let _ = writeln!(
                o,
                "| {n} | {} | {} | {} | {}, {} |",
                label(m),
                shown("attach"),
                shown("detach"),
                ratio("attach"),
                ratio("detach")
            );
        }
    }
    o.push('\n');
}
