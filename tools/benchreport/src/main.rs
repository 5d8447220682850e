// SPDX-License-Identifier: GPL-2.0

//! benchreport: batchprobe's benchmark lines → Markdown table (stdout and
//! BENCHMARKS.md), CSV, JSON and an SVG plot (time vs N, log-log).
//!
//! Usage: benchreport --input [FLAVOR=]RAW [--input FLAVOR=RAW ...] --out-dir DIR
//!                    --accel 'tcg thread=single'|kvm --date D [--markdown FILE] [--svg-dir DIR]
//!                    [--note TEXT]
//!
//! One `--input` per kernel flavor, each the raw output of one boot: the
//! report puts the flavors' key figures side by side, then each flavor's
//! tables; plots and CSV/JSON are per flavor (`bench-FLAVOR.svg`, ...).
//! An existing `--markdown` FILE's hand-kept section (from the line
//! `## Earlier measurements` to its end: dated figures of earlier runs)
//! is kept at the end of the new report.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use benchreport::*;
use plotters::prelude::*;

const METHODS: [&str; 5] = [
    "tracefs",
    "tracefs-noopt",
    "batchprobe-one-by-one",
    "batchprobe",
    "batchprobe-noopt",
];
const PHASES: [&str; 8] = [
    "register",
    "enable",
    "disable",
    "disarm",
    "unregister_call",
    "unregister_call_wall",
    "teardown",
    "unregister_complete",
];
const PLOTTED: [&str; 4] = ["register", "enable", "disable", "unregister_complete"];
/// Entry + exit on the same N functions (`exit_probes` in selftests/bench.sh).
const EXIT_METHODS: [&str; 4] = [
    "exit",
    "fprobe-exit",
    "entry-kretprobe",
    "exit-ops-per-function",
];
const EXIT_PHASES: [&str; 2] = ["attach", "detach"];
const DIRECT_METHODS: [&str; 3] = ["direct-ops-per-function", "fprobe", "direct"];
const DIRECT_PHASES: [&str; 6] = [
    "register",
    "attach",
    "unregister_call",
    "detach",
    "teardown",
    "unregister_complete",
];
const DIRECT_PLOTTED: [&str; 2] = ["attach", "detach"];
const ENTRY_METHODS: [&str; 3] = ["entry-tracefs", "entry-kprobe", "entry-auto"];
/// The BPF peers, entry only (`peers` in selftests/bench.sh).
const PEER_ENTRY_METHODS: [&str; 3] = ["peer-bp-fprobe", "peer-bp-direct", "peer-kprobe-multi"];
/// The BPF peers, entry + exit.
const PEER_EXIT_METHODS: [&str; 5] = [
    "peer-bp-exit",
    "peer-kprobe-multi-ret",
    "peer-fentry-fexit",
    "peer-fentry-fexit-multi",
    "peer-fsession-multi",
];
const PEER_PHASES: [&str; 4] = ["attach", "detach", "load", "link"];
/// Per call on `__task_pid_nr_ns`, each way, against no probe.
const PEER_PER_CALL: [&str; 11] = [
    "peer-no-probe",
    "peer-bp-direct",
    "peer-bp-fprobe",
    "peer-bp-exit",
    "peer-kprobe-multi",
    "peer-kprobe-multi-ret",
    "peer-fentry",
    "peer-fentry-fexit",
    "peer-fentry-multi",
    "peer-fentry-fexit-multi",
    "peer-fsession-multi",
];
const ENTRY_PHASES: [&str; 6] = [
    "register",
    "enable",
    "disable",
    "disarm",
    "teardown",
    "unregister_complete",
];

struct Args {
    inputs: Vec<(String, PathBuf)>,
    out_dir: PathBuf,
    accel: String,
    date: String,
    markdown: Option<PathBuf>,
    svg_dir: Option<PathBuf>,
    /// How the boots were run, when it matters (`--note`).
    note: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut a = std::env::args().skip(1);
    let mut m = BTreeMap::new();
    let mut inputs = Vec::new();
    while let Some(k) = a.next() {
        let v = a.next().ok_or_else(|| format!("{k} needs a value"))?;
        if k == "--input" {
            inputs.push(match v.split_once('=') {
                Some((f, path)) => (f.to_string(), PathBuf::from(path)),
                None => ("bench".to_string(), PathBuf::from(v)),
            });
            continue;
        }
        m.insert(k, v);
    }
    if inputs.is_empty() {
        return Err("missing --input".into());
    }
    let take = |m: &mut BTreeMap<String, String>, k: &str| m.remove(k);
    let need = |m: &mut BTreeMap<String, String>, k: &str| take(m, k).ok_or(format!("missing {k}"));
    let args = Args {
        inputs,
        out_dir: need(&mut m, "--out-dir")?.into(),
        accel: need(&mut m, "--accel")?,
        date: need(&mut m, "--date")?,
        markdown: take(&mut m, "--markdown").map(Into::into),
        svg_dir: take(&mut m, "--svg-dir").map(Into::into),
        note: take(&mut m, "--note"),
    };
    if let Some(k) = m.keys().next() {
        return Err(format!("unknown option {k}"));
    }
    Ok(args)
}

