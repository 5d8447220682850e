// SPDX-License-Identifier: GPL-2.0

//! Medians and the Markdown tables every section is made of.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use benchreport::*;

pub(crate) type Summary = BTreeMap<Key, (Stat, Option<u64>, Option<u64>)>;

/// The median of `method`'s `phase` at `n`, where its runs attached what
/// they were asked to: a run that got fewer than N functions measured
/// other work, so ratios and goals take no figure from it (the phase
/// tables show it, with its count).
pub(crate) fn median(sum: &Summary, method: &str, phase: &str, n: u64) -> Option<f64> {
    match sum.get(&(method.to_string(), phase.to_string(), n))? {
        (_, _, Some(got)) if *got < n => None,
        (s, _, _) => Some(s.median),
    }
}

/// Whether `method`'s `phase` at `n` was measured by a run that got fewer
/// than N functions (see [`median`]).
pub(crate) fn partial(sum: &Summary, method: &str, phase: &str, n: u64) -> bool {
    matches!(sum.get(&(method.to_string(), phase.to_string(), n)), Some((_, _, Some(g))) if *g < n)
}

/// The N measured (or skipped as over budget, or failed) for any of
/// `methods`.
pub(crate) fn sizes(sum: &Summary, b: &Bench, methods: &[&str]) -> Vec<u64> {
    let measured = sum
        .keys()
        .filter(|k| methods.contains(&k.0.as_str()))
        .map(|k| k.2);
    let skipped = b
        .over_budget
        .iter()
        .filter(|x| methods.contains(&x.method.as_str()))
        .map(|x| x.n);
    let failed = b
        .failed
        .iter()
        .filter(|x| methods.contains(&x.method.as_str()))
        .map(|x| x.n);
    let s: BTreeSet<u64> = measured
        .chain(skipped)
        .chain(failed)
        .filter(|&n| n > 1)
        .collect();
    s.into_iter().collect()
}

pub(crate) fn table_header(o: &mut String, title: &str, ns: &[u64]) {
    let _ = writeln!(o, "## {title}\n");
    table_columns(o, ns);
}

