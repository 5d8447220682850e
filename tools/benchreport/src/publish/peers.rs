// SPDX-License-Identifier: GPL-2.0

//! batchprobe against the BPF links users attach thousands of probes with,
//! on the same functions in the same boot: attach (warm and cold), detach,
//! and the cost per call.

use std::fmt::Write as _;

use super::kprobes::cell_of;
use super::Run;
use crate::methods::{PEER_COLD, PEER_ENTRY_METHODS, PEER_EXIT_METHODS, PEER_PER_CALL};
use crate::tables::sizes;
use benchreport::*;

/// What a reader calls each way of the peers' tables.
fn label(method: &str) -> &str {
    match method {
        "peer-bp-fprobe" => "batchprobe, `p:` lines (one fprobe)",
        "peer-bp-fprobe-events" => "the same with an event per line (tracefs)",
        "peer-bp-direct" => "batchprobe, `d:` lines (one ftrace_ops)",
        "peer-kprobe-multi" => "one kprobe_multi link",
        "peer-bp-exit" => "batchprobe, `d:` lines `--exit`",
        "peer-bp-exit-rec" => "the same with return records (an event per function)",
        "peer-kprobe-multi-ret" => "kprobe_multi + kretprobe_multi links",
        "peer-fentry-fexit" => "fentry + fexit, a link per function (retsnoop, bpftrace)",
        "peer-fentry-fexit-multi" => "fentry.multi + fexit.multi links",
        "peer-fsession-multi" => "one fsession.multi link",
        "peer-fsession-rb" => "fsession.multi writing a ring-buffer record",
        m => m,
    }
}

/// What a reader calls each way of the per-call table.
fn per_call_label(method: &str) -> &str {
    match method {
        "peer-no-probe" => "no probe",
        "peer-bp-direct" => "batchprobe `d:`, counting",
        "peer-bp-fprobe" => "batchprobe `p:` (fprobe), counting",
        "peer-bp-exit" => "batchprobe `d:` `--exit`, counting",
        "peer-bp-exit-hist" => "batchprobe `--exit --hist`",
        "peer-bp-exit-rec" => "batchprobe `--exit`, a return record per call",
        "peer-kernel-fexit-event" => "the kernel's `f:SYM%return` event, the same record",
        "peer-kprobe-multi" => "kprobe_multi, counting",
        "peer-kprobe-multi-ret" => "kprobe_multi + kretprobe_multi, counting",
        "peer-fentry" => "fentry, counting",
        "peer-fentry-fexit" => "fentry + fexit, counting",
        "peer-fentry-fexit-hist" => "fentry + fexit, a log2 histogram",
        "peer-fentry-fexit-rb" => "fentry + fexit, a ring-buffer record per call",
        "peer-fentry-multi" => "fentry.multi, counting",
        "peer-fentry-fexit-multi" => "fentry.multi + fexit.multi, counting",
        "peer-fsession-multi" => "fsession.multi, counting",
        "peer-fsession-rb" => "fsession.multi, a ring-buffer record per call",
        m => m,
    }
}

/// The entry-only table.
pub(crate) fn entry(o: &mut String, r: &Run) {
    if !has(r, &PEER_ENTRY_METHODS) {
        return;
    }
    let _ = writeln!(
        o,
        "### Entry probes on N functions: batchprobe against kprobe_multi\n\n\
         Counting calls, no records, on functions ftrace and kprobes both take, with names \
         unique in kallsyms ({} here; the largest N is all of them). *attach* is, for \
         batchprobe, its staging write(s) (every name resolved) plus the `create; enable` \
         write; for BPF, the programs' load (the verifier) plus the link. *detach*: \
         batchprobe's `unregister --sync` write; BPF's closing of links and programs until \
         they have left the kernel. *cold*: the module loaded (timed) and its first \
         create written at once{}. *×* is the kprobe_multi link's median over the way's \
         (above 1: batchprobe faster). {} warm runs; one cold{}.\n",
        r.info("peer_entry_candidates"),
        if has_loaded(r) {
            "; *loaded earlier*: its first create once the walk of the kernel's text \
             symbols it starts at load has ended"
        } else {
            ""
        },
        r.info("peer_runs"),
        if has_loaded(r) {
            ", one loaded earlier"
        } else {
            ""
        }
    );
    table(
        o,
        r,
        &PEER_ENTRY_METHODS,
        "peer-kprobe-multi",
        "the kprobe_multi link",
    );
}