type Summary = BTreeMap<Key, (Stat, Option<u64>, Option<u64>)>;

fn median(sum: &Summary, method: &str, phase: &str, n: u64) -> Option<f64> {
    sum.get(&(method.to_string(), phase.to_string(), n))
        .map(|(s, _, _)| s.median)
}

/// The N measured (or skipped as over budget) for any of `methods`.
fn sizes(sum: &Summary, b: &Bench, methods: &[&str]) -> Vec<u64> {
    let measured = sum
        .keys()
        .filter(|k| methods.contains(&k.0.as_str()))
        .map(|k| k.2);
    let skipped = b
        .over_budget
        .iter()
        .filter(|x| methods.contains(&x.method.as_str()))
        .map(|x| x.n);
    let s: BTreeSet<u64> = measured.chain(skipped).filter(|&n| n > 1).collect();
    s.into_iter().collect()
}

fn table_header(o: &mut String, title: &str, ns: &[u64]) {
    let _ = writeln!(o, "## {title}\n");
    table_columns(o, ns);
}

/// The header rows of a method × phase table with one column per N.
fn table_columns(o: &mut String, ns: &[u64]) {
    let _ = write!(o, "| method | phase |");
    for n in ns {
        let _ = write!(o, " N={n} |");
    }
    let _ = write!(o, "\n| --- | --- |");
    for _ in ns {
        let _ = write!(o, " ---: |");
    }
    o.push('\n');
}

/// A method × phase table, one column per N, rows without any value left out.
fn table(
    o: &mut String,
    title: &str,
    ns: &[u64],
    rows: (&[&str], &[&str]),
    has: impl Fn(&str, &str, u64) -> bool,
    cell: impl Fn(&str, &str, u64) -> String,
) {
    table_header(o, title, ns);
    for m in rows.0 {
        for p in rows.1 {
            if !ns.iter().any(|&n| has(m, p, n)) {
                continue;
            }
            let _ = write!(o, "| {m} | {p} |");
            for &n in ns {
                let _ = write!(o, " {} |", cell(m, p, n));
            }
            o.push('\n');
        }
    }
    o.push('\n');
}

/// Median [min–max] ms per method × phase × N.
fn phase_table(
    o: &mut String,
    b: &Bench,
    sum: &Summary,
    title: &str,
    methods: &[&str],
    phases: &[&str],
) {
    let ns = sizes(sum, b, methods);
    let has = |m: &str, p: &str, n| median(sum, m, p, n).is_some();
    let cell = |m: &str, p: &str, n: u64| match sum.get(&(m.to_string(), p.to_string(), n)) {
        Some((s, off, got)) => {
            let mut c = format!(
                "{} [{}–{}]",
                fmt_ms(s.median),
                fmt_ms(s.min as f64),
                fmt_ms(s.max as f64)
            );
            if let Some(g) = got.filter(|&g| g < n) {
                let _ = write!(c, " (got {g})");
            }
            if let Some(off) = off.filter(|&o| o != 5) {
                let _ = write!(c, " +{off}");
            }
            c
        }
        None if b.over_budget.iter().any(|x| x.method == m && x.n == n) => "over budget".into(),
        None => "–".into(),
    };
    table(o, title, &ns, (methods, phases), has, cell);
}

/// `base` median / method median per method × phase × N.
#[expect(clippy::too_many_arguments)]
fn speedup_table(
    o: &mut String,
    b: &Bench,
    sum: &Summary,
    title: &str,
    base: &str,
    methods: &[&str],
    phases: &[&str],
    map: impl Fn(&str) -> &str,
) {
    let mut all = vec![base];
    all.extend_from_slice(methods);
    let ns = sizes(sum, b, &all);
    let has = |m: &str, p: &str, n| median(sum, m, p, n).is_some();
    let cell =
        |m: &str, p: &str, n| match speedup(median(sum, base, map(p), n), median(sum, m, p, n)) {
            Some(r) => format!("{r:.1}×"),
            None => "–".into(),
        };
    table(o, title, &ns, (methods, phases), has, cell);
}

