// SPDX-License-Identifier: GPL-2.0

//! One flavor's report: its tables, sections and notes, in order.

use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::sections::direct::*;
use crate::sections::entry::*;
use crate::sections::events::*;
use crate::sections::exit::*;
use crate::sections::goals::*;
use crate::sections::gp::*;
use crate::sections::modules::*;
use crate::sections::peers::*;
use crate::tables::*;
use crate::Args;

/// What each kernel flavor is, for the report.
pub(crate) fn flavor_text(flavor: &str) -> String {
    match flavor {
        "bench" => {
            "the bench kernel (the test kernel without lockdep: `scripts/config/bench.config`): \
                    not preemptible, no CPU mitigations, so `synchronize_rcu_tasks()` is \
                    `synchronize_rcu()`"
                .into()
        }
        "distro" => "the distro kernel (`scripts/config/distro.config`, built with clang 19): \
                     PREEMPT_DYNAMIC (voluntary), PREEMPT_RCU, real RCU-tasks grace periods, \
                     IBT, retpolines, return thunks, call-depth tracking and SLS, BTF, as \
                     Debian's 6.12; no lockdep"
            .into(),
        "distro-7.3" => "the distro kernel on Linux 7.3 (`scripts/config/distro.config` with \
                         `scripts/config/7.3/distro.config`, built with clang 19): PREEMPT_DYNAMIC \
                         on lazy preemption, PREEMPT_RCU, real RCU-tasks grace periods, the same \
                         mitigations, BTF and RUST_OVERFLOW_CHECKS, as Debian's 7.3; fprobe on \
                         fgraph; no lockdep"
            .into(),
        "test" => "the test kernel (with lockdep)".into(),
        "stock-7.3" => "Debian's own `linux-image-7.3` as it ships (trixie-backports), \
                        batchprobe built for it in a trixie chroot \
                        with the image's GCC 14 and rustc 1.85.1, as a user builds it"
            .into(),
        f => format!("the `{f}` kernel"),
    }
}

