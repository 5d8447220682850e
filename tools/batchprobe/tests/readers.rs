// SPDX-License-Identifier: GPL-2.0

//! The readers of `sets`, `stats` and `last_error`, on what each flavor's
//! module wrote (tests/data, recorded by scripts/record-fixtures.sh from
//! selftests/guest-record.sh's sets).

mod common;

use batchprobe::read::{last_error, sets, stats};
use common::{data, FLAVORS};

#[test]
fn sets_read_every_set_and_the_staged_lines() {
    for f in FLAVORS {
        let s = sets::parse(&data(f, "sets")).unwrap();
        let names: Vec<&str> = s.sets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["cnt", "rec", "lat", "off"], "{f}");
        assert_eq!(s.staged, 2, "{f}: p:staged/ vfs_read and vfs_write");
        let cnt = s.get("cnt").unwrap();
        assert_eq!(cnt.state, "enabled");
        // 4 fprobes (vfs_read*, getppid), int3 entry and return, a
        // return fprobe, the address's kprobe.
        assert_eq!(cnt.probes(), 8, "{f}: {cnt:?}");
        assert_eq!(
            cnt.skipped, 3,
            "{f}: __die, __die_body, __die_header forced onto int3"
        );
        assert!(
            cnt.hits >= 5 * 5,
            "{f}: five probes on getppid, five calls: {}",
            cnt.hits
        );
        assert_eq!(s.get("off").unwrap().state, "registered");
        assert!(s.sets.iter().all(|s| s.state != "freed"));
        let gone = sets::parse(&data(f, "sets.empty")).unwrap();
        assert!(
            gone.sets.iter().all(|s| s.state == "freed" && !s.is_live()),
            "{f}"
        );
        assert_eq!(gone.staged, 0, "{f}");
    }
}

#[test]
fn stats_agree_with_sets() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        let se = sets::parse(&data(f, "sets")).unwrap();
        assert_eq!(st.sets.len(), se.sets.len(), "{f}");
        for (a, b) in st.sets.iter().zip(&se.sets) {
            assert_eq!((&a.name, &a.state), (&b.name, &b.state), "{f}");
            assert_eq!(a.backends, b.backends, "{f}: {}", a.name);
            assert_eq!(a.skipped, b.skipped, "{f}: {}", a.name);
            // Hits go on between the two reads: never fewer.
            assert!(a.hits >= b.hits, "{f}: {}", a.name);
            let n: u64 = a.backends.iter().map(|(_, n)| n).sum();
            assert_eq!(
                a.probes.len() as u64,
                n,
                "{f}: {}: a line per probe",
                a.name
            );
            assert_eq!(
                a.probes.iter().map(|p| p.hits).sum::<u64>(),
                a.hits,
                "{f}: {}",
                a.name
            );
            assert_eq!(a.timings.len(), 9, "{f}: {}", a.name);
            assert_eq!(a.grace_periods.len(), 6, "{f}: {}", a.name);
        }
        assert!(st.header.iter().any(|(k, _)| k == "clock"), "{f}");
    }
}

#[test]
fn stats_read_each_kind_of_probe_line() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        let cnt = st.get("cnt").unwrap();
        let kinds: Vec<&str> = cnt.probes.iter().map(|p| p.kind.as_str()).collect();
        for k in ["kprobe", "kretprobe", "fprobe", "fretprobe"] {
            assert!(kinds.contains(&k), "{f}: {k} in {kinds:?}");
        }
        let int3 = cnt.probes.iter().find(|p| p.name == "int3_ppid").unwrap();
        assert_eq!(
            (int3.kind.as_str(), int3.offset, int3.hits),
            ("kprobe", 0, 5),
            "{f}"
        );
        assert!(int3.symbol.ends_with("sys_getppid"), "{f}: {}", int3.symbol);
        let at = cnt.probes.iter().find(|p| p.name == "at_addr").unwrap();
        assert!(
            at.symbol.ends_with("sys_getpid"),
            "{f}: an address shown at its symbol"
        );
        let names: Vec<&str> = cnt.refused.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names.len(), 3, "{f}");
        assert!(
            cnt.refused
                .iter()
                .all(|(s, e)| s.starts_with("__die") && *e == -22),
            "{f}"
        );
        assert!(cnt.backend_stats.iter().any(|(b, _)| b == "fprobes"), "{f}");
        let rec = st.get("rec").unwrap();
        assert_eq!(rec.mode, "record");
        let d = &rec.probes[0];
        assert_eq!((d.kind.as_str(), d.hits), ("direct", 5), "{f}");
        assert!(d.last_arg.is_some() && d.exits.is_none(), "{f}");
    }
}