/// What each kernel flavor is, for the report.
fn flavor_text(flavor: &str) -> String {
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
        f => format!("the `{f}` kernel"),
    }
}

/// One flavor's section: its measurements, tables and goals.
fn markdown(b: &Bench, sum: &Summary, gp: &GpSummary, a: &Args, flavor: &str) -> String {
    let ns = sizes(sum, b, &METHODS);
    let mut o = String::new();
    let info = |k: &str| b.info.get(k).cloned().unwrap_or_else(|| "?".into());
    let _ = writeln!(o, "# Flavor `{flavor}`\n");
    // A partial run says only how it repeated what it measured.
    let runs = if has_kprobe_runs(sum) {
        format!(
            "{} runs per kprobe point ({} for N > 256) and {} per direct point (one for one \
             ops per function)",
            info("runs"),
            info("big_runs"),
            info("direct_runs")
        )
    } else if !sum.keys().any(|k| !k.0.starts_with("peer-")) {
        format!(
            "{} runs per peer point up to 1000 functions (one beyond, and one for a way \
             whose run passes {} s), {} per per-call figure",
            info("big_runs"),
            info("budget_s"),
            info("runs")
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
    };
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
    // A partial run (`BP_BENCH_ONLY`) may have measured no kprobe method.
    if has_kprobe_runs(sum) {
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
            &mut o,
            b,
            sum,
            "Kprobe phase times, ms: median [min–max]",
            &METHODS,
            &PHASES,
        );
        speedup_table(
            &mut o,
            b,
            sum,
            "Kprobe speed-up over tracefs in the same boot (tracefs median / method median)",
            "tracefs",
            &METHODS[1..],
            &PHASES,
            tracefs_phase,
        );
        goals(&mut o, sum, gp, &ns);
    }
    direct_section(&mut o, b, sum, gp);
    entry_section(&mut o, b, sum);
    exit_section(&mut o, b, sum);
    peers_section(&mut o, b, sum, gp);
    gp_section(&mut o, gp);
    per_hit(&mut o, sum);
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

/// Whether the kprobe methods ran (not only their per-hit cost).
fn has_kprobe_runs(sum: &Summary) -> bool {
    sum.keys()
        .any(|k| METHODS.contains(&k.0.as_str()) && k.1 != "per_hit")
}

/// `TCG thread=single` or `KVM`.
fn accel_text(accel: &str) -> String {
    match accel.split_once(' ') {
        Some((acc, rest)) => format!("{} {rest}", acc.to_uppercase()),
        None => accel.to_uppercase(),
    }
}

type GpSummary = BTreeMap<Key, [Option<Stat>; 3]>;

/// `rcu/rcu_tasks/rcu_tasks_rude` medians of one row, or `None`.
fn gp_cell(gp: &GpSummary, method: &str, phase: &str, n: u64) -> Option<String> {
    gp.get(&(method.to_string(), phase.to_string(), n))
        .map(|k| format!("{}/{}/{}", fmt_gp(k[0]), fmt_gp(k[1]), fmt_gp(k[2])))
}

/// The most RCU-tasks grace periods (both kinds) any run of a row waited for.
fn tasks_gps_max(gp: &GpSummary, method: &str, phase: &str, n: u64) -> Option<u64> {
    let k = gp.get(&(method.to_string(), phase.to_string(), n))?;
    Some(k[1].map_or(0, |s| s.max) + k[2].map_or(0, |s| s.max))
}

/// The grace periods each phase waited for, from the module's own counters.
fn gp_section(o: &mut String, gp: &GpSummary) {
    let methods: Vec<&str> = METHODS
        .iter()
        .chain(DIRECT_METHODS.iter())
        .chain(ENTRY_METHODS.iter())
        .chain(EXIT_METHODS.iter())
        .copied()
        .filter(|m| gp.keys().any(|k| k.0 == *m))
        .collect();
    if methods.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## Grace periods per phase\n\nCounted by the module itself (`stats`, \
         `grace_periods`): kprobes on `synchronize_rcu` (expedited or not), \
         `synchronize_rcu_tasks` and `synchronize_rcu_tasks_rude` count every wait that \
         starts while the phase runs, by any task (a kprobe optimizer pass the phase is stuck \
         behind included). Cells are `rcu/rcu_tasks/rcu_tasks_rude`, the median per run \
         ([min–max] where runs differ); `-`: the kernel has no such kind (non-preemptible: \
         `synchronize_rcu_tasks()` is `synchronize_rcu()`).\n"
    );
    let phases = ["register", "enable", "disarm", "teardown", "detach"];
    let ns: Vec<u64> = gp
        .keys()
        .map(|k| k.2)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    table(
        o,
        "Grace periods waited for: rcu/rcu_tasks/rcu_tasks_rude",
        &ns,
        (&methods, &phases),
        |m, p, n| gp_cell(gp, m, p, n).is_some(),
        |m, p, n| gp_cell(gp, m, p, n).unwrap_or_else(|| "–".into()),
    );
}

