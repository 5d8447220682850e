// SPDX-License-Identifier: GPL-2.0

//! How many probes a set being built may still take: the cap on one set
//! and the cap on all sets together (their values, and why, are the
//! registry's: `MAX_SET_PROBES` and `MAX_LIVE_PROBES` in
//! `src/engine/registry.rs`), and what happens to a target past them.
//!
//! A target named on a line of its own (or by an API client) is one probe,
//! and its room is held from the start of the build: glob members, which
//! the walk of the kernel's text symbols may meet before it, never take
//! it. Past the cap, an explicit target fails the set (`ENOSPC`, naming
//! it) and a glob member is skipped and counted, as a member the kernel
//! refuses is.
//!
//! This file has no kernel types in it: the host-side tests in `tests/`
//! compile it.

use core::fmt;

/// The cap that bounds a set being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// This many probes in one set (the `max_set_probes` module parameter,
    /// at most `MAX_SET_PROBES`).
    Set(usize),
    /// This many probes in all sets not yet freed together
    /// (`MAX_LIVE_PROBES`).
    Live(usize),
}

impl fmt::Display for Cap {
    /// `4194304 probes per set (max_set_probes)`, `8388608 probes in all
    /// sets together`: what `last_error` and `stats` say of the cap.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cap::Set(n) => write!(f, "{n} probes per set (max_set_probes)"),
            Cap::Live(n) => write!(f, "{n} probes in all sets together"),
        }
    }
}

/// How many probes a new set may hold, and which cap says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room {
    /// The most probes the set may hold.
    pub probes: usize,
    /// The cap that sets it.
    pub cap: Cap,
}

/// The room of a new set: at most `set_cap` probes, and no more than
/// `live_cap` leaves beside the `others` that the other sets (not freed
/// yet) hold. When both bind equally, the set's own cap is named.
pub fn room(set_cap: usize, live_cap: usize, others: usize) -> Room {
    let left = live_cap.saturating_sub(others);
    if left < set_cap {
        Room {
            probes: left,
            cap: Cap::Live(live_cap),
        }
    } else {
        Room {
            probes: set_cap,
            cap: Cap::Set(set_cap),
        }
    }
}

/// What [`Budget::admit`] says of a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// There is room: hand it to its backend ([`Budget::added`] if the
    /// backend took it).
    Yes,
    /// A glob member past the cap: skipped (and counted).
    Skip,
    /// An explicit target past the cap: the set fails (`ENOSPC`).
    Refuse,
}

/// A set's probes, counted while it is built, against its [`Room`].
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    room: Room,
    /// Probes the backends took.
    added: usize,
    /// Explicit targets still to come, whose room glob members leave.
    held: usize,
    /// Glob members skipped for want of room.
    skipped: usize,
}

impl Budget {
    /// Nothing taken yet, nothing held.
    pub fn new(room: Room) -> Self {
        Self {
            room,
            added: 0,
            held: 0,
            skipped: 0,
        }
    }

    /// Holds room for `explicit` targets to come (each admitted once):
    /// the build's explicit lines, or an API client's targets.
    pub fn hold(&mut self, explicit: usize) {
        self.held = explicit;
    }

    /// Whether the set has room for one more target. An explicit target
    /// takes its held room: it is refused only when explicit targets alone
    /// are more than the room; a glob member gets only what the explicit
    /// ones leave.
    pub fn admit(&mut self, explicit: bool) -> Admit {
        if explicit {
            self.held = self.held.saturating_sub(1);
            if self.added < self.room.probes {
                return Admit::Yes;
            }
            return Admit::Refuse;
        }
        if self.added.saturating_add(self.held) < self.room.probes {
            return Admit::Yes;
        }
        self.skipped = self.skipped.saturating_add(1);
        Admit::Skip
    }

    /// A backend took the target [`Budget::admit`] let through.
    pub fn added(&mut self) {
        self.added = self.added.saturating_add(1);
    }

    /// The room, and the cap that sets it.
    pub fn room(&self) -> Room {
        self.room
    }

    /// Probes taken so far.
    pub fn probes(&self) -> usize {
        self.added
    }

    /// Glob members skipped for want of room so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }
}
