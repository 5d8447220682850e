// SPDX-License-Identifier: GPL-2.0

//! The events' benchmarks (issue 35): the seed with fetch arguments on
//! every probe, `kprobe_events` against batchprobe, and what a set's events
//! cost at create and teardown.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use benchreport::*;

use crate::tables::*;

/// The N a method measured.
fn sizes_of(sum: &Summary, methods: &[&str]) -> Vec<u64> {
    let ns: BTreeSet<u64> = sum
        .keys()
        .filter(|k| methods.contains(&k.0.as_str()))
        .map(|k| k.2)
        .collect();
    ns.into_iter().collect()
}

/// A cell: the median in ms, with its range.
fn cell(sum: &Summary, method: &str, phase: &str, n: u64) -> String {
    match sum.get(&(method.to_string(), phase.to_string(), n)) {
        Some((s, _, _)) => format!(
            "{} [{}–{}]",
            fmt_ms(s.median),
            fmt_ms(s.min as f64),
            fmt_ms(s.max as f64)
        ),
        None => "–".into(),
    }
}

/// Writes both tables, where the boot measured them.
pub(crate) fn events_section(o: &mut String, sum: &Summary) {
    seed_args(o, sum);
    events_cost(o, sum);
}

/// The seed with fetch arguments: each batchprobe phase against the
/// `kprobe_events` phase it replaces.
fn seed_args(o: &mut String, sum: &Summary) {
    let ns = sizes_of(sum, &["tracefs-args", "batchprobe-args"]);
    if ns.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## The seed with fetch arguments on every probe\n\nThe seed's lines (int3 kprobes \
         at +5/+9 on the first N text symbols) each with the same fetch arguments (`%di`, \
         `%si` and `$comm`: what a probe inside a function can read), defined in \
         `kprobe_events` (an event per line; `enable` enables the events, which arms the \
         probes) and in one batchprobe set created with `--events` (an event per probe; \
         `enable` arms the probes, the events staying off). Each batchprobe phase is \
         compared with the tracefs phase it replaces (`disarm`: the physical disarm, with \
         tracefs' `disable`; `unregister_complete`: the whole removal, with tracefs' \
         removal, which is synchronous; the `unregister` write's early return has no \
         tracefs phase to match). ms, median [min–max]:\n\n| N | phase | kprobe_events | batchprobe \
         | kprobe_events / batchprobe |\n| ---: | --- | ---: | ---: | ---: |"
    );
    for &n in &ns {
        // (batchprobe's `disable` closes a gate, no text patched: its
        // ratio to tracefs' would say nothing; `disarm` is the comparison.)
        for p in ["register", "enable", "disarm", "unregister_complete"] {
            let t = tracefs_phase("batchprobe-args", p).unwrap_or(p);
            let ratio = speedup(
                median(sum, "tracefs-args", t, n),
                median(sum, "batchprobe-args", p, n),
            )
            .map_or_else(|| "–".into(), |r| format!("{r:.1}×"));
            let _ = writeln!(
                o,
                "| {n} | {p} | {} | {} | {ratio} |",
                cell(sum, "tracefs-args", t, n),
                cell(sum, "batchprobe-args", p, n)
            );
        }
    }
    let removal = speedup(
        median(sum, "tracefs-args", "unregister_complete", 256),
        median(sum, "batchprobe-args", "unregister_complete", 256),
    );
    match removal {
        Some(r) => {
            let _ = writeln!(
                o,
                "\n- Remove 256 probes with fetch arguments ≥ 100× faster than \
                 `kprobe_events`: **{r:.0}×** ({}).",
                if r >= 100.0 { "met" } else { "not met" }
            );
        }
        None => {
            let _ = writeln!(
                o,
                "\n- Remove 256 probes with fetch arguments: not measured."
            );
        }
    }
    o.push('\n');
}

/// What a set's events cost: the same set with and without `--events`.
fn events_cost(o: &mut String, sum: &Summary) {
    let ns = sizes_of(sum, &["events-off", "events-on"]);
    if ns.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## What a set's events cost at create and teardown\n\nThe same set of `p:` lines \
         on N functions (ftrace-able, kprobe-able, unique names: batchprobe's fprobe), \
         created without `--events` and with it (a trace event per probe, registered in \
         tracefs at `create`, removed at teardown), in turn in each run. `register` is the \
         `create` (the events' registration included), `teardown` the work after the last \
         grace period (the events' removal included), `unregister_complete` the whole \
         removal. ms, median [min–max]; the last column is the events' share, \
         `--events` less without, per probe:\n\n| N | phase | without | with `--events` | \
         with / without | µs per event |\n| ---: | --- | ---: | ---: | ---: | ---: |"
    );
    for &n in &ns {
        for p in [
            "register",
            "enable",
            "disarm",
            "teardown",
            "unregister_complete",
        ] {
            let off = median(sum, "events-off", p, n);
            let on = median(sum, "events-on", p, n);
            let ratio = speedup(on, off).map_or_else(|| "–".into(), |r| format!("{r:.2}×"));
            let per = match (on, off) {
                (Some(a), Some(b)) if n > 0 => format!("{:.1}", (a - b) / 1e3 / n as f64),
                _ => "–".into(),
            };
            let _ = writeln!(
                o,
                "| {n} | {p} | {} | {} | {ratio} | {per} |",
                cell(sum, "events-off", p, n),
                cell(sum, "events-on", p, n)
            );
        }
    }
    o.push('\n');
}
