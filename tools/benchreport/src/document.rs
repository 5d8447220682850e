// SPDX-License-Identifier: GPL-2.0

//! The whole report: the flavors' key figures side by side, then each
//! flavor's own.

use std::fmt::Write as _;

use benchreport::*;

use crate::flavor::*;
use crate::methods::*;
use crate::sections::entry::*;
use crate::sections::gp::*;
use crate::tables::*;
use crate::Args;

/// One flavor's parsed boot.
pub(crate) struct Flavor {
    pub(crate) name: String,
    pub(crate) b: Bench,
    pub(crate) sum: Summary,
    pub(crate) gp: GpSummary,
}

/// `direct / fprobe / one ops per function` medians of `phase` at `n`, ms.
pub(crate) fn direct_methods_at(f: &Flavor, phase: &str, n: u64) -> String {
    let ms = |m: &str| median(&f.sum, m, phase, n).map_or("–".into(), fmt_ms);
    format!(
        "{} / {} / {}",
        ms("direct"),
        ms("fprobe"),
        ms("direct-ops-per-function")
    )
}

/// `exit / fprobe-exit / entry-kretprobe` medians of `phase` at `n`, ms.
pub(crate) fn exit_methods_at(f: &Flavor, phase: &str, n: u64) -> String {
    let ms = |m: &str| median(&f.sum, m, phase, n).map_or("–".into(), fmt_ms);
    format!(
        "{} / {} / {}",
        ms("exit"),
        ms("fprobe-exit"),
        ms("entry-kretprobe")
    )
}

/// The medians of `phase` at `n` of `methods`, ms, joined by ` / `.
pub(crate) fn peers_at(f: &Flavor, methods: &[&str], phase: &str, n: u64) -> String {
    methods
        .iter()
        .map(|m| median(&f.sum, m, phase, n).map_or("–".into(), fmt_ms))
        .collect::<Vec<_>>()
        .join(" / ")
}

pub(crate) fn entry_at(f: &Flavor, n: u64) -> Option<String> {
    let k = arm_disarm(&f.sum, "entry-kprobe", n)?;
    let a = arm_disarm(&f.sum, "entry-auto", n)?;
    Some(format!("{} / {} (**{:.0}×**)", fmt_ms(k), fmt_ms(a), k / a))
}

/// The report: the flavors' key figures side by side, then each flavor.
pub(crate) fn document(flavors: &[Flavor], a: &Args) -> String {
    let mut o = String::new();
    intro(&mut o, flavors, a);
    side_by_side(&mut o, flavors);
    for f in flavors {
        o.push_str(&markdown(&f.b, &f.sum, &f.gp, a, &f.name));
    }
    plots(&mut o, flavors);
    reproduce(&mut o);
    o
}

/// Writes the report's title and what was measured, how.
fn intro(o: &mut String, flavors: &[Flavor], a: &Args) {
    let _ = writeln!(o, "# batchprobe benchmarks\n");
    let names: Vec<&str> = flavors.iter().map(|f| f.name.as_str()).collect();
    let _ = writeln!(
        o,
        "Measured {} under {} (QEMU), one boot per kernel flavor ({}); every ratio compares \
         methods within one boot. TCG makes a text patch cost about as much as a grace \
         period: judge ratios, not absolute times.\n",
        a.date,
        accel_text(&a.accel),
        names.join(", ")
    );
    if let Some(note) = &a.note {
        let _ = writeln!(o, "{note}\n");
    }
}

/// One flavor's cell of a side-by-side row (`None`: not measured).
type Cell = fn(&Flavor) -> Option<String>;

/// Writes the table of the flavors' key figures, a column per flavor.
fn side_by_side(o: &mut String, flavors: &[Flavor]) {
    // A row no flavor measured (a partial run) is left out.
    let measured = |c: &Option<String>| {
        c.as_deref()
            .is_some_and(|c| c.split(" / ").any(|x| x != "–"))
    };
    let rows: Vec<_> = kprobe_direct_rows()
        .into_iter()
        .chain(entry_exit_peer_rows())
        .filter(|(_, cell)| flavors.iter().any(|f| measured(&cell(f))))
        .collect();
    // Nothing to put side by side (a partial run of its own figures).
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(o, "## Side by side\n");
    let _ = write!(o, "| figure |");
    for f in flavors {
        let _ = write!(o, " {} |", f.name);
    }
    let _ = write!(o, "\n| --- |");
    for _ in flavors {
        let _ = write!(o, " --- |");
    }
    o.push('\n');
    for (label, cell) in rows {
        let _ = write!(o, "| {label} |");
        for f in flavors {
            let _ = write!(o, " {} |", cell(f).unwrap_or_else(|| "–".into()));
        }
        o.push('\n');
    }
    o.push('\n');
}

