// SPDX-License-Identifier: GPL-2.0

//! The module as this command sees it: its files and nothing around them.
//! A batch goes to `/dev/batchprobe` (or debugfs' `control` where the
//! device node is missing) in exactly one `write(2)`, so that it is one
//! batch: all or nothing. `sets`, `stats` and `last_error` are read from
//! debugfs; records from tracefs.
//!
//! Every path is taken under a root, `/` unless `BATCHPROBE_SYSROOT` names
//! another (the host tests point it at recorded files).

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{errno_name, Error, Result};
use crate::read::last_error::{self, LastError};
use crate::read::sets::{self, Sets};
use crate::read::stats::{self, Stats};

/// The module's debugfs directory.
pub const DEBUGFS_DIR: &str = "sys/kernel/debug/batchprobe";
/// The control device.
pub const DEVICE: &str = "dev/batchprobe";
/// The most a write may carry (the module's `BP_MAX_WRITE`).
pub const MAX_BATCH: usize = 1024 * 1024;

/// The running kernel and its batchprobe module.
#[derive(Debug, Clone)]
pub struct Kernel {
    root: PathBuf,
}

impl Default for Kernel {
    fn default() -> Self {
        Self::new()
    }
}

impl Kernel {
    /// The running kernel (or the tree `BATCHPROBE_SYSROOT` names).
    pub fn new() -> Self {
        let root = std::env::var_os("BATCHPROBE_SYSROOT")
            .map_or_else(|| PathBuf::from("/"), PathBuf::from);
        Kernel { root }
    }

