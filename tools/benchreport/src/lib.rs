// SPDX-License-Identifier: GPL-2.0

//! Parsing and summarising batchprobe's benchmark lines (pure; tested).
//!
//! The guest prints `BENCH method=M n=N run=R phase=P ns=T [offset=O] [got=K]`,
//! `BENCH method=M n=N status=over-budget projected_s=S`,
//! `BENCH method=M n=N run=R status=failed` (a run that went wrong: no
//! sample, said in the report), `BENCHFAIL PART: WHY` (a part of the bench
//! that could not run at all),
//! `BENCHGP method=M n=N run=R phase=P gp=A/B/C` (the grace periods of each
//! kind in [`GP_KINDS`] that the phase waited for; `-` where the kernel has
//! no such kind) and `BENCHINFO key=value`.

use std::collections::BTreeMap;

/// One measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub method: String,
    pub n: u64,
    pub run: u64,
    pub phase: String,
    pub ns: u64,
    pub offset: Option<u64>,
    pub got: Option<u64>,
}

/// A point a method skipped because one run would exceed the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct OverBudget {
    pub method: String,
    pub n: u64,
    pub projected_s: u64,
}

/// A run that failed (`status=failed`): it left no sample.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedRun {
    pub method: String,
    pub n: u64,
    pub run: u64,
}

/// The grace-period kinds a `BENCHGP` line counts, in its order.
pub const GP_KINDS: [&str; 3] = ["rcu", "rcu_tasks", "rcu_tasks_rude"];

/// The grace periods one phase of one run waited for, per kind of
/// [`GP_KINDS`] (`None`: the kernel has no such kind).
#[derive(Debug, Clone, PartialEq)]
pub struct GpSample {
    pub method: String,
    pub n: u64,
    pub run: u64,
    pub phase: String,
    pub counts: [Option<u64>; 3],
}

/// Everything one boot printed.
#[derive(Debug, Default)]
pub struct Bench {
    pub samples: Vec<Sample>,
    pub gps: Vec<GpSample>,
    pub over_budget: Vec<OverBudget>,
    pub failed: Vec<FailedRun>,
    /// What each `BENCHFAIL` line said: a part that did not run, and why.
    pub parts_failed: Vec<String>,
    pub info: BTreeMap<String, String>,
}

impl Bench {
    /// The runs of `method` at `n` that failed, in order.
    pub fn failed_runs(&self, method: &str, n: u64) -> Vec<u64> {
        self.failed
            .iter()
            .filter(|f| f.method == method && f.n == n)
            .map(|f| f.run)
            .collect()
    }