/// Arm + disarm, ms: batchprobe's `enable` + `disarm`, tracefs's
/// `enable` + `disable` (its disable is the physical disarm).
fn arm_disarm(sum: &Summary, method: &str, n: u64) -> Option<f64> {
    let off = if method == "entry-tracefs" {
        "disable"
    } else {
        "disarm"
    };
    Some(median(sum, method, "enable", n)? + median(sum, method, off, n)?)
}

fn entry_section(o: &mut String, b: &Bench, sum: &Summary) {
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
        |p| p,
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

fn exit_section(o: &mut String, b: &Bench, sum: &Summary) {
    if !sum
        .keys()
        .any(|k| EXIT_METHODS.contains(&k.0.as_str()) && k.1 != "per_call")
    {
        return;
    }
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
    phase_table(
        o,
        b,
        sum,
        "Entry + exit phase times, ms: median [min–max]",
        &EXIT_METHODS,
        &EXIT_PHASES,
    );
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
    if let (Some(x), Some(f)) = (x1000, f1000) {
        let _ = writeln!(
            o,
            "- vs fprobe entry + exit: {} ms vs {} ms (goal: no slower: {}).",
            fmt_ms(x),
            fmt_ms(f),
            if x <= f { "met" } else { "not met" }
        );
    }
    let _ = writeln!(
        o,
        "\nPer call on `getppid()` (a tight loop), each way on `__x64_sys_getppid` alone, \
         against the unprobed call; `direct-entry` is the entry-only counting trampoline:\n\n\
         | config | ns per call: median [min–max] | × unprobed |\n| --- | ---: | ---: |"
    );
    let base = sum
        .get(&("no-probe".to_string(), "per_call".to_string(), 1))
        .map(|(s, _, _)| s.median);
    for m in [
        "no-probe",
        "direct-entry",
        "exit",
        "fprobe-exit",
        "entry-kretprobe",
    ] {
        if let Some((s, _, _)) = sum.get(&(m.to_string(), "per_call".to_string(), 1)) {
            let ratio = base.map_or("–".to_string(), |b| format!("{:.2}×", s.median / b));
            let _ = writeln!(
                o,
                "| {m} | {:.0} [{}–{}] | {ratio} |",
                s.median, s.min, s.max
            );
        }
    }
    o.push('\n');
}

/// batchprobe against the BPF peers, on the same functions in the same boot.
fn peers_section(o: &mut String, b: &Bench, sum: &Summary, gp: &GpSummary) {
    let all: Vec<&str> = PEER_ENTRY_METHODS
        .iter()
        .chain(PEER_EXIT_METHODS.iter())
        .copied()
        .collect();
    if !sum.keys().any(|k| all.contains(&k.0.as_str())) {
        return;
    }
    let info = |k: &str| b.info.get(k).cloned().unwrap_or_else(|| "?".into());
    let _ = writeln!(
        o,
        "## Against the BPF peers\n\nWhat users attach thousands of probes with instead, \
         loaded by `bpfpeer` (selftests/bpfpeer.c, linked against this kernel tree's own \
         libbpf) with programs that count calls, as batchprobe's sets do. Entry only: the \
         functions are ftrace-able, kprobe-able, with names unique in ftrace's list and in kallsyms ({} here; the largest N is all \
         of them); `peer-bp-fprobe` is a batchprobe set of `p:` lines (its fprobe), \
         `peer-bp-direct` one of `d:` lines (one `ftrace_ops`, one patching pass), \
         `peer-kprobe-multi` one kprobe_multi link. Entry + exit: those of them the exit \
         trampoline accepts that have one traceable BTF function, that fentry and fexit \
         programs load on and, where the kernel has tracing_multi, that one link takes ({} \
         here); `peer-bp-exit` is a set made with `--exit`, `peer-kprobe-multi-ret` a \
         kprobe_multi plus a kretprobe_multi link, `peer-fentry-fexit` one fentry and one fexit \
         program and link per function (as retsnoop and bpftrace's fentry probes attach), \
         `peer-fentry-fexit-multi` one fentry.multi and one fexit.multi link (tracing_multi, \
         Linux 7.2 on), `peer-fsession-multi` one fsession.multi link (one program, entry and \
         exit). `attach` is, for batchprobe, the wall time of the write(2) `create; enable` \
         (timed around the call, as bpfpeer times its own); for BPF, `load` (the verifier, per program) plus `link`. `detach` is batchprobe's \
         `unregister --sync` write, and for BPF the closing of every link and program until \
         each program has left the kernel's id table. Methods take turns within each repeat; \
         one run where a run would pass {} s (one link per function at N = 1000), \
         over budget past {} s.\n",
        info("peer_entry_candidates"),
        info("peer_exit_candidates"),
        info("budget_s"),
        info("peer_budget_s")
    );
    phase_table(
        o,
        b,
        sum,
        "Entry only, ms: median [min–max]",
        &PEER_ENTRY_METHODS,
        &PEER_PHASES,
    );
    phase_table(
        o,
        b,
        sum,
        "Entry + exit, ms: median [min–max]",
        &PEER_EXIT_METHODS,
        &PEER_PHASES,
    );
    for (title, base, methods) in [
        (
            "Entry only: each way's median / the direct set's (×, above 1: batchprobe faster)",
            "peer-bp-direct",
            &PEER_ENTRY_METHODS[..],
        ),
        (
            "Entry + exit: each way's median / the exit set's (×, above 1: batchprobe faster)",
            "peer-bp-exit",
            &PEER_EXIT_METHODS[..],
        ),
    ] {
        let others: Vec<&str> = methods.iter().copied().filter(|m| *m != base).collect();
        let ns = sizes(sum, b, methods);
        let has = |m: &str, p: &str, n| median(sum, m, p, n).is_some();
        let cell =
            |m: &str, p: &str, n| match speedup(median(sum, m, p, n), median(sum, base, p, n)) {
                Some(r) => format!("{r:.2}×"),
                None => "–".into(),
            };
        table(o, title, &ns, (&others, &EXIT_PHASES), has, cell);
    }
    let ns: Vec<u64> = gp
        .keys()
        .filter(|k| all.contains(&k.0.as_str()))
        .map(|k| k.2)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    table(
        o,
        "Grace periods waited for (system-wide, during the phase): rcu/rcu_tasks/rcu_tasks_rude",
        &ns,
        (&all, &EXIT_PHASES),
        |m, p, n| gp_cell(gp, m, p, n).is_some(),
        |m, p, n| gp_cell(gp, m, p, n).unwrap_or_else(|| "–".into()),
    );
    let _ = writeln!(
        o,
        "Per call on `getppid()` (a tight loop), each way on `__task_pid_nr_ns` alone (getppid \
         calls it once; the syscall wrappers have no BTF, so fentry cannot take \
         `__x64_sys_getppid`), against the unprobed call:\n\n\
         | config | ns per call: median [min–max] | × unprobed |\n| --- | ---: | ---: |"
    );
    let base = sum
        .get(&("peer-no-probe".to_string(), "per_call".to_string(), 1))
        .map(|(s, _, _)| s.median);
    for m in PEER_PER_CALL {
        if let Some((s, _, _)) = sum.get(&(m.to_string(), "per_call".to_string(), 1)) {
            let ratio = base.map_or("–".to_string(), |b| format!("{:.2}×", s.median / b));
            let _ = writeln!(
                o,
                "| {m} | {:.0} [{}–{}] | {ratio} |",
                s.median, s.min, s.max
            );
        }
    }
    o.push('\n');
}

fn direct_section(o: &mut String, b: &Bench, sum: &Summary, gp: &GpSummary) {
    if !sum.keys().any(|k| DIRECT_METHODS.contains(&k.0.as_str())) {
        return;
    }
    let _ = writeln!(
        o,
        "## ftrace-direct calls\n\nThe first N ftrace-able text functions (`d:SET * max=N`). `direct` \
         is one batchprobe set: one `ftrace_ops`, one `ftrace_set_filter_ips`, one \
         `register_ftrace_direct` (one patching pass) for all N; `direct-ops-per-function` \
         attaches the same functions with one ops (and one patching pass) each; `fprobe` uses \
         `register_fprobe_ips` on the same functions. `register` includes walking the kernel's \
         symbols and checking each function; `attach` is the ftrace part alone; `detach` the \
         unregistration, which waits for RCU-tasks grace periods. The largest N is every \
         function ftrace can trace; `direct` and `fprobe` runs alternate. `make \
         profile-direct` shows how much of an attach is the kernel's text patching \
         (`text_poke_bp_batch`).\n"
    );
    phase_table(
        o,
        b,
        sum,
        "Direct-call phase times, ms: median [min–max]",
        &DIRECT_METHODS,
        &DIRECT_PHASES,
    );
    speedup_table(
        o,
        b,
        sum,
        "Direct-call speed-up over one ops per function (its median / method median)",
        "direct-ops-per-function",
        &DIRECT_METHODS[1..],
        &DIRECT_PHASES,
        |p| p,
    );
    let ops = median(sum, "direct-ops-per-function", "attach", 1000);
    let dir = median(sum, "direct", "attach", 1000);
    let fp = median(sum, "fprobe", "attach", 1000);
    let _ = writeln!(o, "Goals at N = 1000:\n");
    match (ops, dir) {
        (Some(ops), Some(d)) => {
            let r = ops / d;
            let _ = writeln!(
                o,
                "- attach ≥ 100× faster than one ops per function: **{r:.0}×** ({}).",
                if r >= 100.0 { "met" } else { "not met" }
            );
        }
        (None, Some(d)) => {
            // One ops per function was over budget at 1000: project from
            // its per-function cost at the largest N it ran.
            let per = sum
                .iter()
                .filter(|(k, _)| k.0 == "direct-ops-per-function" && k.1 == "attach")
                .max_by_key(|(k, _)| k.2)
                .map(|(k, (s, _, _))| (k.2, s.median / k.2 as f64));
            if let Some((n, per)) = per {
                let r = per * 1000.0 / d;
                let _ = writeln!(
                    o,
                    "- attach ≥ 100× faster than one ops per function: **{r:.0}×**, against \
                     one ops per function projected from its per-function cost at N = {n} \
                     (over budget at 1000) ({}).",
                    if r >= 100.0 { "met" } else { "not met" }
                );
            }
        }
        _ => {}
    }
    if let (Some(f), Some(d)) = (fp, dir) {
        let _ = writeln!(
            o,
            "- attach no slower than fprobe: direct {} ms vs fprobe {} ms ({}).",
            fmt_ms(d),
            fmt_ms(f),
            if d <= f { "met" } else { "not met" }
        );
    }
    if let Some(t) = tasks_gps_max(gp, "direct", "detach", 1000) {
        let _ = writeln!(
            o,
            "- detach waits for ≤ 2 RCU-tasks grace periods (`rcu_tasks` + `rcu_tasks_rude`, \
             the most of any run): **{t}** ({}); all kinds, median: {}.",
            if t <= 2 { "met" } else { "not met" },
            gp_cell(gp, "direct", "detach", 1000).unwrap_or_default()
        );
    }
    o.push('\n');
}

fn goals(o: &mut String, sum: &Summary, gp: &GpSummary, ns: &[u64]) {
    let _ = writeln!(o, "## Goals\n");
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
    o.push('\n');
}

fn per_hit(o: &mut String, sum: &Summary) {
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

fn csv(sum: &Summary) -> String {
    let mut o = String::from("method,phase,n,median_ns,min_ns,max_ns,runs,offset,got\n");
    for ((m, p, n), (s, off, got)) in sum {
        let _ = writeln!(
            o,
            "{m},{p},{n},{},{},{},{},{},{}",
            s.median,
            s.min,
            s.max,
            s.runs,
            off.map(|v| v.to_string()).unwrap_or_default(),
            got.map(|v| v.to_string()).unwrap_or_default()
        );
    }
    o
}

fn json(b: &Bench, sum: &Summary, a: &Args) -> serde_json::Value {
    let rows: Vec<_> = sum
        .iter()
        .map(|((m, p, n), (s, off, got))| {
            serde_json::json!({
                "method": m, "phase": p, "n": n, "median_ns": s.median,
                "min_ns": s.min, "max_ns": s.max, "runs": s.runs,
                "offset": off, "got": got,
            })
        })
        .collect();
    let over: Vec<_> = b
        .over_budget
        .iter()
        .map(|x| serde_json::json!({"method": x.method, "n": x.n, "projected_s": x.projected_s}))
        .collect();
    serde_json::json!({
        "date": a.date, "accel": a.accel, "info": b.info,
        "results": rows, "over_budget": over,
    })
}

/// One log-log plot: a line per method × phase, median ms against N.
fn plot(
    sum: &Summary,
    b: &Bench,
    methods: &[&str],
    phases: &[&str],
    title: &str,
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let ns: Vec<u64> = sizes(sum, b, methods)
        .into_iter()
        .filter(|&n| {
            methods
                .iter()
                .any(|m| phases.iter().any(|p| median(sum, m, p, n).is_some()))
        })
        .collect();
    let (Some(&xmin), Some(&xmax)) = (ns.first(), ns.last()) else {
        return Err("no data to plot".into());
    };
    let values: Vec<f64> = sum
        .iter()
        .filter(|(k, _)| {
            methods.contains(&k.0.as_str()) && phases.contains(&k.1.as_str()) && k.2 > 1
        })
        .map(|(_, (s, _, _))| s.median / 1e6)
        .filter(|v| *v > 0.0)
        .collect();
    let ymin = values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .max(1e-3);
    let ymax = values.iter().copied().fold(0.0, f64::max).max(ymin * 10.0);
    let root = SVGBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            ((xmin as f64 / 1.5)..(xmax as f64 * 1.5)).log_scale(),
            ((ymin / 2.0)..(ymax * 2.0)).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("probes (N)")
        .y_desc("ms (median)")
        .draw()?;
    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
    ];
    for (mi, m) in methods.iter().enumerate() {
        for (pi, p) in phases.iter().enumerate() {
            let pts: Vec<(f64, f64)> = ns
                .iter()
                .filter_map(|&n| {
                    median(sum, m, p, n).map(|v| (n as f64, (v / 1e6).max(ymin / 2.0)))
                })
                .collect();
            if pts.is_empty() {
                continue;
            }
            let color = palette[mi % palette.len()];
            let last = pi + 1 == phases.len();
            let style = ShapeStyle::from(&color).stroke_width(if last { 3 } else { 1 });
            chart
                .draw_series(LineSeries::new(pts.clone(), style))?
                .label(format!("{m} {p}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            let marker = pi;
            chart.draw_series(pts.into_iter().map(move |(x, y)| -> DynElement<_, _> {
                match marker {
                    0 => Circle::new((x, y), 4, color.filled()).into_dyn(),
                    1 => TriangleMarker::new((x, y), 5, color.filled()).into_dyn(),
                    2 => Cross::new((x, y), 4, color).into_dyn(),
                    _ => Circle::new((x, y), 5, color).into_dyn(),
                }
            }))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("benchreport: {e}");
        std::process::exit(1);
    }
}

/// One flavor's parsed boot.
struct Flavor {
    name: String,
    b: Bench,
    sum: Summary,
    gp: GpSummary,
}

/// `direct / fprobe / one ops per function` medians of `phase` at `n`, ms.
fn direct_methods_at(f: &Flavor, phase: &str, n: u64) -> String {
    let ms = |m: &str| median(&f.sum, m, phase, n).map_or("–".into(), fmt_ms);
    format!(
        "{} / {} / {}",
        ms("direct"),
        ms("fprobe"),
        ms("direct-ops-per-function")
    )
}

/// `exit / fprobe-exit / entry-kretprobe` medians of `phase` at `n`, ms.
fn exit_methods_at(f: &Flavor, phase: &str, n: u64) -> String {
    let ms = |m: &str| median(&f.sum, m, phase, n).map_or("–".into(), fmt_ms);
    format!(
        "{} / {} / {}",
        ms("exit"),
        ms("fprobe-exit"),
        ms("entry-kretprobe")
    )
}

/// The medians of `phase` at `n` of `methods`, ms, joined by ` / `.
fn peers_at(f: &Flavor, methods: &[&str], phase: &str, n: u64) -> String {
    methods
        .iter()
        .map(|m| median(&f.sum, m, phase, n).map_or("–".into(), fmt_ms))
        .collect::<Vec<_>>()
        .join(" / ")
}

fn entry_at(f: &Flavor, n: u64) -> Option<String> {
    let k = arm_disarm(&f.sum, "entry-kprobe", n)?;
    let a = arm_disarm(&f.sum, "entry-auto", n)?;
    Some(format!("{} / {} (**{:.0}×**)", fmt_ms(k), fmt_ms(a), k / a))
}

/// The report: the flavors' key figures side by side, then each flavor.
fn document(flavors: &[Flavor], a: &Args) -> String {
    let mut o = String::new();
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
    type Cell = fn(&Flavor) -> Option<String>;
    let rows: [(&str, Cell); 16] = [
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
            |f| Some(peers_at(f, &PEER_EXIT_METHODS[..4], "attach", 1000)),
        ),
        (
            "vs BPF, entry + exit detach 1000, ms: exit set / kprobe_multi + ret / fentry + fexit per function / tracing_multi",
            |f| Some(peers_at(f, &PEER_EXIT_METHODS[..4], "detach", 1000)),
        ),
    ];
    // A row no flavor measured (a partial run) is left out.
    let measured = |c: &Option<String>| {
        c.as_deref()
            .is_some_and(|c| c.split(" / ").any(|x| x != "–"))
    };
    for (label, cell) in rows {
        if !flavors.iter().any(|f| measured(&cell(f))) {
            continue;
        }
        let _ = write!(o, "| {label} |");
        for f in flavors {
            let _ = write!(o, " {} |", cell(f).unwrap_or_else(|| "–".into()));
        }
        o.push('\n');
    }
    o.push('\n');
    for f in flavors {
        o.push_str(&markdown(&f.b, &f.sum, &f.gp, a, &f.name));
    }
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
    let _ = writeln!(
        o,
        "## Reproduce\n\n```sh\nmake check   # once: installs, builds every check flavor's kernel\n\
         make bench   # builds the bench kernel once, then one boot per flavor, side by side \
         (one per host core under TCG, BP_JOBS), each about half an hour under TCG; \
         BP_BENCH_FLAVORS (\"bench distro distro-7.3\"), BP_BENCH_RUNS, \
         BP_BENCH_SIZES, BP_BENCH_DIRECT_RUNS, BP_BENCH_DIRECT_SIZES, BP_BENCH_BUDGET_S, \
         BP_BENCH_ENTRY_SIZES, BP_BENCH_EXIT_SIZES, BP_BENCH_PEER_ENTRY_SIZES, \
         BP_BENCH_PEER_EXIT_SIZES, BP_BENCH_PEER_BUDGET_S, BP_SMP, BP_ACCEL=kvm; \
         BP_BENCH_ONLY=entry: only the +0 entry comparison and per-hit costs, into \
         BENCHMARKS-entry.md; BP_BENCH_ONLY=exit: only entry + exit (kernels with BTF), into \
         BENCHMARKS-exit.md; BP_BENCH_ONLY=peers: only the BPF peers, into BENCHMARKS-peers.md\n```\n\n\
         `make bench` writes `out/bench/FLAVOR/{{raw.txt,console.log,results.csv,results.json}}` \
         and the plots, and rewrites this file (keeping its `## Earlier measurements` \
         section) and the plots in `docs/`."
    );
    o
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let a = args()?;
    let mut flavors = Vec::new();
    for (name, path) in &a.inputs {
        let text = std::fs::read_to_string(path)?;
        let b = parse(&text)?;
        if b.samples.is_empty() {
            return Err(format!("{}: no BENCH samples", path.display()).into());
        }
        let sum = summarise(&b);
        let gp = summarise_gp(&b);
        let dir = a.out_dir.join(name);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("results.csv"), csv(&sum))?;
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&json(&b, &sum, &a))?,
        )?;
        let plots = [
            (
                format!("bench-{name}.svg"),
                &METHODS[..],
                &PLOTTED[..],
                format!("{name}: kprobes, batchprobe vs tracefs: phase time vs number of probes (log-log)"),
            ),
            (
                format!("bench-direct-{name}.svg"),
                &DIRECT_METHODS[..],
                &DIRECT_PLOTTED[..],
                format!("{name}: ftrace-direct: attach / detach time vs number of functions (log-log)"),
            ),
        ];
        for (file, methods, phases, title) in plots {
            let svg = dir.join(&file);
            if sizes(&sum, &b, methods).is_empty() {
                continue;
            }
            plot(&sum, &b, methods, phases, &title, &svg)?;
            if let Some(d) = &a.svg_dir {
                std::fs::create_dir_all(d)?;
                std::fs::copy(&svg, d.join(&file))?;
            }
        }
        flavors.push(Flavor {
            name: name.clone(),
            b,
            sum,
            gp,
        });
    }
    let mut md = document(&flavors, &a);
    if let Some(path) = &a.markdown {
        // The hand-kept section of the report this one replaces (dated
        // measurements of earlier runs) stays, at the end.
        let old = std::fs::read_to_string(path).unwrap_or_default();
        let kept = benchreport::kept_tail(&old);
        if !kept.is_empty() {
            md = format!("{}\n\n{kept}", md.trim_end());
        }
        std::fs::write(path, &md)?;
    }
    print!("{md}");
    Ok(())
}
