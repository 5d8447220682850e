// SPDX-License-Identifier: GPL-2.0

//! `batchprobe count`: calls per function, as BCC's `funccount` counts
//! them. One set of entry probes (`p:` lines: an fprobe where ftrace can
//! trace the function, a kprobe elsewhere), counting only.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

use super::{attached, check_pattern, deadline, next_stop, own_set, plural, print_json, seconds};
use crate::cli::CountArgs;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::output::{note, out};
use crate::read::stats::SetStats;
use crate::render::clock;
use crate::render::table::Table;
use crate::session::{own_name, OwnedSets, Stop};

/// One interval's counts.
#[derive(Debug, Serialize)]
pub struct Counts {
    /// Local time at the interval's end.
    pub time: String,
    /// Functions called, most calls first.
    pub functions: Vec<FunctionCount>,
    /// Hits the probes missed (a probe hit inside another's handler).
    pub missed: u64,
}

/// A function and its calls.
#[derive(Debug, Serialize)]
pub struct FunctionCount {
    pub function: String,
    pub count: u64,
}

/// Each function's calls: the most any of its probes counted (two
/// patterns may put two entry probes on one function; each counts every
/// call).
pub fn calls_by_function(set: &SetStats) -> HashMap<String, u64> {
    let mut by_fn: HashMap<String, u64> = HashMap::new();
    for p in &set.probes {
        let n = by_fn.entry(p.symbol.clone()).or_default();
        *n = (*n).max(p.hits);
    }
    by_fn
}

/// The counts of `set` since `before` (`None`: since it was made), most
/// calls first.
pub fn counts_since(set: &SetStats, before: &HashMap<String, u64>) -> Vec<FunctionCount> {
    let by_fn = calls_by_function(set);
    let mut v: Vec<FunctionCount> = by_fn
        .into_iter()
        .map(|(f, n)| FunctionCount {
            count: n - before.get(&f).copied().unwrap_or(0).min(n),
            function: f,
        })
        .filter(|c| c.count > 0)
        .collect();
    v.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.function.cmp(&b.function))
    });
    v
}

/// Runs `batchprobe count`.
pub fn run(kernel: &Kernel, a: &CountArgs, started: Instant) -> Result<()> {
    a.patterns.iter().try_for_each(|p| check_pattern(p))?;
    let duration = seconds("-d", a.duration)?;
    let interval = seconds("-i", a.interval)?;
    kernel.require()?;
    let stop = Stop::install()?;
    let name = own_name("bpcount");
    let _owned = OwnedSets::create_one(kernel, &name, 'p', &a.patterns, "--no-events")?;
    announce(kernel, &name, &a.patterns, &attached(started))?;
    let end = deadline(duration);
    let mut before = HashMap::new();
    let mut missed_before = 0;
    loop {
        let finished =
            !stop.sleep_until(next_stop(interval, end)) || end.is_some_and(|e| Instant::now() >= e);
        let stats = kernel.stats()?;
        let set = own_set(&stats, &name)?;
        let counts = Counts {
            time: clock(),
            functions: top(counts_since(set, &before), a.top),
            missed: set.missed - missed_before.min(set.missed),
        };
        print(&counts, a.json, interval.is_some())?;
        if finished {
            return Ok(());
        }
        before = calls_by_function(set);
        missed_before = set.missed;
    }
}

/// The first line, on stderr: how many functions, for which patterns,
/// how many the kernel refused, and how long the attach took.
fn announce(kernel: &Kernel, name: &str, patterns: &[String], attach: &str) -> Result<()> {
    let sets = kernel.sets()?;
    let line = sets
        .get(name)
        .ok_or_else(|| Error::new(format!("set {name} is not in `sets` after its create")))?;
    note(&format!(
        "Tracing {} for {}{}{} ({})... Hit Ctrl-C to end.",
        plural(line.probes(), "function"),
        patterns
            .iter()
            .map(|p| format!("\"{p}\""))
            .collect::<Vec<_>>()
            .join(", "),
        if line.skipped > 0 {
            format!(
                " ({} refused by the kernel: `batchprobe stats {name}` names them)",
                line.skipped
            )
        } else {
            String::new()
        },
        if line.waiting > 0 {
            format!(
                " ({} waiting for {} module to load)",
                line.waiting,
                if line.waiting == 1 { "its" } else { "their" }
            )
        } else {
            String::new()
        },
        attach
    ));
    Ok(())
}

/// The first `n` (0: all).
fn top<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
    if n > 0 {
        v.truncate(n);
    }
    v
}

/// One interval's table (or JSON line).
fn print(c: &Counts, json: bool, with_time: bool) -> Result<()> {
    if json {
        return print_json(c);
    }
    let mut text = if with_time {
        format!("\n[{}]\n", c.time)
    } else {
        String::new()
    };
    let mut t = Table::new(&["FUNC", "COUNT"]);
    for f in &c.functions {
        t.row(vec![f.function.clone(), f.count.to_string()]);
    }
    text.push_str(&t.render());
    if c.missed > 0 {
        text.push_str(&format!(
            "({} hits missed: a probe hit inside another handler)\n",
            c.missed
        ));
    }
    out(&text)
}
