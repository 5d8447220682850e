// SPDX-License-Identifier: GPL-2.0

//! The goals the benchmark is judged by, and the cost per hit.

use std::fmt::Write as _;

use benchreport::*;

use crate::sections::gp::*;
use crate::tables::*;

/// Writes the kprobe goals, then the per-probe cost of register and enable.
pub(crate) fn goals(o: &mut String, sum: &Summary, gp: &GpSummary, ns: &[u64]) {
    let _ = writeln!(o, "## Goals\n");
    call_goal(o, sum, ns);
    grace_periods(o, gp, ns);
    removal_goals(o, sum, ns);
    per_probe_table(o, sum, ns);
    o.push('\n');
}

/// Writes the goal of the `unregister` write returning within 1 ms.
fn call_goal(o: &mut String, sum: &Summary, ns: &[u64]) {
    let slowest_call = ns
        .iter()
        .filter_map(|&n| median(sum, "batchprobe", "unregister_call", n).map(|v| (v, n)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((v, n)) = slowest_call {
        let _ = writeln!(
            o,
            "- The `unregister` write returns in ≤ 1 ms: slowest median {} ms (N={n}) ({}).",
            fmt_ms(v),
            if v <= 1e6 { "met" } else { "not met" }
        );
    }
}

/// Writes the grace periods batchprobe's enable and teardown waited for at the largest N.
fn grace_periods(o: &mut String, gp: &GpSummary, ns: &[u64]) {
    if let Some(&l) = ns.iter().max() {
        for p in ["enable", "teardown"] {
            if let Some(c) = gp_cell(gp, "batchprobe", p, l) {
                let _ = writeln!(
                    o,
                    "- Grace periods (rcu/rcu_tasks/rcu_tasks_rude) batchprobe's {p} of {l} \
                     probes waited for: {c}."
                );
            }
        }
    }
}

/// Writes the goals of removing faster than tracefs and of growing slowly with N.
fn removal_goals(o: &mut String, sum: &Summary, ns: &[u64]) {
    let r256 = speedup(
        median(sum, "tracefs", "unregister_complete", 256),
        median(sum, "batchprobe", "unregister_complete", 256),
    );
    let _ = match r256 {
        Some(r) => writeln!(
            o,
            "- Remove 256 probes ≥ 100× faster than tracefs: **{r:.0}×** ({}).",
            if r >= 100.0 { "met" } else { "not met" }
        ),
        None => writeln!(
            o,
            "- Remove 256 probes ≥ 100× faster than tracefs: not measured."
        ),
    };
    let largest = ns
        .iter()
        .copied()
        .filter(|&n| median(sum, "batchprobe", "disable", n).is_some())
        .max();
    for p in ["disable", "teardown", "unregister_complete"] {
        if let (Some(l), Some(base)) = (largest, median(sum, "batchprobe", p, 256)) {
            if let Some(v) = median(sum, "batchprobe", p, l) {
                let g = v / base;
                let _ = writeln!(
                    o,
                    "- batchprobe {p} at N={l} is **{g:.2}×** its time at N=256 (goal ≤ 4×: {}).",
                    if g <= 4.0 { "met" } else { "not met" }
                );
            }
        }
    }
}

/// Writes the table of register's and enable's cost per probe, µs.
fn per_probe_table(o: &mut String, sum: &Summary, ns: &[u64]) {
    let _ = writeln!(
        o,
        "\nPer-probe cost of register and enable (µs per probe, median):\n"
    );
    table_columns(o, ns);
    for m in ["tracefs", "batchprobe"] {
        for p in ["register", "enable"] {
            let _ = write!(o, "| {m} | {p} |");
            for &n in ns {
                let got = sum
                    .get(&(m.to_string(), p.to_string(), n))
                    .and_then(|(_, _, g)| *g)
                    .or_else(|| {
                        sum.get(&(m.to_string(), "register".to_string(), n))
                            .and_then(|(_, _, g)| *g)
                    })
                    .unwrap_or(n)
                    .max(1);
                let _ = match median(sum, m, p, n) {
                    Some(v) => write!(o, " {:.1} |", v / 1e3 / got as f64),
                    None => write!(o, " – |"),
                };
            }
            o.push('\n');
        }
    }
}

/// Writes the per-record section: ns per probed call that writes a trace
/// record with the same fetch arguments, each way.
pub(crate) fn per_record(o: &mut String, sum: &Summary) {
    let get = |m: &str| sum.get(&(m.to_string(), "per_record".to_string(), 1));
    if get("record-no-probe").is_none() {
        return;
    }
    let _ = writeln!(
        o,
        "## Per record, with fetch arguments\n\n`getppid()` in a tight loop, each call writing \
         one record into the ring buffer (tracing on) with the same fetch arguments (the \
         first argument, the return address through `$stack`, the task's name as a \
         string; `-noargs`: none, the record's own fields only; `-arg1`, `-stack`, `-comm`: \
         each of the three alone): `kprobe_events`' event (an \
         ftrace-based kprobe at `+0`), fprobe events' (`f:`, where the kernel has them), \
         and batchprobe's event through an int3 kprobe (`p!:`) and through its fprobe \
         (`p:`). The cost of a record is the call's time less the unprobed call's; the last \
         column compares it with `kprobe_events`' (below 1: cheaper):\n\n| config | ns per \
         call: median [min–max] | ns per record | vs kprobe_events |\n| --- | ---: | ---: | \
         ---: |"
    );
    for x in ["", "-noargs", "-arg1", "-stack", "-comm"] {
        let Some((base, _, _)) = get(&format!("record-no-probe{x}")) else {
            continue;
        };
        let kernel =
            get(&format!("record-kprobe-events{x}")).map(|(s, _, _)| s.median - base.median);
        for m in [
            "record-no-probe",
            "record-kprobe-events",
            "record-fprobe-events",
            "record-bp-kprobe",
            "record-bp-fprobe",
        ] {
            let name = format!("{m}{x}");
            let Some((s, _, _)) = get(&name) else {
                continue;
            };
            let cost = s.median - base.median;
            let ratio = match kernel {
                Some(k) if k > 0.0 && m != "record-no-probe" => format!("{:.2}", cost / k),
                _ => "–".to_string(),
            };
            let _ = writeln!(
                o,
                "| {name} | {:.0} [{}–{}] | {:.0} | {ratio} |",
                s.median, s.min, s.max, cost
            );
        }
    }
    o.push('\n');
}

/// Writes the per-hit overhead section: ns per probed call, each way.
pub(crate) fn per_hit(o: &mut String, sum: &Summary) {
    if !sum.keys().any(|k| k.1 == "per_hit") {
        return;
    }
    let _ = writeln!(
        o,
        "## Per-hit overhead\n\n`getppid()` in a tight loop with `__x64_sys_getppid` unprobed, probed by a \
         bare kprobe (empty handler, `create --bare`), by a batchprobe kprobe (`p!:`: gate \
         check + atomic count), by a bare fprobe and batchprobe's fprobe (`p:`), by a direct call to the empty C-style trampoline, to batchprobe's \
         counting and recording trampolines, and by an fprobe (all `+0`, so the kprobes \
         are ftrace-based here); then by a batchprobe kprobe past the fentry call \
         (`kprobe-offset`: an int3 kprobe, optimized into a jump after the optimizer has run) \
         and the same in a `create --noopt` set (`kprobe-offset-noopt`: a post handler keeps \
         it an int3 that single-steps):\n\n| config | ns per call: median [min–max] |\n| --- | ---: |"
    );
    for m in [
        "no-probe",
        "bare-kprobe",
        "batchprobe",
        "bare-fprobe",
        "batchprobe-fprobe",
        "direct-empty",
        "direct-count",
        "direct-record",
        "fprobe",
        "kprobe-offset",
        "kprobe-offset-noopt",
    ] {
        if let Some((s, _, _)) = sum.get(&(m.to_string(), "per_hit".to_string(), 1)) {
            let _ = writeln!(o, "| {m} | {:.0} [{}–{}] |", s.median, s.min, s.max);
        }
    }
    o.push('\n');
}