/// The side-by-side rows of the kprobe, direct-call and grace-period figures.
fn kprobe_direct_rows() -> [(&'static str, Cell); 8] {
    [
        (
            "remove 256 kprobes, ms: tracefs / batchprobe (ratio)",
            |f| {
                let t = median(&f.sum, "tracefs", "unregister_complete", 256)?;
                let b = median(&f.sum, "batchprobe", "unregister_complete", 256)?;
                Some(format!("{} / {} (**{:.0}×**)", fmt_ms(t), fmt_ms(b), t / b))
            },
        ),
        ("`unregister` write returns, ms (slowest N)", |f| {
            f.sum
                .iter()
                .filter(|(k, _)| k.0 == "batchprobe" && k.1 == "unregister_call")
                .map(|(_, (s, _, _))| s.median)
                .max_by(f64::total_cmp)
                .map(fmt_ms)
        }),
        ("disable at N=4096 / at N=256", |f| {
            let a = median(&f.sum, "batchprobe", "disable", 4096)?;
            let b = median(&f.sum, "batchprobe", "disable", 256)?;
            Some(format!("{:.2}×", a / b))
        }),
        (
            "direct attach 1000, ms: direct / fprobe / one ops per function",
            |f| Some(direct_methods_at(f, "attach", 1000)),
        ),
        (
            "direct detach 1000, ms: direct / fprobe / one ops per function",
            |f| Some(direct_methods_at(f, "detach", 1000)),
        ),
        (
            "grace periods, direct detach 1000 (rcu/rcu_tasks/rcu_tasks_rude)",
            |f| gp_cell(&f.gp, "direct", "detach", 1000),
        ),
        ("grace periods, batchprobe enable 4096", |f| {
            gp_cell(&f.gp, "batchprobe", "enable", 4096)
        }),
        ("grace periods, batchprobe teardown 4096", |f| {
            gp_cell(&f.gp, "batchprobe", "teardown", 4096)
        }),
    ]
}

/// The side-by-side rows of the entry, entry + exit and BPF peer figures.
fn entry_exit_peer_rows() -> [(&'static str, Cell); 8] {
    [
        (
            "+0 entry probes, arm + disarm 256, ms: kprobes / fprobe (ratio)",
            |f| entry_at(f, 256),
        ),
        (
            "+0 entry probes, arm + disarm 4096, ms: kprobes / fprobe (ratio)",
            |f| entry_at(f, 4096),
        ),
        (
            "entry + exit attach 1000, ms: exit / fprobe / entry + kretprobes",
            |f| Some(exit_methods_at(f, "attach", 1000)),
        ),
        (
            "entry + exit detach 1000, ms: exit / fprobe / entry + kretprobes",
            |f| Some(exit_methods_at(f, "detach", 1000)),
        ),
        (
            "vs BPF, entry only attach 1000, ms: fprobe set / direct set / kprobe_multi",
            |f| Some(peers_at(f, &PEER_ENTRY_METHODS, "attach", 1000)),
        ),
        (
            "vs BPF, entry only detach 1000, ms: fprobe set / direct set / kprobe_multi",
            |f| Some(peers_at(f, &PEER_ENTRY_METHODS, "detach", 1000)),
        ),
        (
            "vs BPF, entry + exit attach 1000, ms: exit set / kprobe_multi + ret / fentry + fexit per function / tracing_multi",
            |f| Some(peers_at(f, &PEER_EXIT_SIDE_BY_SIDE, "attach", 1000)),
        ),
        (
            "vs BPF, entry + exit detach 1000, ms: exit set / kprobe_multi + ret / fentry + fexit per function / tracing_multi",
            |f| Some(peers_at(f, &PEER_EXIT_SIDE_BY_SIDE, "detach", 1000)),
        ),
    ]
}

/// Writes the plots' links, when some flavor ran the kprobe methods.
fn plots(o: &mut String, flavors: &[Flavor]) {
    let full = flavors.iter().any(|f| has_kprobe_runs(&f.sum));
    if full {
        let _ = writeln!(o, "## Plots\n");
    }
    for f in flavors.iter().filter(|_| full) {
        let _ = writeln!(
            o,
            "![{0}: kprobes, time vs N, log-log](docs/bench-{0}.svg)\n\n\
             ![{0}: direct calls, time vs N, log-log](docs/bench-direct-{0}.svg)\n",
            f.name
        );
    }
}

/// Writes how to reproduce the measurements.
fn reproduce(o: &mut String) {
    let _ = writeln!(
        o,
        "## Reproduce\n\n```sh\nmake bench          # one boot per flavor of BP_BENCH_FLAVORS \
         (\"bench distro distro-7.3\"), side by side, each about half an hour under TCG\n\
         make bench-stock    # the seed and the BPF peers on Debian's image\n\
         BP_BENCH_ONLY=peers make bench   # one part: entry, exit, peers, records, events, \
         seed, percall, peercall\n```\n\n\
         Each boot's raw lines go to `bench/results/DATE-HHMM-FLAVOR/` (commit them); this \
         report of the run, with CSV, JSON and plots, to `out/bench/`; BENCHMARKS.md is \
         republished from `bench/results/` (`make bench-publish`). The knobs: \
         docs/benchmarks.md."
    );
}
