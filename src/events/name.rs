// SPDX-License-Identifier: GPL-2.0

//! The name of an event whose line names none (`p SYM`, `p:SET/ SYM`, a
//! glob's members), made as `trace_kprobe_create()` makes it, so that a
//! pasted `kprobe_events` line gives the event tracefs would:
//! `snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld", is_return ? 'r' : 'p',
//! symbol, offset)` (the symbol without its `+OFF`, the offset in decimal),
//! then `sanitize_event_name()`, which turns every `:`, `.` and `*` after
//! the first byte into `_`. Pure: the host tests compile this file too.

use core::fmt::{self, Write};

/// `MAX_EVENT_NAME_LEN` (`kernel/trace/trace.h`, 6.12 and 7.3): the name's
/// buffer, its NUL included.
pub const MAX_EVENT_NAME_LEN: usize = 64;

/// An event name of at most `MAX_EVENT_NAME_LEN - 1` bytes.
#[derive(Clone, Copy)]
pub struct EventName {
    buf: [u8; MAX_EVENT_NAME_LEN],
    len: usize,
}

impl EventName {
    /// `name` as it is, cut as [`fmt::Write`] cuts.
    pub fn new(name: &str) -> Self {
        let mut n = Self {
            buf: [0; MAX_EVENT_NAME_LEN],
            len: 0,
        };
        let _ = n.write_str(name);
        n
    }

    /// The name's bytes, as [`EventName::as_str`] has them, without
    /// checking them again: what sorting and comparing names reads (a
    /// `create` of 18,000 probes compares them some 300,000 times).
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        // The bytes are the symbol's (UTF-8, as `command.rs` takes it) cut
        // at a byte that `write_str` keeps on a character boundary, and ASCII.
        core::str::from_utf8(self.buf.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }
}

impl fmt::Write for EventName {
    /// Appends `s` as `snprintf` would, cut where the buffer ends (at a
    /// character boundary: symbols are ASCII, where the two agree).
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            let mut b = [0u8; 4];
            let e = c.encode_utf8(&mut b).as_bytes();
            let Some(room) = self.buf.get_mut(self.len..MAX_EVENT_NAME_LEN - 1) else {
                break;
            };
            let Some(dst) = room.get_mut(..e.len()) else {
                break;
            };
            dst.copy_from_slice(e);
            self.len += e.len();
        }
        Ok(())
    }
}

/// The name `kprobe_events` gives an unnamed probe on `symbol` (without
/// its `+OFF`) at `offset`; `ret`: a return probe (`r:`, `%return`).
pub fn auto_event_name(ret: bool, symbol: &str, offset: u32) -> EventName {
    let mut n = EventName::new("");
    // "%c_%s_%ld": writing into the name cannot fail, it cuts.
    let _ = write!(n, "{}_{}_{}", if ret { 'r' } else { 'p' }, symbol, offset);
    sanitize(&mut n);
    n
}

/// `trace_fprobe_create()`'s name for an unnamed fprobe event on
/// `symbol`: `SYM__entry`, or `SYM__exit` for a return (`exit`), cut at
/// 63 bytes and sanitized as the kernel does. A `d:` probe's event takes
/// it: an entry record from a direct set, a return record from an exit
/// set, as `f:SYM` and `f:SYM%return` write them.
pub fn fprobe_event_name(exit: bool, symbol: &str) -> EventName {
    let mut n = EventName::new("");
    let _ = write!(n, "{}__{}", symbol, if exit { "exit" } else { "entry" });
    sanitize(&mut n);
    n
}

/// `made` (as `snprintf` made it) after `sanitize_event_name()`: the name
/// of an unnamed probe on an address, `p_0x%p`, whose hashed pointer only
/// the kernel's `%p` gives (`crate::events::address`).
pub fn made_event_name(made: &str) -> EventName {
    let mut n = EventName::new(made);
    sanitize(&mut n);
    n
}

/// `sanitize_event_name()`: every `:`, `.` and `*` after the first byte
/// becomes `_`.
fn sanitize(n: &mut EventName) {
    if let Some(rest) = n.buf.get_mut(1..n.len) {
        for b in rest {
            if matches!(*b, b':' | b'.' | b'*') {
                *b = b'_';
            }
        }
    }
}

/// A probe's event name: the one its line gives, or the one
/// `kprobe_events` makes ([`auto_event_name`], [`made_event_name`]). Equal, and ordered, as
/// their bytes (a given name is never cut: longer than an event name, it
/// equals no made one).
#[derive(Clone, Copy)]
pub enum ProbeEventName<'a> {
    /// The line's `NAME`.
    Given(&'a [u8]),
    /// `p_SYM_OFF` or `r_SYM_0`, or on an address `p_0x%p` (`r_0x%p`).
    Auto(EventName),
}

impl ProbeEventName<'_> {
    /// The name's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            ProbeEventName::Given(n) => n,
            ProbeEventName::Auto(n) => n.as_bytes(),
        }
    }

    /// As an [`EventName`] (a given one cut at its length limit, which
    /// the line's parser keeps names under).
    pub fn owned(&self) -> EventName {
        match self {
            ProbeEventName::Given(n) => EventName::new(core::str::from_utf8(n).unwrap_or("")),
            ProbeEventName::Auto(n) => *n,
        }
    }
}

impl PartialEq for ProbeEventName<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for ProbeEventName<'_> {}

impl PartialOrd for ProbeEventName<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ProbeEventName<'_> {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.bytes().cmp(other.bytes())
    }
}