/// One flavor's section: its measurements, tables and goals.
pub(crate) fn markdown(b: &Bench, sum: &Summary, gp: &GpSummary, a: &Args, flavor: &str) -> String {
    let mut o = String::new();
    let info = |k: &str| b.info.get(k).cloned().unwrap_or_else(|| "?".into());
    let _ = writeln!(o, "# Flavor `{flavor}`\n");
    let runs = runs_text(b, sum);
    let _ = writeln!(
        o,
        "Measured {} in one boot of {}: Linux {}, {} vCPUs, {} (QEMU), {runs}; \
         times are the median with [min–max] across runs. \
         Ratios compare methods within this one boot; absolute times under TCG are far slower \
         than on hardware.\n",
        a.date,
        flavor_text(flavor),
        info("kernel"),
        info("vcpus"),
        accel_text(&a.accel),
    );
    failures(&mut o, b);
    // A partial run (`BP_BENCH_ONLY`) may have measured no kprobe method.
    if has_kprobe_runs(sum) {
        kprobes_section(&mut o, b, sum, gp);
    }
    direct_section(&mut o, b, sum, gp);
    entry_section(&mut o, b, sum);
    exit_section(&mut o, b, sum);
    peers_section(&mut o, b, sum, gp);
    modules_section(&mut o, b, sum);
    gp_section(&mut o, gp);
    per_hit(&mut o, sum);
    per_record(&mut o, sum);
    events_section(&mut o, sum);
    // Every heading one level down: the flavor's section sits in the report.
    o.lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("#{l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// Writes what did not run: the parts the guest could not start
/// (`BENCHFAIL`) and each failed run, which left no sample (its table
/// cell says so too).
fn failures(o: &mut String, b: &Bench) {
    if b.parts_failed.is_empty() && b.failed.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## What did not run
"
    );
    for p in &b.parts_failed {
        let _ = writeln!(o, "- {p}");
    }
    let mut seen = Vec::new();
    for f in &b.failed {
        if seen.contains(&(&f.method, f.n)) {
            continue;
        }
        seen.push((&f.method, f.n));
        if let Some(t) = b.failed_text(&f.method, f.n) {
            let _ = writeln!(o, "- `{}` at N = {}: {t}", f.method, f.n);
        }
    }
    o.push('\n');
}

/// How the boot repeated what it measured (a partial run: only that).
fn runs_text(b: &Bench, sum: &Summary) -> String {
    let info = |k: &str| b.info.get(k).cloned().unwrap_or_else(|| "?".into());
    // A partial run says only how it repeated what it measured.
    if has_kprobe_runs(sum) {
        format!(
            "{} runs per kprobe point ({} for N > 256) and {} per direct point (one for one \
             ops per function)",
            info("runs"),
            info("big_runs"),
            info("direct_runs")
        )
    } else if !sum.keys().any(|k| !k.0.starts_with("peer-")) {
        format!(
            "{} runs per peer point (one for a way whose run passes {} s), {} per per-call \
             figure",
            info("peer_runs"),
            info("budget_s"),
            info("runs")
        )
    } else if sum.keys().all(|k| {
        ["tracefs-args", "batchprobe-args", "events-off", "events-on"].contains(&k.0.as_str())
    }) {
        format!(
            "{} runs per point of the seed with fetch arguments, {} per point of the events' \
             cost",
            info("seed_args_runs"),
            info("event_runs")
        )
    } else if sum.keys().any(|k| EXIT_METHODS.contains(&k.0.as_str())) {
        format!(
            "{} runs per entry + exit point up to 1000 functions (one beyond), {} per per-call \
             figure",
            info("big_runs"),
            info("runs")
        )
    } else {
        format!(
            "3 runs per entry-probe point up to 256 functions (one beyond), {} per per-hit \
             figure",
            info("runs")
        )
    }
}

/// Writes the kprobe methods' section: what they are, their tables, the goals.
fn kprobes_section(o: &mut String, b: &Bench, sum: &Summary, gp: &GpSummary) {
    let ns = sizes(sum, b, &METHODS);
    let _ = writeln!(
        o,
        "## Kprobes\n\nSymbols: as the seed script picks them, the first N kallsyms text symbols (no `.`, \
         and, on both paths, none with `lock` in the name: probing lockdep's `lock_acquire` \
         crashed this lockdep kernel once) \
         that accept a probe at `+5` (N ≤ 1024). With IBT (this kernel) only functions without \
         `endbr64` accept `+5`, about one in six, so N = 4096 uses `+9` (after `endbr64` and \
         the 5-byte fentry call): the same int3/optprobe mechanism. (`+0` would make them \
         ftrace-based kprobes, which arm and disarm through one ftrace filter update and \
         patching pass each: 56 s to enable and 66 s to disarm 4096 in an earlier run here.) \
         `tracefs` is the seed script's `kprobe_events` path with optprobes on, \
         `tracefs-noopt` with `debug.kprobes-optimization=0`; `batchprobe` times come from the \
         module's own ns timers; `batchprobe-one-by-one` is batchprobe with its teardown done \
         one `unregister_kprobe` (one grace period) per probe. batchprobe's `disable` closes \
         the set's gate (no hit is counted from then on) and queues the physical `disarm` on \
         the module workqueue; `unregister_call` is when the unregister write returned (async), \
         `teardown` the teardown work itself (one `unregister_kprobes` batch), \
         `unregister_complete` when the probes were gone, counted from the unregister write \
         (it includes waiting behind a disarm still running on the ordered workqueue); \
         tracefs removal is synchronous.\n"
    );
    phase_table(
        o,
        b,
        sum,
        "Kprobe phase times, ms: median [min–max]",
        &METHODS,
        &PHASES,
    );
    speedup_table(
        o,
        b,
        sum,
        "Kprobe speed-up over tracefs in the same boot (tracefs median / method median)",
        "tracefs",
        &METHODS[1..],
        &PHASES,
        tracefs_phase,
    );
    goals(o, sum, gp, &ns);
}

/// Whether the kprobe methods ran (not only their per-hit cost).
pub(crate) fn has_kprobe_runs(sum: &Summary) -> bool {
    sum.keys()
        .any(|k| METHODS.contains(&k.0.as_str()) && k.1 != "per_hit")
}

/// `TCG thread=single` or `KVM`.
pub(crate) fn accel_text(accel: &str) -> String {
    match accel.split_once(' ') {
        Some((acc, rest)) => format!("{} {rest}", acc.to_uppercase()),
        None => accel.to_uppercase(),
    }
}
