// SPDX-License-Identifier: GPL-2.0

//! `batchprobe stats`: per function, what the module's `stats` says of
//! one set or all, sorted, with the refused glob members' errnos in words.

use serde::Serialize;

use super::print_json;
use crate::cli::{StatsArgs, StatsSort};
use crate::error::{errno_name, Error, Result};
use crate::kernel::Kernel;
use crate::output::out;
use crate::read::stats::{Probe, SetStats, Stats};
use crate::render::{below, table::Table};

/// The sets `set` names (every set for `None`), or an error naming the
/// missing one.
pub fn select<'a>(stats: &'a Stats, set: Option<&str>) -> Result<Vec<&'a SetStats>> {
    match set {
        None => Ok(stats.sets.iter().collect()),
        Some(name) => stats
            .get(name)
            .map(|s| vec![s])
            .ok_or_else(|| Error::new(format!("no set {name} (`batchprobe ls` lists them)"))),
    }
}

/// The sets' probes as a table, sorted, cut to `top` (0: all).
pub fn render(sets: &[&SetStats], sort: StatsSort, top: usize) -> String {
    let mut rows: Vec<(&str, &Probe)> = sets
        .iter()
        .flat_map(|s| s.probes.iter().map(move |p| (s.name.as_str(), p)))
        .collect();
    let p99 = |p: &Probe| {
        p.hist
            .as_ref()
            .map_or(0, |h| h.p99_lt_ns.unwrap_or(u64::MAX))
    };
    match sort {
        StatsSort::Hits => rows.sort_by_key(|r| std::cmp::Reverse(r.1.hits)),
        StatsSort::Name => rows.sort_by(|a, b| (a.0, &a.1.symbol).cmp(&(b.0, &b.1.symbol))),
        StatsSort::P99 => rows.sort_by_key(|r| std::cmp::Reverse(p99(r.1))),
    }
    if top > 0 {
        rows.truncate(top);
    }
    let exit = rows.iter().any(|(_, p)| p.exits.is_some());
    let mut header = vec!["SET", "PROBE", "KIND", "TARGET", "HITS", "MISSED"];
    if exit {
        header.extend(["EXITS", "P50", "P99", "ERRORS"]);
    }
    let mut t = Table::new(&header);
    for (set, p) in &rows {
        let mut row = vec![
            set.to_string(),
            p.name.clone(),
            p.kind.clone(),
            format!("{}+{}", p.symbol, p.offset),
            p.hits.to_string(),
            p.missed.to_string(),
        ];
        if exit {
            let h = p.hist.as_ref();
            row.extend([
                p.exits.map_or("-".into(), |e| e.to_string()),
                h.map_or("-".into(), |h| below(h.p50_lt_ns)),
                h.map_or("-".into(), |h| below(h.p99_lt_ns)),
                p.errors
                    .as_ref()
                    .map_or("-".into(), |e| e.total.to_string()),
            ]);
        }
        t.row(row);
    }
    let mut out = if t.is_empty() {
        "No probes.\n".to_string()
    } else {
        t.render()
    };
    out.push_str(&refusals(sets));
    out
}

/// The glob members each set's kernel refused (their errnos in words) or
/// left out past a cap, a line per set.
fn refusals(sets: &[&SetStats]) -> String {
    let mut out = String::new();
    for s in sets {
        let refused = s.refused.len() as u64 + s.refused_more;
        if refused > 0 {
            let named: Vec<String> = s
                .refused
                .iter()
                .map(|(sym, e)| format!("{sym} ({})", errno_name(i32::try_from(-e).unwrap_or(0))))
                .collect();
            out.push_str(&format!(
                "set {}: {refused} glob member(s) refused by the kernel: {}{}\n",
                s.name,
                named.join(", "),
                if s.refused_more > 0 {
                    format!(" and {} more", s.refused_more)
                } else {
                    String::new()
                }
            ));
        }
        if let Some((n, cap)) = s.past_cap {
            out.push_str(&format!(
                "set {}: {n} glob member(s) left out past the cap of {cap} probes\n",
                s.name
            ));
        }
    }
    out
}

/// Runs `batchprobe stats`.
pub fn run(kernel: &Kernel, a: &StatsArgs) -> Result<()> {
    let stats = kernel.stats()?;
    let sets = select(&stats, a.set.as_deref())?;
    if a.json {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(serialize_with = "crate::read::as_map")]
            header: &'a [(String, String)],
            sets: Vec<&'a SetStats>,
        }
        return print_json(&Out {
            header: &stats.header,
            sets,
        });
    }
    out(&render(&sets, a.sort, a.top))
}
