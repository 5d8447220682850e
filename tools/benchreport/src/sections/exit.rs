// SPDX-License-Identifier: GPL-2.0

//! Exit sets: the exit trampoline against kretprobes and fprobes.

use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::tables::*;

/// Writes the entry + exit section: the exit trampoline against the other ways.
pub(crate) fn exit_section(o: &mut String, b: &Bench, sum: &Summary) {
    if !sum
        .keys()
        .any(|k| EXIT_METHODS.contains(&k.0.as_str()) && k.1 != "per_call")
    {
        // A per-call run alone (BP_BENCH_ONLY=percall): its table only.
        if sum.keys().any(|k| k.0 == "exit" && k.1 == "per_call") {
            let _ = writeln!(o, "## Entry and exit, per call");
            exit_per_call(o, sum);
        }
        return;
    }
    exit_intro(o, b);
    phase_table(
        o,
        b,
        sum,
        "Entry + exit phase times, ms: median [min–max]",
        &EXIT_METHODS,
        &EXIT_PHASES,
    );
    exit_speedups(o, b, sum);
    exit_goals(o, sum);
    exit_per_call(o, sum);
}

/// Writes the section's heading and what each way is.
fn exit_intro(o: &mut String, b: &Bench) {
    let info = |k: &str| b.info.get(k).cloned().unwrap_or_else(|| "?".into());
    let _ = writeln!(
        o,
        "## Entry and exit on N functions\n\nThe same N functions each way: ftrace-able, \
         kprobe-able, unique names, that the exit trampoline accepts ({} such functions \
         here). `exit` is one batchprobe set made with `--exit`: the entry + exit \
         trampoline on all N, one `ftrace_ops`, one `register_ftrace_direct` (one \
         text-patching pass). `fprobe-exit` is a set of `p:` and `r:` lines: its fprobe \
         with entry and exit handlers (rethook). `entry-kretprobe` is a direct entry \
         (`d:`) plus a kretprobe (`r!:`) per function, armed at `enable` (ftrace-based \
         kprobes at +0: one filter update and patching pass each). \
         `exit-ops-per-function` is the exit trampoline with one `ftrace_ops` per \
         function. `attach` is the wall time of the write `create; enable`, `detach` \
         that of `unregister --sync`. Over budget: projected past {} s for one run.\n",
        info("exit_candidates"),
        info("budget_s")
    );
}

/// Writes the table of how many times longer each way takes than `exit`.
fn exit_speedups(o: &mut String, b: &Bench, sum: &Summary) {
    // How many times longer each way takes than `exit` (the reverse of
    // speedup_table's base / method).
    let ns = sizes(sum, b, &EXIT_METHODS);
    let has = |m: &str, p: &str, n| median(sum, m, p, n).is_some();
    let cell = |m: &str, p: &str, n| match speedup(median(sum, m, p, n), median(sum, "exit", p, n))
    {
        Some(r) => format!("{r:.1}×"),
        None => "–".into(),
    };
    table(
        o,
        "Speed-up of `exit` over each way (method median / exit median)",
        &ns,
        (&EXIT_METHODS[1..], &EXIT_PHASES),
        has,
        cell,
    );
}

/// Writes the goals at 1000 functions, those measured.
fn exit_goals(o: &mut String, sum: &Summary) {
    let x1000 = median(sum, "exit", "attach", 1000);
    let k1000 = median(sum, "entry-kretprobe", "attach", 1000);
    let f1000 = median(sum, "fprobe-exit", "attach", 1000);
    if x1000.is_some() && (k1000.is_some() || f1000.is_some()) {
        let _ = writeln!(o, "Goals (attach 1000):\n");
    }
    if let (Some(x), Some(k)) = (x1000, k1000) {
        let r = k / x;
        let _ = writeln!(
            o,
            "- vs entry + 1000 kretprobes: {} ms vs {} ms = **{r:.0}×** (goal ≥ 10×: {}).",
            fmt_ms(x),
            fmt_ms(k),
            if r >= 10.0 { "met" } else { "not met" }
        );
    }
    if let (Some(x), Some(a)) = (x1000, median(sum, "exit-api", "attach", 1000)) {
        let _ = writeln!(
            o,
            "- the in-kernel API's entry + exit kind (`exit-api`, the C sample client's \
             BATCHPROBE_DIRECT_EXIT set) vs a control-file exit set: {} ms vs {} ms = {:.2}× \
             (goal: as fast, ≤ 1.1×: {}).",
            fmt_ms(a),
            fmt_ms(x),
            a / x,
            if a / x <= 1.1 { "met" } else { "not met" }
        );
    }
    if let (Some(x), Some(f)) = (x1000, f1000) {
        let _ = writeln!(
            o,
            "- vs fprobe entry + exit: {} ms vs {} ms (goal: no slower: {}).",
            fmt_ms(x),
            fmt_ms(f),
            if x <= f { "met" } else { "not met" }
        );
    }
}

/// Writes the per-call cost of each way on `getppid()`.
fn exit_per_call(o: &mut String, sum: &Summary) {
    let _ = writeln!(
        o,
        "\nPer call on `getppid()` (a tight loop), each way on `__x64_sys_getppid` alone, \
         against the unprobed call; `direct-entry` is the entry-only counting trampoline, \
         `exit-hist` the exit set with `--hist` (durations in a log2 histogram), \
         `exit-hist-errors` with `--errors` too:\n\n\
         | config | ns per call: median [min–max] | × unprobed |\n| --- | ---: | ---: |"
    );
    per_call_rows(
        o,
        sum,
        "no-probe",
        &[
            "no-probe",
            "direct-entry",
            "exit",
            "exit-hist",
            "exit-hist-errors",
            "fprobe-exit",
            "entry-kretprobe",
        ],
    );
    // The aggregates' goal: the histogram path within 1.2× of counting,
    // as a whole call and as the cost the probe adds to it.
    let m = |k: &str| median(sum, k, "per_call", 1);
    if let (Some(base), Some(x), Some(h)) = (m("no-probe"), m("exit"), m("exit-hist")) {
        let whole = h / x;
        let added = (h - base) / (x - base);
        let _ = writeln!(
            o,
            "- `--hist` vs counting: {h:.0} vs {x:.0} ns per call = {whole:.2}× \
             (the probe's own cost: {added:.2}×; goal ≤ 1.2×: {}).\n",
            if whole <= 1.2 { "met" } else { "not met" }
        );
    }
}
