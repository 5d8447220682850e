// SPDX-License-Identifier: GPL-2.0

//! `batchprobe latency --pid PID`: the kernel's histograms count every
//! task's calls, so one process's are timed from the exit set's return
//! records instead: an event per function (`create --exit --events`), a
//! tracefs instance of this command's own whose events are filtered on
//! the process's threads (`common_pid`), and each record's `duration`
//! counted here into histograms shaped as the module's.

use std::collections::HashMap;
use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use super::{render, sort_rows, FunctionLatency, Report};
use crate::cli::LatencyArgs;
use crate::cmd::{attached, deadline, next_stop, plural, print_json};
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::output::{note, out};
use crate::read::records::{exit_record, Durations};
use crate::session::instance::{events_of, wait_readable};
use crate::session::{own_name, Instance, OwnedSets, Stop};

/// The thread ids of process `pid` (its `/proc/PID/task`).
fn threads(kernel: &Kernel, pid: u32) -> Result<Vec<u32>> {
    let dir = kernel.path(&format!("proc/{pid}/task"));
    let mut tids: Vec<u32> = std::fs::read_dir(&dir)
        .map_err(|e| Error::new(format!("no process {pid} ({}: {e})", dir.display())))?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    tids.sort_unstable();
    if tids.is_empty() {
        return Err(Error::new(format!("process {pid} has no thread")));
    }
    Ok(tids)
}

/// A tracefs filter that keeps the records of these threads.
pub fn pid_filter(tids: &[u32]) -> String {
    tids.iter()
        .map(|t| format!("common_pid == {t}"))
        .collect::<Vec<_>>()
        .join(" || ")
}

/// Runs `batchprobe latency --pid PID`.
pub fn run(
    kernel: &Kernel,
    a: &LatencyArgs,
    pid: u32,
    started: Instant,
    (duration, interval): (Option<Duration>, Option<Duration>),
) -> Result<()> {
    let tids = threads(kernel, pid)?;
    let tracefs = kernel.tracefs()?;
    let stop = Stop::install()?;
    let name = own_name("bplatency");
    let _owned = OwnedSets::create_one(kernel, &name, 'd', &a.patterns, "--exit --events")?;
    let attach = attached(started);
    let mut instance = Instance::create(kernel)?;
    instance.filter(&name, &pid_filter(&tids))?;
    let events = events_of(&tracefs, &name);
    for ev in &events {
        instance.enable(&name, ev)?;
    }
    let n = events.len() as u64;
    note(&format!(
        "Tracing {} for {} in pid {pid} ({}) ({})... Hit Ctrl-C to end.",
        plural(n, "function"),
        a.patterns.join(" "),
        plural(tids.len() as u64, "thread"),
        attach
    ));
    time_calls(&instance, a, n, &stop, (deadline(duration), interval))
}

/// Counts the records of the instance's `trace_pipe` until a signal or
/// `end`, reporting at each `interval` and at the end (after what is left
/// in the stopped buffer).
fn time_calls(
    instance: &Instance,
    a: &LatencyArgs,
    n: u64,
    stop: &Stop,
    (end, interval): (Option<Instant>, Option<Duration>),
) -> Result<()> {
    let pipe = instance.dir().join("trace_pipe");
    let mut f = instance.open_pipe()?;
    let mut by_fn: HashMap<String, Durations> = HashMap::new();
    let mut partial = String::new();
    let mut tick = next_stop(interval, end);
    let mut stopped = false;
    loop {
        let stopping = stop.requested() || end.is_some_and(|e| Instant::now() >= e);
        if stopping && !stopped {
            // No record past the stop: what is in the buffer is read, then
            // the report.
            instance.stop_buffer();
            stopped = true;
        }
        let got = read_records(&mut f, &mut partial, &mut by_fn, !stopping)
            .map_err(|e| Error::new(format!("{}: {e}", pipe.display())))?;
        // Stopping: the report once the stopped buffer is read out.
        let due = if stopping {
            !got
        } else {
            Instant::now() >= tick
        };
        if due {
            report(a, n, &by_fn)?;
            let lost = instance.overruns();
            if lost > 0 {
                note(&format!(
                    "({} lost: the buffer filled faster than it was read)",
                    plural(lost, "record")
                ));
            }
            if stopping {
                return Ok(());
            }
            tick = next_stop(interval, end);
        }
    }
}

/// Reads what the pipe holds (waiting up to 100 ms first, if `wait`),
/// counting each whole exit record's duration under its function; `true`
/// if anything was read.
fn read_records(
    f: &mut std::fs::File,
    partial: &mut String,
    by_fn: &mut HashMap<String, Durations>,
    wait: bool,
) -> std::io::Result<bool> {
    if wait {
        wait_readable(f);
    }
    let mut buf = [0u8; 16384];
    let mut got = false;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Ok(got),
            Ok(k) => {
                got = true;
                partial.push_str(&String::from_utf8_lossy(&buf[..k]));
                while let Some(i) = partial.find('\n') {
                    if let Some((func, ns)) = exit_record(&partial[..i]) {
                        by_fn.entry(func.to_string()).or_default().add(ns);
                    }
                    partial.drain(..=i);
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                return Ok(got)
            }
            Err(e) => return Err(e),
        }
    }
}

/// The report of the calls timed so far.
fn report(a: &LatencyArgs, functions: u64, by_fn: &HashMap<String, Durations>) -> Result<()> {
    let mut rows: Vec<FunctionLatency> = by_fn
        .iter()
        .map(|(f, d)| FunctionLatency {
            function: f.clone(),
            calls: d.hist().map_or(0, |h| h.count),
            hist: d.hist(),
            errors: None,
        })
        .collect();
    sort_rows(&mut rows, a.sort);
    if a.top > 0 {
        rows.truncate(a.top);
    }
    let r = Report {
        functions,
        rows,
        errors: Vec::new(),
    };
    if a.json {
        print_json(&r)
    } else {
        out(&render(&r, a.hists, false))
    }
}
