// SPDX-License-Identifier: GPL-2.0

//! `batchprobe trace`: probe lines in the `kprobe_events` language, their
//! records printed from tracefs until Ctrl-C, as perf-tools' `kprobe`
//! prints them, everything removed at the end. The records are read from
//! a tracefs instance of this command's own, so the global buffer and
//! other tracers' instances are left alone.

use std::fs::OpenOptions;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::Instant;

use super::{attached, deadline, plural, seconds};
use crate::cli::TraceArgs;
use crate::error::{Error, Result};
use crate::import;
use crate::kernel::Kernel;
use crate::session::{Instance, OwnedSets, Stop};

/// Runs `batchprobe trace`.
pub fn run(kernel: &Kernel, a: &TraceArgs, started: Instant) -> Result<()> {
    let duration = seconds("-d", a.duration)?;
    if let Some(l) = a.lines.iter().find(|l| l.contains('\n')) {
        return Err(Error::new(format!("`{l}`: one probe line per argument")));
    }
    let sets = import::sets_of(a.lines.iter().map(String::as_str))
        .map_err(|e| Error::new(format!("argument {}", e)))?;
    if sets.is_empty() {
        return Err(Error::new("no probe line given"));
    }
    if a.exit && !sets.iter().any(|(_, direct)| *direct) {
        return Err(Error::new("--exit is for d: lines, and none was given"));
    }
    kernel.require()?;
    let stop = Stop::install()?;
    let mut batch: String = a.lines.iter().map(|l| format!("{}\n", l.trim())).collect();
    for (set, direct) in &sets {
        let exit = if a.exit && *direct { " --exit" } else { "" };
        batch.push_str(&format!("create {set} --events{exit}\nenable {set}\n"));
    }
    let names = sets.iter().map(|(s, _)| s.clone()).collect();
    let owned = OwnedSets::create(kernel, names, &batch)?;
    let attach = attached(started);
    let mut instance = Instance::create(kernel)?;
    for set in owned.names() {
        instance.enable_group(set)?;
    }
    let probes: u64 = kernel
        .sets()?
        .sets
        .iter()
        .filter(|s| owned.names().contains(&s.name))
        .map(|s| s.probes())
        .sum();
    eprintln!(
        "Tracing {} in {} (tracefs instance {}; {}). Ctrl-C to end.",
        plural(probes, "probe"),
        owned.names().join(", "),
        instance.dir().display(),
        attach
    );
    stream(
        &instance.dir().join("trace_pipe"),
        &stop,
        deadline(duration),
    )
}

/// Copies `pipe` (a `trace_pipe`) to stdout until a signal or `end`, then
/// what is left in it; stops early, without an error, when stdout closes
/// (`| head`).
fn stream(pipe: &Path, stop: &Stop, end: Option<Instant>) -> Result<()> {
    let mut f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(pipe)
        .map_err(|e| Error::new(format!("{}: {e}", pipe.display())))?;
    let mut out = std::io::stdout().lock();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let stopping = stop.requested() || end.is_some_and(|e| Instant::now() >= e);
        let mut pfd = libc::pollfd {
            fd: f.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `pfd` is one valid pollfd for the duration of the call.
        unsafe { libc::poll(&mut pfd, 1, if stopping { 0 } else { 100 }) };
        let mut got = false;
        loop {
            match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    got = true;
                    if out.write_all(&buf[..n]).and_then(|_| out.flush()).is_err() {
                        // stdout closed (`| head`): stop, and clean up.
                        return Ok(());
                    }
                }
                Err(e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted =>
                {
                    break
                }
                Err(e) => return Err(Error::new(format!("{}: {e}", pipe.display()))),
            }
        }
        if stopping && !got {
            return Ok(());
        }
    }
}
