// SPDX-License-Identifier: GPL-2.0

//! What a command that makes sets owns while it runs, and gives back on
//! every way out: its sets (unregistered when the owner drops them: at the
//! end, on an error, or after Ctrl-C, SIGTERM or SIGHUP) and its tracefs
//! instance. A set left by `kill -9` stays: `batchprobe ls` shows it,
//! `batchprobe rm` removes it.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::kernel::Kernel;

/// Set when SIGINT, SIGTERM or SIGHUP arrives: the command then stops
/// where it waits, and its owners clean up as they drop.
#[derive(Clone)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// Catches SIGINT, SIGTERM and SIGHUP from now on.
    pub fn install() -> Result<Self> {
        let flag = Arc::new(AtomicBool::new(false));
        for sig in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            signal_hook::flag::register(sig, flag.clone())
                .map_err(|e| Error::new(format!("cannot catch signal {sig}: {e}")))?;
        }
        Ok(Stop(flag))
    }

    /// Whether a signal asked the command to stop.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Sleeps until `deadline`, or until a signal: `false` if a signal
    /// came.
    pub fn sleep_until(&self, deadline: Instant) -> bool {
        loop {
            if self.requested() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
        }
    }
}

/// A set name of this process's own: `PREFIX_PID`.
pub fn own_name(prefix: &str) -> String {
    format!("{prefix}_{}", std::process::id())
}

/// The pid in a name [`own_name`] made, if `name` is one.
pub fn owner_pid(name: &str) -> Option<u32> {
    let (prefix, pid) = name.rsplit_once('_')?;
    matches!(prefix, "bpcount" | "bplatency").then_some(())?;
    pid.parse().ok()
}

/// Sets this command created; each is unregistered (and waited for) when
/// this is dropped.
pub struct OwnedSets<'k> {
    kernel: &'k Kernel,
    names: Vec<String>,
}

impl<'k> OwnedSets<'k> {
    /// Creates the sets `names` with `batch` (which stages, creates and
    /// enables them): from here on they are this owner's.
    pub fn create(kernel: &'k Kernel, names: Vec<String>, batch: &str) -> Result<Self> {
        kernel.apply(batch)?;
        Ok(OwnedSets { kernel, names })
    }

    /// The sets' names.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Drop for OwnedSets<'_> {
    fn drop(&mut self) {
        let batch: String = self
            .names
            .iter()
            .map(|n| format!("unregister {n} --sync\n"))
            .collect();
        if let Err(e) = self.kernel.apply(&batch) {
            eprintln!(
                "batchprobe: removing {}: {e}\nbatchprobe: `batchprobe rm {}` removes them",
                self.names.join(", "),
                self.names.join(" ")
            );
        }
    }
}

/// A tracefs instance of this process's own (`instances/batchprobe_PID`):
/// the events it enables write to its buffer, not to the global one;
/// disabled and removed when dropped.
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
        fs::create_dir(&dir).map_err(|e| Error::new(format!("{}: {e}", dir.display())))?;
        Ok(Instance {
            dir,
            enabled: Vec::new(),
        })
    }

    /// The instance's directory.
    pub fn dir(&self) -> &PathBuf {
        &self.dir
    }

    /// Enables every event of the group `group` in this instance.
    pub fn enable_group(&mut self, group: &str) -> Result<()> {
        let f = self.dir.join("events").join(group).join("enable");
        fs::write(&f, "1\n").map_err(|e| {
            Error::new(format!(
                "{}: {e}: set {group} made no trace event (lines with fetch arguments or named probes make them)",
                f.display()
            ))
        })?;
        self.enabled.push(f);
        Ok(())
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        for f in &self.enabled {
            let _ = fs::write(f, "0\n");
        }
        if let Err(e) = fs::remove_dir(&self.dir) {
            eprintln!("batchprobe: removing {}: {e}", self.dir.display());
        }
    }
}