/// The header rows of a method × phase table with one column per N.
pub(crate) fn table_columns(o: &mut String, ns: &[u64]) {
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
pub(crate) fn table(
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
pub(crate) fn phase_table(
    o: &mut String,
    b: &Bench,
    sum: &Summary,
    title: &str,
    methods: &[&str],
    phases: &[&str],
) {
    let ns = sizes(sum, b, methods);
    let key = |m: &str, p: &str, n| (m.to_string(), p.to_string(), n);
    // A failed run's row shows, under every phase its method has.
    let has = |m: &str, p: &str, n| {
        sum.contains_key(&key(m, p, n))
            || (!b.failed_runs(m, n).is_empty() && sum.keys().any(|k| k.0 == m && k.1 == p))
    };
    // A cell with fewer runs than the table's fullest says so: a failed run
    // leaves no sample, and a median of fewer is not the same figure.
    let most = sum
        .iter()
        .filter(|(k, _)| methods.contains(&k.0.as_str()) && phases.contains(&k.1.as_str()))
        .map(|(_, (s, _, _))| s.runs)
        .max()
        .unwrap_or(0);
    let cell = |m: &str, p: &str, n: u64| match sum.get(&(m.to_string(), p.to_string(), n)) {
        Some((s, off, got)) => {
            let mut c = format!(
                "{} [{}–{}]",
                fmt_ms(s.median),
                fmt_ms(s.min as f64),
                fmt_ms(s.max as f64)
            );
            if s.runs < most {
                let _ = write!(c, " ({} of {most} runs)", s.runs);
            }
            if let Some(g) = got.filter(|&g| g < n) {
                let _ = write!(c, " (got {g})");
            }
            if let Some(f) = b.failed_text(m, n) {
                let _ = write!(c, " ({f})");
            }
            if let Some(off) = off.filter(|&o| o != 5) {
                let _ = write!(c, " +{off}");
            }
            c
        }
        None if b.over_budget.iter().any(|x| x.method == m && x.n == n) => "over budget".into(),
        None => b.failed_text(m, n).unwrap_or_else(|| "–".into()),
    };
    table(o, title, &ns, (methods, phases), has, cell);
}

/// `base` median / method median per method × phase × N, for the phases
/// `map` pairs with one of `base`'s (`None`: no like phase, no row).
#[expect(clippy::too_many_arguments)]
pub(crate) fn speedup_table(
    o: &mut String,
    b: &Bench,
    sum: &Summary,
    title: &str,
    base: &str,
    methods: &[&str],
    phases: &[&str],
    map: impl for<'p> Fn(&str, &'p str) -> Option<&'p str>,
) {
    let mut all = vec![base];
    all.extend_from_slice(methods);
    let ns = sizes(sum, b, &all);
    let has = |m: &str, p: &str, n| {
        map(m, p).is_some() && sum.contains_key(&(m.to_string(), p.to_string(), n))
    };
    let cell = |m: &str, p: &str, n| {
        let bp = map(m, p);
        match speedup(
            bp.and_then(|bp| median(sum, base, bp, n)),
            median(sum, m, p, n),
        ) {
            Some(r) => format!("{r:.1}×"),
            // Measured, but by a run that got fewer functions than N.
            None if partial(sum, m, p, n) || bp.is_some_and(|bp| partial(sum, base, bp, n)) => {
                "not live".into()
            }
            None => "–".into(),
        }
    };
    table(o, title, &ns, (methods, phases), has, cell);
}

/// The rows of a per-call table: each method's `per_call` median [min–max]
/// in ns and its ratio to `base`'s median (the unprobed call), a blank line
/// after them.
pub(crate) fn per_call_rows(o: &mut String, sum: &Summary, base: &str, methods: &[&str]) {
    let key = |m: &str| (m.to_string(), "per_call".to_string(), 1);
    let base = sum.get(&key(base)).map(|(s, _, _)| s.median);
    for m in methods {
        if let Some((s, _, _)) = sum.get(&key(m)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stat;

    /// A partial run (fewer functions than N) is shown with its count but
    /// gives no ratio; a run that failed is named.
    #[test]
    fn partial_and_failed_runs() {
        let mut b = Bench::default();
        b.failed.push(FailedRun {
            method: "b".into(),
            n: 64,
            run: 2,
        });
        let st = Stat {
            median: 2e6,
            min: 1_000_000,
            max: 3_000_000,
            runs: 1,
        };
        let mut sum = Summary::new();
        sum.insert(("a".into(), "enable".into(), 64), (st, None, Some(64)));
        sum.insert(("b".into(), "enable".into(), 64), (st, None, Some(60)));
        sum.insert(("b".into(), "enable".into(), 128), (st, None, Some(128)));
        assert_eq!(median(&sum, "b", "enable", 64), None);
        assert_eq!(median(&sum, "b", "enable", 128), Some(2e6));
        let mut o = String::new();
        phase_table(&mut o, &b, &sum, "t", &["a", "b"], &["enable"]);
        assert!(
            o.contains("| b | enable | 2.0 [1.0–3.0] (got 60) (failed: run 2) | 2.0 [1.0–3.0] |"),
            "{o}"
        );
        let mut o = String::new();
        speedup_table(&mut o, &b, &sum, "t", "a", &["b"], &["enable"], |_, p| {
            Some(p)
        });
        assert!(o.contains("| b | enable | not live | – |"), "{o}");
    }

    /// A cell with fewer runs than the table's fullest names its count.
    #[test]
    fn short_cells_say_how_many_runs() {
        let b = Bench {
            samples: Vec::new(),
            gps: Vec::new(),
            over_budget: Vec::new(),
            failed: Vec::new(),
            parts_failed: Vec::new(),
            info: BTreeMap::new(),
        };
        let st = |runs| Stat {
            median: 2e6,
            min: 1_000_000,
            max: 3_000_000,
            runs,
        };
        let mut sum = Summary::new();
        sum.insert(("a".into(), "enable".into(), 64), (st(3), None, None));
        sum.insert(("b".into(), "enable".into(), 64), (st(2), None, None));
        let mut o = String::new();
        phase_table(&mut o, &b, &sum, "t", &["a", "b"], &["enable"]);
        assert!(
            o.contains("| b | enable | 2.0 [1.0–3.0] (2 of 3 runs) |"),
            "{o}"
        );
        assert!(o.contains("| a | enable | 2.0 [1.0–3.0] |"), "{o}");
    }
}
