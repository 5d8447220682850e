// SPDX-License-Identifier: GPL-2.0

//! A tracefs instance of this process's own (`instances/batchprobe_PID`):
//! the events it enables write to its buffer, not to the global one;
//! disabled and removed when dropped.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::kernel::Kernel;

/// The event directories under `events/GROUP/` (none where the group
/// does not exist).
pub fn events_of(tracefs: &Path, group: &str) -> BTreeSet<String> {
    fs::read_dir(tracefs.join("events").join(group))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The instance, and the events enabled in it.
pub struct Instance {
    dir: PathBuf,
    enabled: Vec<PathBuf>,
}

impl Instance {
    /// Makes the instance.
    pub fn create(kernel: &Kernel) -> Result<Self> {
        let dir = kernel
            .tracefs()?
            .join("instances")
            .join(format!("batchprobe_{}", std::process::id()));
        fs::create_dir(&dir).map_err(|e| {
            Error::new(format!(
                "{}: {e}: tracefs takes no new instance here (lockdown=confidentiality, or tracefs read-only?)",
                dir.display()
            ))
        })?;
        Ok(Instance {
            dir,
            enabled: Vec::new(),
        })
    }

    /// The instance's directory.
    pub fn dir(&self) -> &PathBuf {
        &self.dir
    }

    /// Sets the filter of every event of `group` in this instance (a
    /// tracefs filter expression: `common_pid == 42`).
    pub fn filter(&mut self, group: &str, expr: &str) -> Result<()> {
        let f = self.dir.join("events").join(group).join("filter");
        fs::write(&f, format!("{expr}\n")).map_err(|e| Error::new(format!("{}: {e}", f.display())))
    }

    /// Records the instance's buffer lost since it was made (the per-CPU
    /// `overrun` counts: a reader too slow for the records).
    pub fn overruns(&self) -> u64 {
        let Ok(cpus) = fs::read_dir(self.dir.join("per_cpu")) else {
            return 0;
        };
        cpus.filter_map(|c| c.ok())
            .filter_map(|c| fs::read_to_string(c.path().join("stats")).ok())
            .flat_map(|t| {
                t.lines()
                    .filter_map(|l| l.strip_prefix("overrun: ")?.trim().parse::<u64>().ok())
                    .collect::<Vec<_>>()
            })
            .sum()
    }

    /// The instance's `trace_pipe`, opened without blocking (a read of an
    /// empty one fails with `WouldBlock`: [`wait_readable`] waits).
    pub fn open_pipe(&self) -> Result<File> {
        let pipe = self.dir.join("trace_pipe");
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&pipe)
            .map_err(|e| Error::new(format!("{}: {e}", pipe.display())))
    }

    /// Stops the instance's buffer: no record past this, what it holds
    /// still read from the pipe.
    pub fn stop_buffer(&self) {
        let _ = fs::write(self.dir.join("tracing_on"), "0\n");
    }

    /// Enables the event `group/event` in this instance.
    pub fn enable(&mut self, group: &str, event: &str) -> Result<()> {
        let f = self
            .dir
            .join("events")
            .join(group)
            .join(event)
            .join("enable");
        fs::write(&f, "1\n").map_err(|e| Error::new(format!("{}: {e}", f.display())))?;
        self.enabled.push(f);
        Ok(())
    }
}

impl Drop for Instance {
    /// Its events off, then the instance gone (tracefs refuses to remove
    /// one whose buffer a reader holds: the caller's `trace_pipe` is
    /// closed first, being declared after this).
    fn drop(&mut self) {
        for f in &self.enabled {
            let _ = fs::write(f, "0\n");
        }
        if let Err(e) = fs::remove_dir(&self.dir) {
            crate::output::note(&format!(
                "batchprobe: removing {}: {e} (rmdir it)",
                self.dir.display()
            ));
        }
    }
}

/// Waits up to 100 ms for `f` (a pipe opened by [`Instance::open_pipe`])
/// to have something to read.
pub fn wait_readable(f: &File) {
    let mut pfd = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `pfd` is one valid pollfd for the duration of the call.
    unsafe { libc::poll(&mut pfd, 1, 100) };
}