/// The entry + exit table.
pub(crate) fn exit(o: &mut String, r: &Run) {
    if !has(r, &PEER_EXIT_METHODS) {
        return;
    }
    let _ = writeln!(
        o,
        "### Entry + exit on N functions: batchprobe's exit sets against BPF\n\n\
         Each function's calls and durations, on functions the exit trampoline takes that \
         have one traceable BTF function, that fentry and fexit programs load on and, where \
         the kernel has it, that one tracing_multi link takes ({} here). *attach* and \
         *detach* as above; *×* is the kprobe_multi + kretprobe_multi pair's median over \
         the way's. A way whose one run would pass {} s is run once; past {} s it is not run \
         (over budget, with its projection).\n",
        r.info("peer_exit_candidates"),
        r.info("budget_s"),
        r.info("peer_budget_s")
    );
    table(
        o,
        r,
        &PEER_EXIT_METHODS,
        "peer-kprobe-multi-ret",
        "the kprobe_multi pair",
    );
}

/// Whether the run has any of the peers' figures.
pub(crate) fn has_any(r: &Run) -> bool {
    has(r, &PEER_ENTRY_METHODS)
        || has(r, &PEER_EXIT_METHODS)
        || r.sum.keys().any(|k| k.0 == "peer-no-probe")
}

/// Whether the run measured any of `ways`' attach.
fn has(r: &Run, ways: &[&str]) -> bool {
    r.sum
        .keys()
        .any(|k| k.1 == "attach" && ways.contains(&k.0.as_str()))
}

/// Whether the run has a point loaded earlier (`METHOD-loaded`, measured
/// since 2026-12-06): its tables get that column only then.
fn has_loaded(r: &Run) -> bool {
    r.sum.keys().any(|k| k.0.ends_with("-loaded"))
}

