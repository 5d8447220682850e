// SPDX-License-Identifier: GPL-2.0

//! What a user reads: tables, histograms as funclatency draws them, and
//! the commands' reports built from recorded `stats`.

mod common;

use std::collections::HashMap;

use batchprobe::cli::{LatencySort, StatsSort, TopSort};
use batchprobe::cmd::{count, latency, ls, stats as stats_cmd, top};
use batchprobe::read::sets;
use batchprobe::read::stats::{self, Hist};
use batchprobe::render::{below, duration, hist, table::Table};
use common::{data, FLAVORS};

#[test]
fn tables_align_numbers_right_and_text_left() {
    let mut t = Table::new(&["FUNC", "COUNT"]);
    t.row(vec!["vfs_read".into(), "7".into()]);
    t.row(vec!["x".into(), "12345".into()]);
    assert_eq!(
        t.render(),
        "FUNC      COUNT\nvfs_read      7\nx         12345\n"
    );
}

#[test]
fn durations_read_short() {
    assert_eq!(duration(950), "950ns");
    assert_eq!(duration(8192), "8.2us");
    assert_eq!(duration(1_048_576), "1.05ms");
    assert_eq!(duration(2_500_000_000), "2.50s");
    assert_eq!(below(Some(32768)), "<32.8us");
    assert_eq!(below(Some(32769)), "<32.8us");
    assert_eq!(below(Some(32801)), "<32.9us");
    assert_eq!(below(None), "inf");
}

/// BCC's funclatency output for the same slots, as its print_log2_hist
/// writes it (stars = floor(40 * count / max)).
#[test]
fn histograms_draw_as_funclatency() {
    let h = Hist {
        count: 7,
        mean_ns: 0,
        p50_lt_ns: None,
        p90_lt_ns: None,
        p99_lt_ns: None,
        buckets: vec![(0, 1), (1, 1), (4096, 4), (16384, 1)],
    };
    let want = "     nsecs               : count     distribution
         0 -> 1          : 2        |********************                    |
         2 -> 3          : 0        |                                        |
         4 -> 7          : 0        |                                        |
         8 -> 15         : 0        |                                        |
        16 -> 31         : 0        |                                        |
        32 -> 63         : 0        |                                        |
        64 -> 127        : 0        |                                        |
       128 -> 255        : 0        |                                        |
       256 -> 511        : 0        |                                        |
       512 -> 1023       : 0        |                                        |
      1024 -> 2047       : 0        |                                        |
      2048 -> 4095       : 0        |                                        |
      4096 -> 8191       : 4        |****************************************|
      8192 -> 16383      : 0        |                                        |
     16384 -> 32767      : 1        |**********                              |
";
    assert_eq!(hist::draw(&h), want);
    // Leading empty rows are left out.
    let h = Hist {
        buckets: vec![(65536, 3)],
        ..h
    };
    assert_eq!(
        hist::draw(&h).lines().nth(1).unwrap(),
        "     65536 -> 131071     : 3        |****************************************|"
    );
    assert_eq!(hist::draw(&Hist::default()), "");
}

#[test]
fn histograms_of_every_recorded_function_count_its_calls() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        for p in st.sets.iter().flat_map(|s| &s.probes) {
            if let Some(h) = &p.hist {
                let drawn: u64 = hist::draw(h)
                    .lines()
                    .skip(1)
                    .map(|l| {
                        l.split(':')
                            .nth(1)
                            .unwrap()
                            .split('|')
                            .next()
                            .unwrap()
                            .trim()
                            .parse::<u64>()
                            .unwrap()
                    })
                    .sum();
                assert_eq!(drawn, h.count, "{f}: {}", p.name);
            }
        }
    }
}

#[test]
fn count_reports_calls_per_function_since_the_last_interval() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        let cnt = st.get("cnt").unwrap();
        let all = count::counts_since(cnt, &HashMap::new());
        assert!(
            all.windows(2).all(|w| w[0].count >= w[1].count),
            "{f}: most calls first"
        );
        // getppid carries four probes: their hits add up under its name.
        let ppid = all
            .iter()
            .find(|c| c.function.ends_with("sys_getppid"))
            .unwrap();
        // Entry, return and int3 probes on it: each saw the 5 calls.
        assert_eq!(ppid.count, 5, "{f}");
        assert!(
            all.iter().all(|c| c.count > 0),
            "{f}: uncalled functions left out"
        );
        let before: HashMap<String, u64> =
            all.iter().map(|c| (c.function.clone(), c.count)).collect();
        assert!(count::counts_since(cnt, &before).is_empty(), "{f}");
    }
}

#[test]
fn latency_sorts_by_p99_and_lists_every_errno() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        let lat = st.get("lat").unwrap();
        let rows = latency::latencies(lat, LatencySort::P99);
        let p99 =
            |r: &latency::FunctionLatency| r.hist.as_ref().unwrap().p99_lt_ns.unwrap_or(u64::MAX);
        assert!(rows.windows(2).all(|w| p99(&w[0]) >= p99(&w[1])), "{f}");
        let errors = latency::error_rows(&rows);
        assert!(
            errors.iter().any(|e| e.errno == "ENOENT" && e.count >= 5),
            "{f}"
        );
        assert!(
            errors.iter().any(|e| e.errno == "EEXIST" && e.count == 3),
            "{f}"
        );
        let report = latency::Report {
            functions: lat.probes.len() as u64,
            rows: rows.clone(),
            errors,
        };
        let text = latency::render(&report, 2, true);
        assert!(text.starts_with("FUNC "), "{f}: {text}");
        assert_eq!(text.matches("nsecs").count(), 2, "{f}: two histograms");
        assert!(text.contains("ERRNO") && text.contains("ENOENT"), "{f}");
        let by_count = latency::latencies(lat, LatencySort::Count);
        assert!(by_count.windows(2).all(|w| w[0].calls >= w[1].calls), "{f}");
    }
}