    /// What a table says where `method` has no sample at `n`: the runs
    /// that failed, or `None` where none did (not run).
    pub fn failed_text(&self, method: &str, n: u64) -> Option<String> {
        let runs = self.failed_runs(method, n);
        match runs.len() {
            0 => None,
            1 => Some(format!("failed: run {}", runs[0])),
            _ => Some(format!(
                "failed: runs {}",
                runs.iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

fn fields(line: &str) -> BTreeMap<&str, &str> {
    line.split_whitespace()
        .skip(1)
        .filter_map(|w| w.split_once('='))
        .collect()
}

/// The value of `k=` parsed as a number, or an error naming line `line`.
fn num(f: &BTreeMap<&str, &str>, k: &str, line: usize) -> Result<u64, String> {
    f.get(k)
        .ok_or_else(|| format!("line {line}: no {k}="))?
        .parse::<u64>()
        .map_err(|e| format!("line {line}: {k}: {e}"))
}

/// The value of `k=` as text, or an error naming line `line`.
fn text(f: &BTreeMap<&str, &str>, k: &str, line: usize) -> Result<String, String> {
    f.get(k)
        .map(|v| v.to_string())
        .ok_or_else(|| format!("line {line}: no {k}="))
}

/// The grace-period sample of the `BENCHGP` line `line`, of fields `f`.
fn parse_gp(f: &BTreeMap<&str, &str>, line: usize) -> Result<GpSample, String> {
    let gp = text(f, "gp", line)?;
    let parts: Vec<&str> = gp.split('/').collect();
    if parts.len() != GP_KINDS.len() {
        return Err(format!(
            "line {line}: gp={gp}: want {} counts",
            GP_KINDS.len()
        ));
    }
    let mut counts = [None; 3];
    for (c, p) in counts.iter_mut().zip(parts) {
        *c = match p {
            "-" => None,
            p => Some(
                p.parse::<u64>()
                    .map_err(|e| format!("line {line}: gp: {e}"))?,
            ),
        };
    }
    Ok(GpSample {
        method: text(f, "method", line)?,
        n: num(f, "n", line)?,
        run: num(f, "run", line)?,
        phase: text(f, "phase", line)?,
        counts,
    })
}

/// Adds the `BENCH` line `line`, of fields `f`, to `b`: a sample, an
/// over-budget point or a failed run.
fn parse_bench(b: &mut Bench, f: &BTreeMap<&str, &str>, line: usize) -> Result<(), String> {
    let method = text(f, "method", line)?;
    match f.get("status") {
        Some(&"over-budget") => {
            b.over_budget.push(OverBudget {
                method,
                n: num(f, "n", line)?,
                projected_s: num(f, "projected_s", line)?,
            });
            return Ok(());
        }
        Some(&"failed") => {
            b.failed.push(FailedRun {
                method,
                n: num(f, "n", line)?,
                run: num(f, "run", line)?,
            });
            return Ok(());
        }
        Some(other) => return Err(format!("line {line}: status={other}: unknown")),
        None => {}
    }
    b.samples.push(Sample {
        method,
        n: num(f, "n", line)?,
        run: num(f, "run", line)?,
        phase: text(f, "phase", line)?,
        ns: num(f, "ns", line)?,
        offset: num(f, "offset", line).ok(),
        got: num(f, "got", line).ok(),
    });
    Ok(())
}

/// Parses the guest's output; ignores lines it does not know.
pub fn parse(text: &str) -> Result<Bench, String> {
    let mut b = Bench::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("BENCHGP ") {
            b.gps.push(parse_gp(&fields(line), i + 1)?);
        } else if line.starts_with("BENCHINFO ") {
            for (k, v) in fields(line) {
                b.info.insert(k.to_string(), v.to_string());
            }
        } else if let Some(why) = line.strip_prefix("BENCHFAIL ") {
            b.parts_failed.push(why.trim().to_string());
        } else if line.starts_with("BENCH ") {
            parse_bench(&mut b, &fields(line), i + 1)?;
        }
    }
    Ok(b)
}

/// Median, minimum and maximum of a set of runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub median: f64,
    pub min: u64,
    pub max: u64,
    pub runs: usize,
}

/// The statistics of `values` (`None` when empty).
pub fn stat(values: &[u64]) -> Option<Stat> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let mid = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[mid] as f64
    } else {
        (v[mid - 1] as f64 + v[mid] as f64) / 2.0
    };
    Some(Stat {
        median,
        min: v[0],
        max: v[v.len() - 1],
        runs: v.len(),
    })
}

/// Key of a summary row.
pub type Key = (String, String, u64);

/// A row: the runs' values (or statistics), the offset and the fewest probes got.
pub type Row<T> = (T, Option<u64>, Option<u64>);

/// One row per (method, phase, N).
pub fn summarise(b: &Bench) -> BTreeMap<Key, Row<Stat>> {
    let mut groups: BTreeMap<Key, Row<Vec<u64>>> = BTreeMap::new();
    for s in &b.samples {
        let e = groups
            .entry((s.method.clone(), s.phase.clone(), s.n))
            .or_default();
        e.0.push(s.ns);
        e.1 = e.1.or(s.offset);
        e.2 = match (e.2, s.got) {
            (Some(a), Some(g)) => Some(a.min(g)),
            (a, g) => a.or(g),
        };
    }
    groups
        .into_iter()
        .filter_map(|(k, (v, off, got))| stat(&v).map(|s| (k, (s, off, got))))
        .collect()
}

/// One row per (method, phase, N) of grace-period counts: per kind, the
/// median across runs (`None` where the kernel has no such kind).
pub fn summarise_gp(b: &Bench) -> BTreeMap<Key, [Option<Stat>; 3]> {
    let mut groups: BTreeMap<Key, [Vec<u64>; 3]> = BTreeMap::new();
    for s in &b.gps {
        let e = groups
            .entry((s.method.clone(), s.phase.clone(), s.n))
            .or_default();
        for (v, c) in e.iter_mut().zip(s.counts) {
            if let Some(c) = c {
                v.push(c);
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, v)| (k, [stat(&v[0]), stat(&v[1]), stat(&v[2])]))
        .collect()
}

/// A grace-period count for a table: the median, with the range if runs differ.
pub fn fmt_gp(s: Option<Stat>) -> String {
    match s {
        None => "-".into(),
        Some(s) if s.min == s.max => format!("{}", s.min),
        Some(s) => format!("{} [{}–{}]", s.median, s.min, s.max),
    }
}

/// The tracefs phase that does the same work as `method`'s `phase`, if
/// any: tracefs' methods compare phase for phase; batchprobe's `disarm`
/// (the probes disarmed) with tracefs' `disable` (which disarms them). No
/// tracefs phase matches batchprobe's `disable` (a gate closed, the disarm
/// queued) nor its `unregister_call` variants (the write's return, the
/// teardown still queued): a ratio of those would compare unlike work
/// (the audit of 2026-12-05 found "5655366x" for `disable`).
pub fn tracefs_phase<'a>(method: &str, phase: &'a str) -> Option<&'a str> {
    if method.starts_with("tracefs") {
        return Some(phase);
    }
    match phase {
        "disarm" => Some("disable"),
        "disable" | "unregister_call" | "unregister_call_wall" => None,
        p => Some(p),
    }
}

