// SPDX-License-Identifier: GPL-2.0

//! `batchprobe latency`: per function, how long its calls take and how
//! often it fails with which errno, as BCC's `funclatency` (and retsnoop's
//! error counts) show it. One exit set (`d:` lines, `create --exit --hist
//! [--errors]`): the kernel keeps each function's log2 histogram and errno
//! counts; this reads them from `stats`. With `--pid`, the calls of one
//! process are timed from their return records instead (`pid`).

mod pid;

use serde::Serialize;

use super::{attached, check_pattern, deadline, next_stop, own_set, plural, print_json, seconds};
use crate::cli::{LatencyArgs, LatencySort};
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::output::{note, out};
use crate::read::stats::{Errors, Hist, SetStats};
use crate::render::{below, duration, hist, table::Table};
use crate::session::{own_name, OwnedSets, Stop};

/// A function's calls, durations and errors.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionLatency {
    pub function: String,
    /// Calls that returned (timed).
    pub calls: u64,
    pub hist: Option<Hist>,
    pub errors: Option<Errors>,
}

impl FunctionLatency {
    fn p99(&self) -> u64 {
        self.hist
            .as_ref()
            .map_or(0, |h| h.p99_lt_ns.unwrap_or(u64::MAX))
    }
    fn mean(&self) -> u64 {
        self.hist.as_ref().map_or(0, |h| h.mean_ns)
    }
    fn error_total(&self) -> u64 {
        self.errors.as_ref().map_or(0, |e| e.total)
    }
}

/// The functions of `set` that returned at least once, sorted.
pub fn latencies(set: &SetStats, sort: LatencySort) -> Vec<FunctionLatency> {
    let mut v: Vec<FunctionLatency> = set
        .probes
        .iter()
        .filter(|p| p.hist.is_some() || p.errors.is_some())
        .map(|p| FunctionLatency {
            function: p.symbol.clone(),
            calls: p.hist.as_ref().map_or(0, |h| h.count),
            hist: p.hist.clone(),
            errors: p.errors.clone(),
        })
        .collect();
    sort_rows(&mut v, sort);
    v
}

/// Sorts functions by `sort`, largest first, then by name.
pub fn sort_rows(v: &mut [FunctionLatency], sort: LatencySort) {
    let key = |f: &FunctionLatency| match sort {
        LatencySort::P99 => (f.p99(), f.mean()),
        LatencySort::Mean => (f.mean(), f.p99()),
        LatencySort::Count => (f.calls, f.mean()),
        LatencySort::Errors => (f.error_total(), f.calls),
    };
    v.sort_by(|a, b| {
        key(b)
            .cmp(&key(a))
            .then_with(|| a.function.cmp(&b.function))
    });
}

/// What one report shows.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Functions in the set.
    pub functions: u64,
    /// Functions that returned at least once, sorted, cut to `--top`.
    pub rows: Vec<FunctionLatency>,
    /// Every function's error returns, most frequent first.
    pub errors: Vec<ErrorRow>,
}

/// A function's error returns with one errno.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorRow {
    pub function: String,
    /// The errno's name (`ENOENT`), or `other`: past the errnos a function
    /// keeps per CPU.
    pub errno: String,
    pub count: u64,
}

/// Every function's error returns by errno, most frequent first.
pub fn error_rows(all: &[FunctionLatency]) -> Vec<ErrorRow> {
    let mut rows = Vec::new();
    for f in all {
        if let Some(e) = &f.errors {
            let other = (e.other > 0).then(|| ("other".to_string(), e.other));
            for (errno, count) in e.by_errno.iter().cloned().chain(other) {
                rows.push(ErrorRow {
                    function: f.function.clone(),
                    errno,
                    count,
                });
            }
        }
    }
    rows.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.function.cmp(&b.function))
    });
    rows
}

