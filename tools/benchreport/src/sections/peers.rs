// SPDX-License-Identifier: GPL-2.0

//! Against the BPF peers: what users attach thousands of probes with.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::sections::gp::*;
use crate::tables::*;

/// batchprobe against the BPF peers, on the same functions in the same boot.
pub(crate) fn peers_section(o: &mut String, b: &Bench, sum: &Summary, gp: &GpSummary) {
    let all: Vec<&str> = PEER_ENTRY_METHODS
        .iter()
        .chain(PEER_EXIT_METHODS.iter())
        .copied()
        .collect();
    if !sum
        .keys()
        .any(|k| all.contains(&k.0.as_str()) && k.1 != "per_call")
    {
        // A per-call run alone (BP_BENCH_ONLY=peercall): its table only.
        if sum.keys().any(|k| k.0 == "peer-no-probe") {
            let _ = writeln!(o, "## The BPF peers, per call\n");
            peers_per_call(o, sum);
        }
        return;
    }
    peers_intro(o, b);
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
    peers_speedups(o, b, sum);
    peers_per_function(o, b, sum);
    peers_gp_table(o, gp, &all);
    peers_per_call(o, sum);
}

/// Writes the per-call table of every way, and the histogram's verdict.
fn peers_per_call(o: &mut String, sum: &Summary) {
    let _ = writeln!(
        o,
        "Per call on `getppid()` (a tight loop), each way on `__task_pid_nr_ns` alone (getppid \
         calls it once; the syscall wrappers have no BTF, so fentry cannot take \
         `__x64_sys_getppid`), against the unprobed call:\n\n\
         | config | ns per call: median [min–max] | × unprobed |\n| --- | ---: | ---: |"
    );
    per_call_rows(o, sum, "peer-no-probe", &PEER_PER_CALL);
    let m = |k: &str| median(sum, k, "per_call", 1);
    if let (Some(b), Some(f)) = (m("peer-bp-exit-hist"), m("peer-fentry-fexit-hist")) {
        let _ = writeln!(
            o,
            "- Durations in a log2 histogram: batchprobe's exit set with `--hist` vs BPF \
             fentry + fexit the funclatency way (entry time in a hash map by thread, a \
             per-CPU log2 histogram): {b:.0} vs {f:.0} ns per call = {:.2}×.\n",
            b / f
        );
    }
    // The record path's goal: no slower than the BPF pair writing the same
    // fields to a BPF ring buffer (and fsession, where the kernel has it).
    if let (Some(b), Some(k)) = (m("peer-bp-exit-rec"), m("peer-kernel-fexit-event")) {
        let _ = writeln!(
            o,
            "- The same record through the kernel's own fprobe event \
             (`f:SYM%return` with the same arguments, in `dynamic_events`, enabled): \
             batchprobe {b:.0} vs the kernel's {k:.0} ns per call = {:.2}×.\n",
            b / k
        );
    }
    if let Some(b) = m("peer-bp-exit-rec") {
        for (peer, what) in [
            (
                "peer-fentry-fexit-rb",
                "BPF fentry + fexit (entry time in a hash map by thread)",
            ),
            (
                "peer-fsession-rb",
                "BPF fsession.multi (entry time in the session cookie)",
            ),
        ] {
            if let Some(f) = m(peer) {
                let verdict = if b <= f { "met" } else { "not met" };
                let _ = writeln!(
                    o,
                    "- A record per call (the function, its first argument, its return value, \
                     the duration): batchprobe's exit set writing its return records to the \
                     tracefs ring buffer vs {what} writing them to a BPF ring buffer: {b:.0} \
                     vs {f:.0} ns per call = {:.2}× (goal: no slower, {verdict}).\n",
                    b / f
                );
            }
        }
    }
}

/// Writes the section's heading and what each way and phase is.
fn peers_intro(o: &mut String, b: &Bench) {
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
         here); `peer-bp-exit` is a set made with `--exit`, `peer-bp-exit-rec` the same \
         with return records (an event per function, each line reading its first argument \
         kept at entry), `peer-kprobe-multi-ret` a \
         kprobe_multi plus a kretprobe_multi link, `peer-fentry-fexit` one fentry and one fexit \
         program and link per function (as retsnoop and bpftrace's fentry probes attach), \
         `peer-fentry-fexit-multi` one fentry.multi and one fexit.multi link (tracing_multi, \
         Linux 7.2 on), `peer-fsession-multi` one fsession.multi link (one program, entry and \
         exit), `peer-fsession-rb` the same writing a record per call to a BPF ring buffer. `attach` is, for batchprobe, the wall time of the write(2) `create; enable` \
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
}

/// Writes, entry only and entry + exit, each way's median over batchprobe's.
fn peers_speedups(o: &mut String, b: &Bench, sum: &Summary) {
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
}

/// Writes the scaling: each way's median attach and detach per function
/// (µs), against N; constant per-function cost is a flat row.
fn peers_per_function(o: &mut String, b: &Bench, sum: &Summary) {
    for (title, methods) in [
        (
            "Entry only, µs per function (median / N)",
            &PEER_ENTRY_METHODS[..],
        ),
        (
            "Entry + exit, µs per function (median / N)",
            &PEER_EXIT_METHODS[..],
        ),
    ] {
        let ns = sizes(sum, b, methods);
        let has = |m: &str, p: &str, n| median(sum, m, p, n).is_some();
        let cell = |m: &str, p: &str, n: u64| match median(sum, m, p, n) {
            Some(v) if n > 0 => fmt_us(per_function_us(v, n)),
            _ => "–".into(),
        };
        table(o, title, &ns, (methods, &EXIT_PHASES), has, cell);
    }
}

/// Writes the grace periods each of the methods `all` waited for.
fn peers_gp_table(o: &mut String, gp: &GpSummary, all: &[&str]) {
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
        (all, &EXIT_PHASES),
        |m, p, n| gp_cell(gp, m, p, n).is_some(),
        |m, p, n| gp_cell(gp, m, p, n).unwrap_or_else(|| "–".into()),
    );
}
