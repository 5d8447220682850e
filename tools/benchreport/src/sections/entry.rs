// SPDX-License-Identifier: GPL-2.0

//! Entry-only sets: the backends a set of entry probes can take.

use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::tables::*;

/// Arm + disarm, ms: batchprobe's `enable` + `disarm`, tracefs's
/// `enable` + `disable` (its disable is the physical disarm).
pub(crate) fn arm_disarm(sum: &Summary, method: &str, n: u64) -> Option<f64> {
    let off = if method == "entry-tracefs" {
        "disable"
    } else {
        "disarm"
    };
    Some(median(sum, method, "enable", n)? + median(sum, method, off, n)?)
}

pub(crate) fn entry_section(o: &mut String, b: &Bench, sum: &Summary) {
    if !sum.keys().any(|k| ENTRY_METHODS.contains(&k.0.as_str())) {
        return;
    }
    let _ = writeln!(
        o,
        "## Entry probes at +0: kprobes or one fprobe\n\nThe same N functions each way: \
         ftrace-able, core kernel, unique names, not on the kprobe blacklist, no `lock`; \
         `entry-tracefs` registers them with `kprobe_events` until N are accepted, and the \
         batchprobe methods take exactly those. `entry-tracefs` and `entry-kprobe` (`p!:`) \
         are kprobes at +0, which on ftrace-able functions are ftrace-based: one filter \
         update and one text-patching pass each to arm and again to disarm. `entry-auto` \
         (`p:`) is batchprobe's automatic choice: one fprobe for the set, one \
         `register_fprobe_ips` (one patching pass) to arm, one `unregister_fprobe` to \
         disarm. batchprobe's `disable` only closes the set's gate; `disarm` is the \
         physical disarm on the workqueue. `entry-auto`'s `register` includes one walk of \
         the kernel's text symbols (choosing needs each function's address), where \
         `p!:` lines are resolved by the kernel by name. The largest N is every such \
         function, for `entry-auto` only.\n"
    );
    phase_table(
        o,
        b,
        sum,
        "Entry-probe phase times, ms: median [min–max]",
        &ENTRY_METHODS,
        &ENTRY_PHASES,
    );
    speedup_table(
        o,
        b,
        sum,
        "Entry-probe speed-up over batchprobe's kprobes (entry-kprobe median / method median)",
        "entry-kprobe",
        &ENTRY_METHODS[2..],
        &ENTRY_PHASES,
        |_, p| Some(p),
    );
    let _ = writeln!(o, "Goals (arm + disarm, `entry-kprobe` / `entry-auto`):\n");
    for (n, want) in [(256u64, 10.0), (4096, 50.0)] {
        if let (Some(k), Some(a)) = (
            arm_disarm(sum, "entry-kprobe", n),
            arm_disarm(sum, "entry-auto", n),
        ) {
            let r = k / a;
            let _ = writeln!(
                o,
                "- N = {n}: {} ms vs {} ms = **{r:.0}×** (goal ≥ {want:.0}×: {}).",
                fmt_ms(k),
                fmt_ms(a),
                if r >= want { "met" } else { "not met" }
            );
        }
    }
    o.push('\n');
}
