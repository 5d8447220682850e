// SPDX-License-Identifier: GPL-2.0

//! The signals that end a command: SIGINT (Ctrl-C), SIGTERM and SIGHUP set
//! a flag; the command stops where it waits, and its owners clean up as
//! they drop. A signal the caller ignored stays ignored (SIGHUP under
//! `nohup`, SIGINT for a shell's background job), as the BCC tools and
//! Python leave it; SIGTERM always ends the command.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Whether a signal asked the command to stop.
#[derive(Clone)]
pub struct Stop(Arc<AtomicBool>);

/// Whether `sig`'s disposition, as this process inherited it, is "ignore".
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter; with a null
    // new action, sigaction() only reads the current one into `old`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

impl Stop {
    /// Catches SIGINT, SIGTERM and SIGHUP from now on (not SIGINT or
    /// SIGHUP where the caller ignores them).
    pub fn install() -> Result<Self> {
        let flag = Arc::new(AtomicBool::new(false));
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            if sig != libc::SIGTERM && ignored(sig) {
                continue;
            }
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