/// One row per N and way: attach warm, attach cold (`METHOD-cold`: insmod
/// and the first attach), the first attach of a module loaded earlier
/// (`METHOD-loaded`, where the run has any), detach, and the ratios to
/// `base` (`base_name` in the heading).
fn table(o: &mut String, r: &Run, ways: &[&str], base: &str, base_name: &str) {
    let loaded_col = has_loaded(r);
    let _ = writeln!(
        o,
        "| N | way | attach, warm (ms) | cold: insmod + first attach (ms) {}| detach (ms) \
         | × {base_name}: attach warm / cold{}, detach |\n\
         | ---: | --- | ---: | ---: | ---: | ---: |{}",
        if loaded_col {
            "| loaded earlier: first attach (ms) "
        } else {
            ""
        },
        if loaded_col { " / loaded earlier" } else { "" },
        if loaded_col { " ---: |" } else { "" }
    );
    for n in sizes(&r.sum, &r.b, ways) {
        for m in ways {
            let label = label(m);
            if let Some(ob) = r.b.over_budget.iter().find(|x| x.method == *m && x.n == n) {
                let _ = writeln!(
                    o,
                    "| {n} | {label} | over budget ({} s projected) | | |{} |",
                    ob.projected_s,
                    if loaded_col { " |" } else { "" }
                );
                continue;
            }
            if !r.sum.keys().any(|k| k.0 == *m && k.2 == n) {
                continue;
            }
            let warm = r.live(m, "attach", n);
            let detach = r.live(m, "detach", n);
            let cold_m = format!("{m}-cold");
            let cold = match (r.live(&cold_m, "insmod", n), r.live(&cold_m, "attach", n)) {
                (Ok(i), Ok(a)) => Ok((i, a)),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            let shown = |v: &Result<f64, String>, phase: &str| match v {
                Ok(_) => cell_of(r, m, phase, n),
                Err(e) => e.clone(),
            };
            let cold_cell = match &cold {
                Ok((i, a)) => format!("{} ({} + {})", fmt_ms(i + a), fmt_ms(*i), fmt_ms(*a)),
                Err(e) if e != "–" => e.clone(),
                Err(_) if PEER_COLD.contains(m) => "not run".into(),
                Err(_) => "–".into(),
            };
            let loaded_m = format!("{m}-loaded");
            let loaded = r.live(&loaded_m, "attach", n);
            let loaded_cell = match &loaded {
                Ok(_) => cell_of(r, &loaded_m, "attach", n),
                Err(e) if e != "–" => e.clone(),
                Err(_) if PEER_COLD.contains(m) => "not run".into(),
                Err(_) => "–".into(),
            };
            let ratio = |x: Result<f64, String>, phase: &str| match (r.live(base, phase, n), x) {
                (Ok(b), Ok(x)) if x > 0.0 => format!("{:.2}×", b / x),
                _ => "–".into(),
            };
            let (loaded_cell, loaded_ratio) = if loaded_col {
                (
                    format!("{loaded_cell} | "),
                    format!(" / {}", ratio(loaded, "attach")),
                )
            } else {
                (String::new(), String::new())
            };
            let ratios = format!(
                "{} / {}{loaded_ratio}, {}",
                ratio(warm.clone(), "attach"),
                ratio(cold.clone().map(|(i, a)| i + a), "attach"),
                ratio(detach.clone(), "detach")
            );
            let _ = writeln!(
                o,
                "| {n} | {label} | {} | {cold_cell} | {loaded_cell}{} | {ratios} |",
                shown(&warm, "attach"),
                shown(&detach, "detach")
            );
        }
    }
    o.push('\n');
}

/// The cost per call of every way, against the unprobed call.
pub(crate) fn per_call(o: &mut String, r: &Run) {
    if !r.sum.keys().any(|k| k.0 == "peer-no-probe") {
        return;
    }
    let _ = writeln!(
        o,
        "### The cost per call\n\n\
         `getppid()` in a tight loop, each way on `__task_pid_nr_ns` alone (getppid calls it \
         once; the syscall wrappers have no BTF, so fentry cannot take them); ns per call, \
         median [min–max] of {} runs, and over the unprobed call; a way is shown only where \
         it counted every call (or wrote every record). A histogram: batchprobe's `--hist`, \
         BPF's the funclatency way (entry time in a hash map by thread, a per-CPU log2 \
         histogram). A record: the first argument, the return value and the duration, to \
         the tracefs ring buffer (batchprobe, the kernel's event) or a BPF ring buffer.\n\n\
         | way | ns per call | × unprobed |\n| --- | ---: | ---: |",
        r.info("runs")
    );
    let base = r.live("peer-no-probe", "per_call", 1).ok();
    for m in PEER_PER_CALL {
        let Ok(v) = r.live(m, "per_call", 1) else {
            continue;
        };
        let ratio = base.map_or("–".into(), |b| format!("{:.2}×", v / b));
        let _ = writeln!(o, "| {} | {} | {ratio} |", per_call_label(m), ns_cell(r, m));
    }
    o.push('\n');
}

/// `median [min–max]` in ns, or the median alone where the runs agree.
fn ns_cell(r: &Run, m: &str) -> String {
    match r.sum.get(&(m.to_string(), "per_call".to_string(), 1)) {
        Some((s, _, _)) if s.min != s.max => format!("{:.0} [{}–{}]", s.median, s.min, s.max),
        Some((s, _, _)) => format!("{:.0}", s.median),
        None => "–".into(),
    }
}
