// SPDX-License-Identifier: GPL-2.0

//! The seed's comparison: kprobes through tracefs' `kprobe_events`, one
//! line per write as the seed script does, against one batchprobe set.

use std::fmt::Write as _;

use super::Run;
use benchreport::*;

/// The rows: what a user does, tracefs' phase, batchprobe's phase. tracefs'
/// `disable` disarms the probes; batchprobe's `disable` only closes the
/// set's gate and queues the disarm, so its `disarm` is the like phase.
/// Registration is left out: each `kprobe_events` line also makes a trace
/// event, which this set does not (the audit of 2026-12-05, M7).
const ROWS: [(&str, &str, &str); 3] = [
    ("enable (arm)", "enable", "enable"),
    ("disable (disarm)", "disable", "disarm"),
    ("remove", "unregister_complete", "unregister_complete"),
];

/// The N the run measured both on.
fn sizes(r: &Run) -> Vec<u64> {
    r.sum
        .keys()
        .filter(|k| k.0 == "tracefs" && k.1 == "unregister_complete")
        .map(|k| k.2)
        .filter(|&n| r.live("batchprobe", "unregister_complete", n).is_ok())
        .collect()
}

/// Whether the run has the seed's figures.
pub(crate) fn has(r: &Run) -> bool {
    !sizes(r).is_empty()
}

/// A table per N the run measured both on.
pub(crate) fn section(o: &mut String, r: &Run) {
    let ns = sizes(r);
    if ns.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "### Kprobes: tracefs against one batchprobe set (the seed)\n\n\
         The seed's workload: N kprobes at `SYM+5` (`+9` past an `endbr64`) on the first \
         text symbols, each written to `kprobe_events` in a write of its own and enabled \
         through the group's `enable`, then disabled and removed; against one set of the \
         same N (`p:b/ *+5 max=N`), enabled, disabled and unregistered. Optprobes on for \
         both, warm; {} runs each. tracefs' times are its writes' wall time; batchprobe's, \
         its own timers from the write until the work was done (its `unregister` write \
         returns at once and the work runs on its workqueue). *remove* is, for tracefs, the \
         truncating write of `kprobe_events`; for batchprobe, from its `unregister` write \
         to the last probe gone. Registration is not compared: each `kprobe_events` line \
         also makes a trace event, and this set makes none.\n",
        r.info("runs")
    );
    for n in ns {
        let got = r
            .sum
            .get(&("batchprobe".to_string(), "register".to_string(), n))
            .and_then(|(_, _, g)| *g);
        let _ = writeln!(
            o,
            "N = {n}{}:\n\n| phase | tracefs, ms | batchprobe, ms | tracefs / batchprobe |\n\
             | --- | ---: | ---: | ---: |",
            got.map_or(String::new(), |g| format!(" ({g} probes attached)"))
        );
        for (label, tp, bp) in ROWS {
            let t = r.live("tracefs", tp, n);
            let b = r.live("batchprobe", bp, n);
            let cell = |v: &Result<f64, String>, m: &str, p: &str| match v {
                Ok(_) => cell_of(r, m, p, n),
                Err(e) => e.clone(),
            };
            let ratio = match (&t, &b) {
                (Ok(t), Ok(b)) if *b > 0.0 && t / b >= 10.0 => format!("**{:.0}×**", t / b),
                (Ok(t), Ok(b)) if *b > 0.0 => format!("{:.2}×", t / b),
                _ => "–".into(),
            };
            let _ = writeln!(
                o,
                "| {label} | {} | {} | {ratio} |",
                cell(&t, "tracefs", tp),
                cell(&b, "batchprobe", bp)
            );
        }
        o.push('\n');
    }
}

/// `median [min–max]` in ms, or the median alone where the runs agree.
pub(crate) fn cell_of(r: &Run, method: &str, phase: &str, n: u64) -> String {
    match r.sum.get(&(method.to_string(), phase.to_string(), n)) {
        None => "–".into(),
        Some((s, _, _)) if s.runs == 1 || s.min == s.max => fmt_ms(s.median),
        Some((s, _, _)) => format!(
            "{} [{}–{}]",
            fmt_ms(s.median),
            fmt_ms(s.min as f64),
            fmt_ms(s.max as f64)
        ),
    }
}
