// SPDX-License-Identifier: GPL-2.0

//! Giving the CPU away in long loops under the registry lock, and giving
//! up when the task running them is killed.
//!
//! A write can hold tens of thousands of lines and a glob walks every kernel
//! text symbol; on a kernel without full preemption such a loop must call
//! `cond_resched()` now and then, or it trips the soft-lockup and RCU-stall
//! detectors. And a writer that is killed (`kill -9`) must not keep the
//! registry lock for minutes: every long loop of a control write (the
//! validation, the build of a set, the walk of the text symbols for its
//! globs, the listings) checks `fatal_signal_pending()` as it reschedules,
//! and gives up with `EINTR`; the write is then rolled back as any failed
//! write is.

use kernel::prelude::*;

use crate::bindings;

/// `cond_resched()`: may sleep, so process context only.
pub(crate) fn cond_resched() {
    // SAFETY: Called only from process context (control writes and the
    // module workqueue), where sleeping is allowed.
    unsafe { bindings::bp_cond_resched() };
}

/// Whether the current task has a fatal signal pending (it was killed).
/// Process context only: on the module's workqueue, a kworker, always
/// false.
pub(crate) fn fatal_signal_pending() -> bool {
    // SAFETY: Only reads the current task's pending signals.
    unsafe { bindings::bp_fatal_signal_pending() }
}

/// `cond_resched()`, then `EINTR` if the current task was killed: for a
/// loop of a control write (or an API call) that may run long.
pub(crate) fn resched_unless_killed() -> Result {
    cond_resched();
    if fatal_signal_pending() {
        return Err(EINTR);
    }
    Ok(())
}

/// Paces a long loop: every `every` steps, [`resched_unless_killed`].
pub(crate) struct Pacer {
    every: u32,
    steps: u32,
}

impl Pacer {
    /// A pacer that reschedules (and checks for a kill) every `every`
    /// steps (at least 1).
    pub(crate) const fn new(every: u32) -> Self {
        Self {
            every: if every == 0 { 1 } else { every },
            steps: 0,
        }
    }

    /// One step of the loop: `EINTR` once the task was killed.
    pub(crate) fn step(&mut self) -> Result {
        self.steps += 1;
        if self.steps < self.every {
            return Ok(());
        }
        self.steps = 0;
        resched_unless_killed()
    }
}
