// SPDX-License-Identifier: GPL-2.0

//! `batchprobe top`: every set's functions, busiest first, refreshed every
//! interval, as bpftop shows BPF programs: calls per second over the last
//! interval, total calls, and p50 and p99 where an exit set keeps
//! histograms.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{print_json, seconds};
use crate::cli::{TopArgs, TopSort};
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::output::out;
use crate::read::stats::{Probe, Stats};
use crate::render::{below, clock, table::Table};
use crate::session::Stop;

/// A probe, across refreshes: its set, kind, name and target (a glob's
/// entry and return probes on one function share a name).
pub type Key = (String, String, String, String, u64);

/// `p`'s key in set `set`.
pub fn key(set: &str, p: &Probe) -> Key {
    (
        set.into(),
        p.kind.clone(),
        p.name.clone(),
        p.symbol.clone(),
        p.offset,
    )
}

/// One row: a probe of a set.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub set: String,
    pub function: String,
    pub kind: String,
    /// Calls per second over the last interval.
    pub rate: f64,
    pub hits: u64,
    pub p50_lt_ns: Option<u64>,
    pub p99_lt_ns: Option<u64>,
    /// Whether the probe keeps a histogram (`p50`/`p99` mean something).
    pub hist: bool,
}

/// One refresh.
#[derive(Debug, Serialize)]
pub struct Frame {
    pub time: String,
    pub sets: usize,
    pub probes: usize,
    pub rows: Vec<Row>,
}

/// The rows of `now`, with rates against `before` over `secs` seconds.
pub fn rows(now: &Stats, before: &HashMap<Key, u64>, secs: f64, sort: TopSort) -> Vec<Row> {
    let mut rows = Vec::new();
    for set in &now.sets {
        for p in &set.probes {
            let prev = before.get(&key(&set.name, p)).copied();
            let delta = prev.map_or(0, |b| p.hits.saturating_sub(b));
            let h = p.hist.as_ref();
            rows.push(Row {
                set: set.name.clone(),
                function: p.symbol.clone(),
                kind: p.kind.clone(),
                rate: if secs > 0.0 { delta as f64 / secs } else { 0.0 },
                hits: p.hits,
                p50_lt_ns: h.and_then(|h| h.p50_lt_ns),
                p99_lt_ns: h.and_then(|h| h.p99_lt_ns),
                hist: h.is_some(),
            });
        }
    }
    let key = |r: &Row| match sort {
        TopSort::Rate => (r.rate, r.hits as f64),
        TopSort::Hits => (r.hits as f64, r.rate),
        TopSort::P99 => (
            match (r.hist, r.p99_lt_ns) {
                (false, _) => -1.0,
                (true, None) => f64::INFINITY,
                (true, Some(v)) => v as f64,
            },
            r.rate,
        ),
    };
    rows.sort_by(|a, b| {
        key(b)
            .partial_cmp(&key(a))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    rows
}

/// Runs `batchprobe top`.
pub fn run(kernel: &Kernel, a: &TopArgs) -> Result<()> {
    let interval = seconds("-i", Some(a.interval))?.unwrap_or(Duration::from_secs(1));
    if a.iterations == Some(0) {
        return Err(Error::new("-n 0: give at least one refresh"));
    }
    kernel.require()?;
    let stop = Stop::install()?;
    let live = !a.batch && !a.json && std::io::stdout().is_terminal();
    let mut before = snapshot(&kernel.stats()?);
    let mut last = Instant::now();
    let mut shown = 0u64;
    while stop.sleep_until(last + interval) {
        let stats = kernel.stats()?;
        let secs = last.elapsed().as_secs_f64();
        last = Instant::now();
        let mut r = rows(&stats, &before, secs, a.sort);
        let probes = r.len();
        if a.top > 0 {
            r.truncate(a.top);
        }
        let frame = Frame {
            time: clock(),
            sets: stats.sets.len(),
            probes,
            rows: r,
        };
        if a.json {
            print_json(&frame)?;
        } else {
            let clear = if live { "\x1b[H\x1b[2J" } else { "\n" };
            out(&format!("{clear}{}", render(&frame)))?;
        }
        before = snapshot(&stats);
        shown += 1;
        if a.iterations.is_some_and(|n| shown >= n) {
            break;
        }
    }
    Ok(())
}

/// Each probe's hits, by (set, probe).
fn snapshot(s: &Stats) -> HashMap<Key, u64> {
    s.sets
        .iter()
        .flat_map(|set| set.probes.iter().map(move |p| (key(&set.name, p), p.hits)))
        .collect()
}

/// A refresh as text.
pub fn render(f: &Frame) -> String {
    let mut out = format!(
        "batchprobe top - {}  {} sets, {} probes\n\n",
        f.time, f.sets, f.probes
    );
    let mut t = Table::new(&["SET", "FUNC", "KIND", "CALLS/S", "CALLS", "P50", "P99"]);
    for r in &f.rows {
        let hist = r.hist;
        t.row(vec![
            r.set.clone(),
            r.function.clone(),
            r.kind.clone(),
            format!("{:.1}", r.rate),
            r.hits.to_string(),
            if hist { below(r.p50_lt_ns) } else { "-".into() },
            if hist { below(r.p99_lt_ns) } else { "-".into() },
        ]);
    }
    out.push_str(&t.render());
    out
}