#[test]
fn stats_read_histograms_and_errors() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        let lat = st.get("lat").unwrap();
        assert_eq!(lat.mode, "exit", "{f}");
        let mut hists = 0;
        for p in &lat.probes {
            assert!(p.exits.is_some() && p.last_ret.is_some(), "{f}: {}", p.name);
            if let Some(h) = &p.hist {
                hists += 1;
                assert_eq!(
                    h.buckets.iter().map(|b| b.1).sum::<u64>(),
                    h.count,
                    "{f}: {}",
                    p.name
                );
                assert!(
                    h.buckets.windows(2).all(|w| w[0].0 < w[1].0),
                    "{f}: buckets in order"
                );
                assert!(
                    h.p50_lt_ns <= h.p90_lt_ns && h.p90_lt_ns <= h.p99_lt_ns,
                    "{f}: {}",
                    p.name
                );
                assert!(h.count <= p.exits.unwrap(), "{f}: {}", p.name);
            }
            if let Some(e) = &p.errors {
                let named: u64 = e.by_errno.iter().map(|(_, n)| n).sum();
                assert_eq!(named + e.other, e.total, "{f}: {}", p.name);
            }
        }
        assert!(hists >= 5, "{f}: {hists} functions with a histogram");
        // Five opens of a missing file (bpopen), and busybox's own.
        let opens = lat.probes.iter().find(|p| p.name == "opens").unwrap();
        let e = opens.errors.as_ref().unwrap();
        assert!(
            e.by_errno.iter().any(|(n, c)| n == "ENOENT" && *c >= 5),
            "{f}: {e:?}"
        );
        // Three mkdirs of / (bpmkdir).
        let mk = lat
            .probes
            .iter()
            .filter_map(|p| p.errors.as_ref())
            .flat_map(|e| &e.by_errno);
        assert!(mk.clone().any(|(n, c)| n == "EEXIST" && *c == 3), "{f}");
    }
}

/// `MOD:SYM` probes waiting for their module, and gone with it: the set
/// lines count them (`waiting=`, `gone=`, only where not 0), each probe
/// line says which (`state=`).
#[test]
fn module_probes_waiting_and_gone() {
    let text = "\
# clock=tsc direct_missed=0 exit_inside=0 exit_gone=0 text_symbols=1 grace_periods rcu=1 rcu_tasks=1 rcu_tasks_rude=1
set w state=enabled kprobes=2 kretprobes=1 fprobes=0 fretprobes=0 direct=0 mode=count skipped=0 hits=5 missed=0 return_pool_bytes=0 waiting=1 gone=2
  register_ns=1 attach_ns=0 enable_ns=3 disable_ns=0 disarm_ns=0 unregister_call_ns=0 detach_ns=0 teardown_ns=0 unregister_complete_ns=0
  grace_periods rcu/rcu_tasks/rcu_tasks_rude register=0/0/0 enable=0/0/0 disarm=0/0/0 retarget=0/0/0 teardown=0/0/0 detach=0/0/0
  kprobe in m:f+0 hits=5 missed=0 state=gone
  kretprobe out m:f+0 hits=0 missed=0 state=gone
  kprobe n other:g+0 hits=0 missed=0 state=waiting
";
    let st = stats::parse(text).unwrap();
    let s = st.get("w").unwrap();
    assert_eq!((s.waiting, s.gone, s.hits), (1, 2, 5));
    assert_eq!(s.backends.len(), 5, "waiting= and gone= are no backends");
    let states: Vec<_> = s.probes.iter().map(|p| p.state.as_deref()).collect();
    assert_eq!(states, [Some("gone"), Some("gone"), Some("waiting")]);
    let l = sets::parse("w enabled kprobes=2 kretprobes=1 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=5 waiting=1 gone=2\nx enabled kprobes=1 kretprobes=0 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=0\n").unwrap();
    let w = l.get("w").unwrap();
    assert_eq!((w.waiting, w.gone, w.probes()), (1, 2, 3));
    assert_eq!(l.get("x").map(|x| (x.waiting, x.gone)), Some((0, 0)));
}

