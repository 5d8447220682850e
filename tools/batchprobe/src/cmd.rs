// SPDX-License-Identifier: GPL-2.0

//! One file per subcommand.

pub mod apply;
pub mod count;
pub mod latency;
pub mod ls;
mod man;
mod rm;
pub mod stats;
pub mod status;
pub mod top;
mod trace;

use std::time::{Duration, Instant};

use crate::cli::Command;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::read::stats::{SetStats, Stats};

/// Runs a subcommand.
pub fn run(command: Command) -> Result<()> {
    let started = Instant::now();
    let kernel = Kernel::new();
    match command {
        Command::Count(a) => count::run(&kernel, &a, started),
        Command::Latency(a) => latency::run(&kernel, &a, started),
        Command::Trace(a) => trace::run(&kernel, &a, started),
        Command::Top(a) => top::run(&kernel, &a),
        Command::Apply(a) => apply::apply(&kernel, &a),
        Command::Import(a) => apply::import(&kernel, &a),
        Command::Ls(a) => ls::run(&kernel, a.json),
        Command::Stats(a) => stats::run(&kernel, &a),
        Command::Rm(a) => rm::run(&kernel, &a),
        Command::Status(a) => status::run(&kernel, a.json),
        Command::Completions { shell } => man::completions(shell),
        Command::Man { dir } => man::pages(dir.as_deref()),
    }
}

/// A `-d`/`-i` value in seconds, checked.
pub(crate) fn seconds(what: &str, s: Option<f64>) -> Result<Option<Duration>> {
    match s {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s < 1e7 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(Error::new(format!(
            "{what} {s}: give a number of seconds above 0 and below 10000000"
        ))),
    }
}

/// A pattern given on the command line: one word, no line break.
fn check_pattern(p: &str) -> Result<()> {
    if p.is_empty() || p.contains(char::is_whitespace) {
        return Err(Error::new(format!(
            "pattern `{p}`: give one function name or glob per argument"
        )));
    }
    Ok(())
}

/// `attached in 12.3 ms`: from the command's start until the write that
/// creates and arms its sets returned (as retsnoop reports its attach).
pub(crate) fn attached(started: Instant) -> String {
    format!(
        "attached in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    )
}

/// `N WORD` or `N WORDs`.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The end of a run of `-d` seconds from now (`None`: until a signal).
pub(crate) fn deadline(d: Option<Duration>) -> Option<Instant> {
    d.map(|d| Instant::now() + d)
}

/// The next stop: the interval's end, the run's end, or (neither) far away.
pub(crate) fn next_stop(interval: Option<Duration>, end: Option<Instant>) -> Instant {
    let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
    let tick = interval.map_or(far, |i| Instant::now() + i);
    end.map_or(tick, |e| e.min(tick))
}

/// The statistics of a set this command made, or an error if another
/// command removed it meanwhile.
pub(crate) fn own_set<'s>(stats: &'s Stats, name: &str) -> Result<&'s SetStats> {
    stats
        .get(name)
        .ok_or_else(|| Error::new(format!("set {name} is gone (removed by another command?)")))
}

/// Prints JSON on stdout.
pub(crate) fn print_json(v: &impl serde::Serialize) -> Result<()> {
    let s = serde_json::to_string(v).map_err(|e| Error::new(format!("json: {e}")))?;
    crate::output::out(&format!("{s}\n"))
}