#[test]
fn stats_table_names_refused_members_in_words() {
    for f in FLAVORS {
        let st = stats::parse(&data(f, "stats")).unwrap();
        let sets = stats_cmd::select(&st, Some("cnt")).unwrap();
        let text = stats_cmd::render(&sets, StatsSort::Hits, 0);
        assert!(
            text.contains("set cnt: 3 glob member(s) refused by the kernel: "),
            "{f}: {text}"
        );
        assert!(text.contains("(EINVAL)") && !text.contains("-22"), "{f}");
        assert!(
            !text.contains("EXITS"),
            "{f}: no exit columns without an exit set"
        );
        let lat = stats_cmd::render(
            &stats_cmd::select(&st, Some("lat")).unwrap(),
            StatsSort::P99,
            3,
        );
        assert_eq!(
            lat.lines().filter(|l| l.starts_with("lat ")).count(),
            3,
            "{f}: {lat}"
        );
        assert!(lat.contains("EXITS"), "{f}");
        assert!(stats_cmd::select(&st, Some("nope")).is_err());
    }
}

#[test]
fn top_rates_are_calls_over_the_interval() {
    let st = stats::parse(&data("test", "stats")).unwrap();
    let mut before = HashMap::new();
    for s in &st.sets {
        for p in &s.probes {
            before.insert(top::key(&s.name, p), p.hits.saturating_sub(4));
        }
    }
    let rows = top::rows(&st, &before, 2.0, TopSort::Rate);
    let called = rows.iter().filter(|r| r.hits >= 4).count();
    assert!(rows.iter().take(called).all(|r| r.rate == 2.0));
    assert_eq!(
        rows.len(),
        st.sets.iter().map(|s| s.probes.len()).sum::<usize>()
    );
    // A probe not in the last snapshot (just made) has no rate yet.
    let fresh = top::rows(&st, &HashMap::new(), 1.0, TopSort::Hits);
    assert!(fresh.iter().all(|r| r.rate == 0.0));
    assert!(fresh.windows(2).all(|w| w[0].hits >= w[1].hits));
}

/// A glob's entry and return probes on one function share a name: each
/// keeps its own rate.
#[test]
fn top_tells_apart_probes_of_one_name() {
    let text = "# clock=tsc\nset s state=enabled fprobes=1 fretprobes=1 mode=- skipped=0 hits=1100 missed=0 return_pool_bytes=0\n  \
                fprobe vfs_read vfs_read+0 hits=1000 missed=0\n  fretprobe vfs_read vfs_read+0 hits=100 missed=0\n";
    let st = stats::parse(text).unwrap();
    let mut before = HashMap::new();
    for p in &st.sets[0].probes {
        before.insert(top::key("s", p), 0);
    }
    let rows = top::rows(&st, &before, 1.0, TopSort::Rate);
    let rates: Vec<(String, f64)> = rows.iter().map(|r| (r.kind.clone(), r.rate)).collect();
    assert_eq!(
        rates,
        [
            ("fprobe".to_string(), 1000.0),
            ("fretprobe".to_string(), 100.0)
        ]
    );
}

#[test]
fn percentile_bounds_round_up() {
    use batchprobe::render::duration_up;
    assert_eq!(below(Some(1 << 18)), "<262.2us");
    assert_eq!(below(Some(1 << 22)), "<4.20ms");
    assert_eq!(below(Some(1 << 25)), "<33.56ms");
    assert_eq!(below(Some(8192)), "<8.2us");
    assert_eq!(below(Some(512)), "<512ns");
    assert_eq!(duration_up(1_000_000), "1.00ms");
    assert_eq!(duration_up(999_999), "1.00ms");
}

#[test]
fn the_last_bucket_is_unbounded() {
    let h = Hist {
        count: 2,
        buckets: vec![(1 << 37, 1), (1 << 38, 1)],
        ..Hist::default()
    };
    let drawn = hist::draw(&h);
    assert!(
        drawn
            .lines()
            .last()
            .unwrap()
            .contains("274877906944 -> inf "),
        "{drawn}"
    );
}

/// `ls` says how many of a set's probes wait for their module, or went
/// with it, and which modules its direct calls hold loaded.
#[test]
fn ls_says_which_probes_wait_or_are_gone() {
    let text = "\
w enabled kprobes=2 kretprobes=0 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=0 waiting=2
g enabled kprobes=1 kretprobes=0 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=4 gone=1
b disabled kprobes=3 kretprobes=0 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=4 waiting=1 gone=2
n enabled kprobes=1 kretprobes=0 fprobes=0 fretprobes=0 direct=0 skipped=0 hits=4
d enabled kprobes=0 kretprobes=0 fprobes=0 fretprobes=0 direct=2 skipped=0 hits=4 holds=bp_foreign
";
    let sets = sets::parse(text).unwrap();
    let out = ls::render(&sets, &ls::listed(&sets, |_| true));
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name}: {out}"))
            .to_string()
    };
    assert!(
        row("w").contains("enabled (2 waiting for a module)"),
        "{out}"
    );
    assert!(row("g").contains("enabled (1 gone with a module)"), "{out}");
    assert!(row("b").contains("disabled (1 waiting, 2 gone)"), "{out}");
    assert!(!row("n").contains('('), "{out}");
    assert!(
        row("d").contains("enabled (holds bp_foreign loaded)"),
        "{out}"
    );
}