/// Fails, saying so, on a kernel without BTF: an exit set reads the
/// functions' prototypes from it.
fn require_btf(kernel: &Kernel) -> Result<()> {
    if kernel.path("sys/kernel/btf/vmlinux").exists() {
        return Ok(());
    }
    Err(Error::new(
        "this kernel has no BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): an exit set needs the functions' prototypes; `batchprobe count` works without",
    ))
}

/// Runs `batchprobe latency`.
pub fn run(kernel: &Kernel, a: &LatencyArgs, started: std::time::Instant) -> Result<()> {
    a.patterns.iter().try_for_each(|p| check_pattern(p))?;
    let duration = seconds("-d", a.duration)?;
    let interval = seconds("-i", a.interval)?;
    kernel.require()?;
    require_btf(kernel)?;
    if let Some(pid) = a.pid {
        return pid::run(kernel, a, pid, started, (duration, interval));
    }
    let stop = Stop::install()?;
    let name = own_name("bplatency");
    let errors = if a.errors { " --errors" } else { "" };
    let options = format!("--exit --hist{errors} --no-events");
    let _owned = OwnedSets::create_one(kernel, &name, 'd', &a.patterns, &options)?;
    let attach = attached(started);
    let n = kernel.sets()?.get(&name).map_or(0, |s| s.probes());
    note(&format!(
        "Tracing {} for {} ({})... Hit Ctrl-C to end.",
        plural(n, "function"),
        a.patterns.join(" "),
        attach
    ));
    let end = deadline(duration);
    loop {
        let finished = !stop.sleep_until(next_stop(interval, end))
            || end.is_some_and(|e| std::time::Instant::now() >= e);
        let stats = kernel.stats()?;
        let set = own_set(&stats, &name)?;
        let mut rows = latencies(set, a.sort);
        let errors = error_rows(&rows);
        if a.top > 0 {
            rows.truncate(a.top);
        }
        let report = Report {
            functions: n,
            rows,
            errors,
        };
        if a.json {
            print_json(&report)?;
        } else {
            out(&render(&report, a.hists, a.errors))?;
        }
        if finished {
            return Ok(());
        }
    }
}

/// The report as text: the table, the first histograms, the errors.
pub fn render(r: &Report, hists: usize, errors: bool) -> String {
    let mut out = String::new();
    if r.rows.is_empty() {
        out.push_str(&format!(
            "No call of the {} returned.\n",
            plural(r.functions, "function")
        ));
        return out;
    }
    let mut t = Table::new(&["FUNC", "CALLS", "MEAN", "P50", "P90", "P99", "ERRORS"]);
    for f in &r.rows {
        let h = f.hist.as_ref();
        t.row(vec![
            f.function.clone(),
            f.calls.to_string(),
            h.map_or("-".into(), |h| duration(h.mean_ns)),
            h.map_or("-".into(), |h| below(h.p50_lt_ns)),
            h.map_or("-".into(), |h| below(h.p90_lt_ns)),
            h.map_or("-".into(), |h| below(h.p99_lt_ns)),
            f.errors
                .as_ref()
                .map_or("-".into(), |e| e.total.to_string()),
        ]);
    }
    out.push_str(&t.render());
    out.push_str("(P50, P90, P99: below the end of the log2 bucket that holds them)\n");
    for f in r.rows.iter().take(hists) {
        if let Some(h) = &f.hist {
            out.push_str(&format!(
                "\nFunction = {}  [calls {}, mean {}]\n",
                f.function,
                h.count,
                duration(h.mean_ns)
            ));
            out.push_str(&hist::draw(h));
        }
    }
    if errors {
        out.push('\n');
        if r.errors.is_empty() {
            out.push_str("No error returns.\n");
        } else {
            let mut t = Table::new(&["FUNC", "ERRNO", "COUNT"]);
            for e in &r.errors {
                t.row(vec![
                    e.function.clone(),
                    e.errno.clone(),
                    e.count.to_string(),
                ]);
            }
            out.push_str(&t.render());
        }
    }
    out
}
