// SPDX-License-Identifier: GPL-2.0

//! The life cycle of a probe set, as a pure state machine.
//!
//! ```text
//! create ─► Registered ─enable─► Enabled ⇄ Disabled
//!               │                   │          │
//!               └──────── unregister ┴──────────┘
//!                              ▼
//!                          Retiring ─teardown done─► Freed
//! ```
//!
//! Enabling an enabled set or disabling a disabled (or never enabled) one is
//! a no-op, as in tracefs. Everything but the teardown itself is refused once
//! a set is retiring. Every state the module writes comes from [`next`] (or
//! [`retire_now`], which is built on it). No kernel types here: `tests/`
//! compiles this file too.

use crate::errno::{EALREADY, EBUSY, EINVAL, ENOENT};

/// Where a set is in its life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SetState {
    /// Registered, not armed.
    Registered = 0,
    /// Armed and counting.
    Enabled = 1,
    /// Disarmed after having been enabled.
    Disabled = 2,
    /// Unregistration is queued or running.
    Retiring = 3,
    /// Unregistered; memory handed to RCU.
    Freed = 4,
}

impl SetState {
    /// The state stored as `v`, if any.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => SetState::Registered,
            1 => SetState::Enabled,
            2 => SetState::Disabled,
            3 => SetState::Retiring,
            4 => SetState::Freed,
            _ => return None,
        })
    }

    /// The name shown in the `sets` listing.
    pub fn as_str(self) -> &'static str {
        match self {
            SetState::Registered => "registered",
            SetState::Enabled => "enabled",
            SetState::Disabled => "disabled",
            SetState::Retiring => "retiring",
            SetState::Freed => "freed",
        }
    }

    /// Whether the set still owns registered probes that commands may act on.
    pub fn is_live(self) -> bool {
        matches!(
            self,
            SetState::Registered | SetState::Enabled | SetState::Disabled
        )
    }
}

/// What is asked of a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Arm every probe.
    Enable,
    /// Disarm every probe.
    Disable,
    /// Switch a live set's direct trampoline (`direct SET MODE`).
    Retarget,
    /// Start the teardown.
    Unregister,
    /// The teardown has finished.
    TeardownDone,
}

/// Why an operation is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The set is being torn down (`EBUSY`).
    Retiring,
    /// The set is already being torn down (`EALREADY`).
    AlreadyRetiring,
    /// The set is gone (`ENOENT`).
    Gone,
    /// The teardown finished on a set that was not retiring (a bug; `EINVAL`).
    NotRetiring,
}

impl Refusal {
    /// The errno (positive) for this refusal.
    pub fn errno(self) -> i32 {
        match self {
            Refusal::Retiring => EBUSY,
            Refusal::AlreadyRetiring => EALREADY,
            Refusal::Gone => ENOENT,
            Refusal::NotRetiring => EINVAL,
        }
    }

    /// A short description.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Retiring => "set is retiring",
            Refusal::AlreadyRetiring => "set is already retiring",
            Refusal::Gone => "set is gone",
            Refusal::NotRetiring => "set was not retiring",
        }
    }
}

/// The state after `op`: `Ok(None)` when `op` changes nothing.
pub fn next(state: SetState, op: Op) -> Result<Option<SetState>, Refusal> {
    use SetState::*;
    match (state, op) {
        (Freed, _) => Err(Refusal::Gone),
        (Retiring, Op::TeardownDone) => Ok(Some(Freed)),
        (_, Op::TeardownDone) => Err(Refusal::NotRetiring),
        (Retiring, Op::Unregister) => Err(Refusal::AlreadyRetiring),
        (Retiring, _) => Err(Refusal::Retiring),
        (_, Op::Unregister) => Ok(Some(Retiring)),
        (_, Op::Retarget) => Ok(None),
        (Enabled, Op::Enable) => Ok(None),
        (Registered | Disabled, Op::Enable) => Ok(Some(Enabled)),
        (Enabled, Op::Disable) => Ok(Some(Disabled)),
        (Registered | Disabled, Op::Disable) => Ok(None),
    }
}

/// The state before a set is retired here and now, without the workqueue (a
/// rollback, or the drop safety net): as [`Op::Unregister`], except that a
/// set already retiring stays so (`Ok(None)`): its teardown has not run yet,
/// and runs now.
pub fn retire_now(state: SetState) -> Result<Option<SetState>, Refusal> {
    match next(state, Op::Unregister) {
        Err(Refusal::AlreadyRetiring) => Ok(None),
        r => r,
    }
}