/// `base / x` when both exist and `x > 0`.
pub fn speedup(base: Option<f64>, x: Option<f64>) -> Option<f64> {
    match (base, x) {
        (Some(b), Some(x)) if x > 0.0 => Some(b / x),
        _ => None,
    }
}

/// A median (ns) over N functions, in µs per function.
pub fn per_function_us(ns: f64, n: u64) -> f64 {
    ns / n.max(1) as f64 / 1e3
}

/// µs with three significant digits (as `fmt_ms` writes ms).
pub fn fmt_us(us: f64) -> String {
    fmt_ms(us * 1e6)
}

/// Milliseconds with a sensible number of digits.
pub fn fmt_ms(ns: f64) -> String {
    let ms = ns / 1e6;
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 1.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "noise\n\
        BENCHINFO kernel=6.12.117\n\
        BENCHINFO vcpus=2\n\
        BENCH method=tracefs n=256 run=1 phase=unregister_complete ns=4000000000\n\
        BENCH method=tracefs n=256 run=2 phase=unregister_complete ns=5000000000\n\
        BENCH method=batchprobe n=256 run=1 phase=unregister_complete ns=10000000 offset=5 got=256\n\
        BENCH method=batchprobe n=256 run=2 phase=unregister_complete ns=30000000 offset=5 got=255\n\
        BENCH method=batchprobe n=256 run=3 phase=unregister_complete ns=20000000 offset=5 got=256\n\
        BENCH method=tracefs n=4096 status=over-budget projected_s=80\n\
        BENCH method=tracefs n=1024 run=4 status=failed\n\
        BENCH method=tracefs n=1024 run=6 status=failed\n\
        BENCHFAIL exit: no exit candidates (the xacc set was refused)\n\
        BENCHGP method=direct n=1000 run=1 phase=detach gp=0/1/1\n\
        BENCHGP method=direct n=1000 run=2 phase=detach gp=1/1/1\n\
        BENCHGP method=direct n=1000 run=3 phase=detach gp=0/1/1\n\
        BENCHGP method=batchprobe n=256 run=1 phase=teardown gp=2/-/-\n";

    #[test]
    fn parses_every_kind_of_line() {
        let b = parse(OUT).unwrap();
        assert_eq!(b.info.get("vcpus").map(String::as_str), Some("2"));
        assert_eq!(b.samples.len(), 5);
        assert_eq!(b.samples[2].offset, Some(5));
        assert_eq!(
            b.over_budget,
            vec![OverBudget {
                method: "tracefs".into(),
                n: 4096,
                projected_s: 80
            }]
        );
    }

    /// A failed run and a part that could not run are kept, to be said.
    #[test]
    fn failures_are_kept() {
        let b = parse(OUT).unwrap();
        assert_eq!(b.failed_runs("tracefs", 1024), vec![4, 6]);
        assert_eq!(
            b.failed_text("tracefs", 1024).as_deref(),
            Some("failed: runs 4, 6")
        );
        assert_eq!(b.failed_text("tracefs", 256), None);
        assert_eq!(
            b.parts_failed,
            vec!["exit: no exit candidates (the xacc set was refused)".to_string()]
        );
        assert!(parse("BENCH method=x n=1 status=failed").is_err());
        assert!(parse("BENCH method=x n=1 run=1 status=lost").is_err());
    }

    #[test]
    fn grace_period_lines() {
        let b = parse(OUT).unwrap();
        assert_eq!(b.gps.len(), 4);
        assert_eq!(b.gps[3].counts, [Some(2), None, None]);
        let g = summarise_gp(&b);
        let d = g[&("direct".to_string(), "detach".to_string(), 1000)];
        assert_eq!(fmt_gp(d[0]), "0 [0–1]");
        assert_eq!(fmt_gp(d[1]), "1");
        let t = g[&("batchprobe".to_string(), "teardown".to_string(), 256)];
        assert_eq!(fmt_gp(t[1]), "-");
        assert!(parse("BENCHGP method=x n=1 run=1 phase=p gp=1/2").is_err());
        assert!(parse("BENCHGP method=x n=1 run=1 phase=p gp=1/x/2").is_err());
    }

    #[test]
    fn rejects_broken_lines() {
        assert!(parse("BENCH method=x n=1 run=1 phase=p ns=abc").is_err());
        assert!(parse("BENCH n=1 run=1 phase=p ns=1").is_err());
    }

    #[test]
    fn medians_and_ranges() {
        assert_eq!(stat(&[]), None);
        assert_eq!(stat(&[3, 1, 2]).unwrap().median, 2.0);
        let s = stat(&[4, 1, 3, 2]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.runs), (2.5, 1, 4, 4));
    }

    #[test]
    fn summary_and_speedup() {
        let b = parse(OUT).unwrap();
        let sum = summarise(&b);
        let key = |m: &str| (m.to_string(), "unregister_complete".to_string(), 256);
        let (t, _, _) = sum[&key("tracefs")];
        let (bp, off, got) = sum[&key("batchprobe")];
        assert_eq!(t.median, 4.5e9);
        assert_eq!(bp.median, 2e7);
        assert_eq!((off, got), (Some(5), Some(255)));
        assert_eq!(speedup(Some(t.median), Some(bp.median)), Some(225.0));
        assert_eq!(speedup(Some(1.0), Some(0.0)), None);
        assert_eq!(tracefs_phase("batchprobe", "unregister_call"), None);
        assert_eq!(tracefs_phase("batchprobe", "unregister_call_wall"), None);
        assert_eq!(tracefs_phase("batchprobe", "disable"), None);
        assert_eq!(tracefs_phase("batchprobe", "disarm"), Some("disable"));
        assert_eq!(tracefs_phase("batchprobe-noopt", "enable"), Some("enable"));
        assert_eq!(
            tracefs_phase("batchprobe", "unregister_complete"),
            Some("unregister_complete")
        );
        assert_eq!(tracefs_phase("tracefs-noopt", "disable"), Some("disable"));
        assert_eq!(fmt_ms(13_314_122.0), "13.3");
        assert_eq!(fmt_ms(4_330_000_000.0), "4330");
    }
}