    /// `path` (relative to `/`) under the root.
    pub fn path(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    /// Whether the module is loaded.
    pub fn loaded(&self) -> bool {
        self.path("sys/module/batchprobe").is_dir()
    }

    /// Fails, saying what to do, unless the module's files can be used.
    pub fn require(&self) -> Result<()> {
        if !self.loaded() {
            return Err(Error::new(
                "the batchprobe module is not loaded: load it with `modprobe batchprobe` (after `make install`) or `insmod batchprobe.ko`",
            ));
        }
        if !self.path(DEBUGFS_DIR).is_dir() {
            if !self.path("sys/kernel/debug").join("tracing").exists() && !self.mounted("debugfs") {
                return Err(Error::new(
                    "debugfs is not mounted: mount it with `mount -t debugfs none /sys/kernel/debug`",
                ));
            }
            return Err(Error::new(format!(
                "{} is missing though the module is loaded: run batchprobe as root (the directory is root's)",
                self.path(DEBUGFS_DIR).display()
            )));
        }
        Ok(())
    }

    /// Whether /proc/mounts lists a file system of type `fstype`.
    fn mounted(&self, fstype: &str) -> bool {
        fs::read_to_string(self.path("proc/mounts"))
            .map(|m| {
                m.lines()
                    .any(|l| l.split_whitespace().nth(2) == Some(fstype))
            })
            .unwrap_or(false)
    }

    /// Where batches go: the control device, else debugfs' `control`.
    pub fn control(&self) -> PathBuf {
        let dev = self.path(DEVICE);
        if dev.exists() {
            dev
        } else {
            self.path(DEBUGFS_DIR).join("control")
        }
    }

    /// Writes `batch` to the module in one `write(2)`: one batch, all or
    /// nothing. A refusal is an error carrying `last_error`'s text.
    pub fn apply(&self, batch: &str) -> Result<()> {
        self.require()?;
        if batch.len() > MAX_BATCH {
            return Err(Error::new(format!(
                "the batch is {} bytes, past the module's 1 MiB per write: split it into several files, each with its sets' create lines",
                batch.len()
            )));
        }
        let control = self.control();
        let earlier = self.last_error().ok().flatten();
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(&control)
            .map_err(|e| self.open_error(&control, e))?;
        match f.write(batch.as_bytes()) {
            Ok(n) if n == batch.len() => Ok(()),
            Ok(n) => Err(Error::new(format!(
                "{}: the module took {n} of {} bytes",
                control.display(),
                batch.len()
            ))),
            Err(e) => Err(self.refused(e, earlier)),
        }
    }

    /// A refused write: its errno, then what `last_error` says of it. The
    /// module writes `last_error` for what it parsed or ran; a write it
    /// refused before that (no `CAP_SYS_ADMIN`, too big, no memory, a
    /// fault, a signal) leaves the `earlier` text, which is not shown as
    /// this write's.
    fn refused(&self, e: std::io::Error, earlier: Option<LastError>) -> Error {
        let errno = e.raw_os_error().map_or_else(|| e.to_string(), errno_name);
        let now = self.last_error().ok().flatten();
        let fresh = now.is_some() && now != earlier;
        let early = match e.raw_os_error() {
            Some(libc::EPERM) => Some("this process lacks CAP_SYS_ADMIN: run batchprobe as root"),
            Some(libc::E2BIG) => Some("the batch is past the module's 1 MiB per write"),
            Some(libc::ENOMEM) => Some("the kernel is out of memory"),
            Some(libc::EINTR) => Some("a signal interrupted the write"),
            Some(libc::EFAULT) => Some("the batch could not be read (EFAULT)"),
            _ => None,
        };
        match (now, fresh, early) {
            (Some(le), true, _) => Error::new(format!(
                "the module refused the batch ({errno}); nothing was changed:\n{}",
                le.text
            )),
            (_, false, Some(why)) => Error::new(format!(
                "the module refused the batch ({errno}); nothing was changed: {why}"
            )),
            (Some(le), false, None) => Error::new(format!(
                "the module refused the batch ({errno}); nothing was changed; last_error (the same as before this write):\n{}",
                le.text
            )),
            (None, _, _) => Error::new(format!("the module refused the batch: {e} ({errno})")),
        }
    }

    /// An open that failed, with what to do.
    fn open_error(&self, path: &Path, e: std::io::Error) -> Error {
        let p = path.display();
        match e.kind() {
            ErrorKind::PermissionDenied if !is_root() => Error::new(format!(
                "{p}: permission denied: run batchprobe as root (the module's files are root's, and it needs CAP_SYS_ADMIN)"
            )),
            ErrorKind::PermissionDenied => Error::new(format!(
                "{p}: {e}: the kernel is locked down, or this process lacks CAP_SYS_ADMIN (see `batchprobe status`)"
            )),
            ErrorKind::NotFound => Error::new(format!(
                "{p}: not found: is the batchprobe module loaded (`batchprobe status`)?"
            )),
            _ => Error::new(format!("{p}: {e}")),
        }
    }

    /// One of the module's debugfs files, whole.
    pub fn read(&self, file: &str) -> Result<String> {
        self.require()?;
        let path = self.path(DEBUGFS_DIR).join(file);
        fs::read_to_string(&path).map_err(|e| self.open_error(&path, e))
    }

    /// The `sets` file, read.
    pub fn sets(&self) -> Result<Sets> {
        Ok(sets::parse(&self.read("sets")?)?)
    }

    /// The `stats` file, read.
    pub fn stats(&self) -> Result<Stats> {
        Ok(stats::parse(&self.read("stats")?)?)
    }

    /// The `last_error` file, read (`None`: no write failed yet).
    pub fn last_error(&self) -> Result<Option<LastError>> {
        Ok(last_error::parse(&self.read("last_error")?))
    }

    /// The tracefs mount.
    pub fn tracefs(&self) -> Result<PathBuf> {
        ["sys/kernel/tracing", "sys/kernel/debug/tracing"]
            .iter()
            .map(|p| self.path(p))
            .find(|p| p.join("trace").exists())
            .ok_or_else(|| {
                Error::new("tracefs is not mounted: mount it with `mount -t tracefs none /sys/kernel/tracing`")
            })
    }
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid() has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}
