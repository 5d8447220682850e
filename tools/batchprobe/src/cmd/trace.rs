// SPDX-License-Identifier: GPL-2.0

//! `batchprobe trace`: probe lines in the `kprobe_events` language, their
//! records printed from tracefs until Ctrl-C, as perf-tools' `kprobe`
//! prints them, everything removed at the end. The records are read from
//! a tracefs instance of this command's own, with only the events its
//! sets made enabled there, so the global buffer, other tracers'
//! instances and other events of the same group are left alone.

use std::collections::BTreeSet;
use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use super::{attached, deadline, plural, seconds};
use crate::cli::TraceArgs;
use crate::error::{Error, Result};
use crate::import;
use crate::kernel::Kernel;
use crate::output::note;
use crate::session::instance::{events_of, wait_readable};
use crate::session::{Instance, OwnedSets, Stop};

/// How long records left in the buffer are still printed after a stop.
const DRAIN: Duration = Duration::from_secs(1);

/// The sets lines make probes in, each with whether a `d:` line is among
/// its lines.
type Sets = Vec<(String, bool)>;

/// The lines as batchprobe takes them (an `f:` line converted), and the
/// sets they make probes in.
fn lines_and_sets(a: &TraceArgs) -> Result<(Vec<String>, Sets)> {
    let mut lines = Vec::new();
    for (i, l) in a.lines.iter().enumerate() {
        if l.contains('\n') {
            return Err(Error::new(format!("`{l}`: one probe line per argument")));
        }
        match import::batch_line(l) {
            Ok(Some(l)) => lines.push(l),
            Ok(None) => {}
            Err((word, why)) => {
                return Err(Error::new(format!("argument {}: `{word}`: {why}", i + 1)))
            }
        }
    }
    let sets = import::sets_of(lines.iter().map(String::as_str))
        .map_err(|e| Error::new(format!("argument {e}")))?;
    if sets.is_empty() {
        return Err(Error::new("no probe line given"));
    }
    if a.exit && !sets.iter().any(|(_, direct)| *direct) {
        return Err(Error::new("--exit is for d: lines, and none was given"));
    }
    Ok((lines, sets))
}

/// Runs `batchprobe trace`.
pub fn run(kernel: &Kernel, a: &TraceArgs, started: Instant) -> Result<()> {
    let duration = seconds("-d", a.duration)?;
    let (lines, sets) = lines_and_sets(a)?;
    kernel.require()?;
    let tracefs = kernel.tracefs()?;
    let stop = Stop::install()?;
    let mut batch: String = lines.iter().map(|l| format!("{l}\n")).collect();
    for (set, direct) in &sets {
        let exit = if a.exit && *direct { " --exit" } else { "" };
        batch.push_str(&format!("create {set} --events{exit}\nenable {set}\n"));
    }
    // Events the groups had before: another tracer's, not to be enabled.
    let before: Vec<BTreeSet<String>> = sets.iter().map(|(s, _)| events_of(&tracefs, s)).collect();
    let names = sets.iter().map(|(s, _)| s.clone()).collect();
    let owned = OwnedSets::create(kernel, names, &batch)?;
    let attach = attached(started);
    let mut instance = Instance::create(kernel)?;
    let mut events = 0u64;
    for ((set, _), old) in sets.iter().zip(&before) {
        for ev in events_of(&tracefs, set).difference(old) {
            instance.enable(set, ev)?;
            events += 1;
        }
    }
    if events == 0 {
        return Err(Error::new("the sets made no trace event"));
    }
    let probes: u64 = kernel
        .sets()?
        .sets
        .iter()
        .filter(|s| owned.names().contains(&s.name))
        .map(|s| s.probes())
        .sum();
    note(&format!(
        "Tracing {} in {} (tracefs instance {}; {}). Ctrl-C to end.",
        plural(probes, "probe"),
        owned.names().join(", "),
        instance.dir().display(),
        attach
    ));
    stream(&instance, &stop, deadline(duration))
}

/// Copies the instance's `trace_pipe` to stdout until a signal or `end`;
/// then stops the instance's buffer and prints what is left in it, for
/// [`DRAIN`] at most. Stops early, without an error, when stdout closes
/// (`| head`); a stdout that takes nothing (a stalled reader) does not
/// hold the command past a stop.
fn stream(instance: &Instance, stop: &Stop, end: Option<Instant>) -> Result<()> {
    let mut f = instance.open_pipe()?;
    let mut buf = vec![0u8; 4096];
    let mut drain_until: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if drain_until.is_none() && (stop.requested() || end.is_some_and(|e| now >= e)) {
            instance.stop_buffer();
            drain_until = Some(now + DRAIN);
        }
        if drain_until.is_some_and(|d| now >= d) {
            return Ok(());
        }
        if drain_until.is_none() {
            wait_readable(&f);
        }
        match f.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                let stopping = || stop.requested() || end.is_some_and(|e| Instant::now() >= e);
                if !write_out(&buf[..n], stopping)? {
                    return Ok(());
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                if drain_until.is_some() {
                    return Ok(());
                }
            }
            Err(e) => {
                return Err(Error::new(format!(
                    "{}/trace_pipe: {e}",
                    instance.dir().display()
                )))
            }
        }
    }
}

/// Writes `data` (at most a page: a pipe or terminal that polls writable
/// takes it without blocking) to stdout, waiting for it to be writable
/// 100 ms at a time; `false` when stdout is gone, or when it took nothing
/// for [`DRAIN`] after `stopping` said so.
fn write_out(data: &[u8], stopping: impl Fn() -> bool) -> Result<bool> {
    let mut done = 0;
    let mut give_up: Option<Instant> = None;
    while done < data.len() {
        let mut pfd = libc::pollfd {
            fd: libc::STDOUT_FILENO,
            events: libc::POLLOUT,
            revents: 0,
        };
        // SAFETY: `pfd` is one valid pollfd for the duration of the call.
        let ready = unsafe { libc::poll(&mut pfd, 1, 100) };
        if ready <= 0 {
            if give_up.is_none() && stopping() {
                give_up = Some(Instant::now() + DRAIN);
            }
            if give_up.is_some_and(|g| Instant::now() >= g) {
                return Ok(false);
            }
            continue;
        }
        if pfd.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
            return Ok(false);
        }
        let rest = &data[done..];
        // SAFETY: `rest` is valid for reads of its length; fd 1 is ours.
        let n = unsafe { libc::write(libc::STDOUT_FILENO, rest.as_ptr().cast(), rest.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            match e.kind() {
                ErrorKind::Interrupted | ErrorKind::WouldBlock => continue,
                ErrorKind::BrokenPipe => return Ok(false),
                _ => return Err(Error::new(format!("stdout: {e}"))),
            }
        }
        done += n as usize;
    }
    Ok(true)
}