/// A set with direct calls into modules names the modules it holds
/// loaded (`holds=`, only where there are some), in both files.
#[test]
fn modules_held_by_direct_calls() {
    let l = sets::parse("d enabled kprobes=0 kretprobes=0 fprobes=0 fretprobes=0 direct=3 skipped=0 hits=9 holds=ext4,bp_foreign
x enabled kprobes=1 kretprobes=0 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=0
").unwrap();
    let d = l.get("d").unwrap();
    assert_eq!(
        (d.probes(), d.holds.as_slice()),
        (3, &["ext4".to_string(), "bp_foreign".to_string()][..])
    );
    assert!(l.get("x").unwrap().holds.is_empty());
    let text = "\
# clock=tsc direct_missed=0 exit_inside=0 exit_gone=0 text_symbols=1 grace_periods rcu=1 rcu_tasks=1 rcu_tasks_rude=1
set d state=enabled kprobes=0 kretprobes=0 fprobes=0 fretprobes=0 direct=1 mode=exit skipped=0 hits=2 missed=0 return_pool_bytes=0 holds=bp_foreign
";
    let st = stats::parse(text).unwrap();
    assert_eq!(st.get("d").unwrap().holds, ["bp_foreign"]);
    assert!(sets::parse("d enabled direct=1 skipped=0 hits=0 holds=a,,b\n").is_err());
}

#[test]
fn last_error_names_its_line_and_errno() {
    for f in FLAVORS {
        let p = last_error::parse(&data(f, "last_error.parse")).unwrap();
        assert_eq!(
            (p.line, p.errno.as_deref()),
            (Some(1), Some("EINVAL")),
            "{f}"
        );
        assert_eq!(p.text.lines().count(), 3, "{f}: the line and its caret");
        assert!(p.text.lines().nth(2).unwrap().trim() == "^", "{f}");
        let c = last_error::parse(&data(f, "last_error.create")).unwrap();
        assert_eq!(
            (c.line, c.errno.as_deref()),
            (Some(2), Some("ENOENT")),
            "{f}"
        );
    }
    let e = last_error::parse(
        "line 2 of an earlier write: p!:ew/x f: unknown symbol (ENOENT), at create on line 1\n",
    )
    .unwrap();
    assert_eq!(
        (e.line, e.errno.as_deref()),
        (None, Some("ENOENT")),
        "another write's line"
    );
    assert_eq!(last_error::parse(""), None);
    assert_eq!(last_error::parse("\n"), None);
}

#[test]
fn malformed_files_say_where() {
    let e = sets::parse("a enabled kprobes=x\n").unwrap_err();
    assert_eq!((e.file, e.line), ("sets", 1));
    assert!(e.why.contains("kprobes=x"), "{}", e.why);
    let e = stats::parse("# clock=tsc\n  fprobe x\n").unwrap_err();
    assert_eq!(e.line, 2);
    let e =
        stats::parse("set a state=enabled\n  fprobe a a+0 hits=1 missed=0\n    hist b count=1\n")
            .unwrap_err();
    assert!(e.why.contains("another probe"), "{}", e.why);
    let e = stats::parse("bogus\n").unwrap_err();
    assert!(e.to_string().contains("stats line 1"), "{e}");
}

/// Line shapes the recorded files do not hold, as src/set/report.rs
/// writes them: refused members past those named, members past a cap, an
/// errno without a name, an unbounded percentile, a module's function at
/// an offset, an API client's set, a freed set, a probe named `skipped`.
#[test]
fn stats_read_the_rarer_lines() {
    let text = "\
# clock=ktime direct_missed=0 exit_inside=0 exit_gone=0 grace_periods rcu=1 rcu_tasks=- rcu_tasks_rude=0
set owner.api state=enabled kprobes=2 kretprobes=0 fprobes=0 fretprobes=0 direct=1 mode=exit skipped=300 hits=9 missed=1 return_pool_bytes=0
  register_ns=1 attach_ns=2 enable_ns=3 disable_ns=0 disarm_ns=0 unregister_call_ns=0 detach_ns=0 teardown_ns=0 unregister_complete_ns=0
  grace_periods rcu/rcu_tasks/rcu_tasks_rude register=0/-/0 enable=0/-/0 disarm=0/-/0 retarget=0/-/0 teardown=0/-/0 detach=0/-/0
  kprobe skipped ext4:ext4_file_open+16 hits=4 missed=1
  kprobe p_0x00000000deadbeef vfs_read+4 hits=0 missed=0
  direct slow slow_fn+0 hits=5 missed=0 last_arg=0000000000000000 exits=5 last_ret=fffffffffffffff2
    hist slow count=5 mean_ns=300000000000 p50_lt_ns=inf p90_lt_ns=inf p99_lt_ns=inf log2_ns=274877906944:5
    errors slow total=5 EFAULT=3 errno529=1 other=1
  skipped a errno=-95
  skipped ... 299 more
  skipped 7 past the cap of 8
set gone state=freed kprobes=0 kretprobes=0 fprobes=0 fretprobes=0 direct=0 mode=- skipped=0 hits=3 missed=0 return_pool_bytes=0
  register_ns=1 attach_ns=2 enable_ns=3 disable_ns=0 disarm_ns=0 unregister_call_ns=0 detach_ns=0 teardown_ns=0 unregister_complete_ns=0
  grace_periods rcu/rcu_tasks/rcu_tasks_rude register=0/-/0 enable=0/-/0 disarm=0/-/0 retarget=0/-/0 teardown=0/-/0 detach=0/-/0
";
    let st = stats::parse(text).unwrap();
    let s = st.get("owner.api").unwrap();
    assert_eq!(s.probes[0].name, "skipped");
    assert_eq!(
        (s.probes[0].symbol.as_str(), s.probes[0].offset),
        ("ext4:ext4_file_open", 16)
    );
    assert_eq!(s.probes[1].name, "p_0x00000000deadbeef");
    let h = s.probes[2].hist.as_ref().unwrap();
    assert_eq!(
        (h.p50_lt_ns, h.p99_lt_ns, h.buckets.as_slice()),
        (None, None, &[(1u64 << 38, 5u64)][..])
    );
    let e = s.probes[2].errors.as_ref().unwrap();
    assert_eq!(
        e.by_errno,
        [("EFAULT".to_string(), 3), ("errno529".to_string(), 1)]
    );
    assert_eq!((e.total, e.other), (5, 1));
    assert_eq!(s.refused, [("a".to_string(), -95)]);
    assert_eq!((s.refused_more, s.past_cap), (299, Some((7, 8))));
    let g = st.get("gone").unwrap();
    assert_eq!(
        (g.state.as_str(), g.probes.len(), g.mode.as_str()),
        ("freed", 0, "-")
    );
}

/// Exit records as each flavor's tracefs printed them (set lat's line
/// `d:lat/opens do_sys_openat2 ... ret=$retval`: its return records), and
/// the histograms `latency --pid` makes of their durations, shaped as the
/// module's.
#[test]
fn exit_records_give_function_and_duration() {
    use batchprobe::read::records::{exit_record, Durations};
    for f in FLAVORS {
        let trace = data(f, "trace");
        let recs: Vec<(&str, u64)> = trace.lines().filter_map(exit_record).collect();
        let opens: Vec<u64> = recs
            .iter()
            .filter(|(func, _)| *func == "do_sys_openat2")
            .map(|r| r.1)
            .collect();
        assert!(opens.len() >= 10, "{f}: {} opens records", opens.len());
        assert!(opens.iter().all(|&ns| ns > 0), "{f}");
        // Entry records, kretprobes' and fretprobes' return records carry
        // no duration: not exit records.
        assert!(trace
            .lines()
            .filter(|l| l.contains("gp") || l.contains("ret_ppid"))
            .all(|l| exit_record(l).is_none()));
        let mut d = Durations::default();
        opens.iter().for_each(|&ns| d.add(ns));
        let h = d.hist().unwrap();
        assert_eq!(h.count, opens.len() as u64, "{f}");
        assert_eq!(h.buckets.iter().map(|b| b.1).sum::<u64>(), h.count, "{f}");
        assert_eq!(
            h.mean_ns,
            opens.iter().sum::<u64>() / opens.len() as u64,
            "{f}"
        );
        let mut sorted = opens.clone();
        sorted.sort_unstable();
        let p50 = sorted[sorted.len().div_ceil(2) - 1];
        assert!(
            p50 < h.p50_lt_ns.unwrap() && p50 >= h.p50_lt_ns.unwrap() / 2,
            "{f}: {p50} {h:?}"
        );
    }
    assert_eq!(
        exit_record("  bpopen-212 [001] ...1. 30.3: opens: (do_sys_open+0x62/0x80 <- do_sys_openat2) dfd=-100 ret=-2 duration=250901"),
        Some(("do_sys_openat2", 250901))
    );
    assert_eq!(exit_record("# tracer: nop"), None);
    assert_eq!(Durations::default().hist(), None);
    let mut d = Durations::default();
    d.add(0);
    d.add(u64::MAX);
    let h = d.hist().unwrap();
    assert_eq!(h.buckets, [(0, 1), (1 << 38, 1)]);
    assert_eq!((h.p50_lt_ns, h.p99_lt_ns), (Some(1), None));
}
