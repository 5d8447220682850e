// SPDX-License-Identifier: GPL-2.0

//! Giving the CPU away in long loops under the registry lock.
//!
//! A write can hold tens of thousands of lines and a glob walks every kernel
//! text symbol; on a kernel without full preemption such a loop must call
//! `cond_resched()` now and then, or it trips the soft-lockup and RCU-stall
//! detectors.

use crate::bindings;

/// `cond_resched()`: may sleep, so process context only.
pub(crate) fn cond_resched() {
    // SAFETY: Called only from process context (control writes and the
    // module workqueue), where sleeping is allowed.
    unsafe { bindings::bp_cond_resched() };
}
