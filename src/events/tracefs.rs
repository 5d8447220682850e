// SPDX-License-Identifier: GPL-2.0

//! A set's events in tracefs: with `create SET --events`, every `p:` and
//! `r:` probe of the set gets `events/SET/EVENT/` (`enable`, `filter`,
//! `trigger`, `format`, `id`), and while the set is enabled its probe
//! writes a record into the ring buffer of every tracefs instance that has
//! the event enabled, laid out and printed as `kprobe_events`' own
//! (`EVENT: (SYM+OFF)`, `EVENT: (CALLER <- SYM)`). The C side,
//! `rust/events.c`, holds the `trace_event_call`s and says how they are
//! added under the kernel's `event_mutex`.
//!
//! An event is named as `kprobe_events` names it: the line's `NAME`, or
//! for an unnamed line (`p:SET/ SYM`, a glob's members) `p_SYM_OFF` or
//! `r_SYM_0` ([`super::name`]). A name tracefs has already (anyone's event
//! `SET/EVENT`), or that two probes of the set would share, fails the
//! `create`, which changes nothing.
//!
//! Counting is untouched: a probe counts whether or not its event is on;
//! turning an event on or off waits for no grace period. The events leave
//! tracefs when the set's teardown has unregistered its probes; one still
//! enabled then stays, without records, until it is disabled and a later
//! `create` or `unregister` of any set, or the module's unload, removes it
//! (an enabled event keeps the module loaded).

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use kernel::prelude::*;

use super::name::{auto_event_name, EventName};
use crate::bindings;
use crate::error::{BStr, Failed};
use crate::kvec;

/// What a probe saw when it fired, for its record.
pub(crate) enum Fired {
    /// An entry probe at `ip` (`__probe_ip`).
    Entry { ip: usize },
    /// A return from the function at `func` to `ret_ip`.
    Return { func: usize, ret_ip: usize },
}

/// A probe's event, as its handler sees it: none until its set's events
/// are in tracefs.
///
/// # Invariants
///
/// `ev` is null, or an event in tracefs (or, after the set's teardown
/// removed it, one no handler reads again: the probe is unregistered).
pub(crate) struct EventSlot {
    ev: AtomicPtr<bindings::bp_event>,
    /// A return probe.
    ret: bool,
    /// The line named the probe (else its event gets `p_SYM_OFF`).
    named: bool,
}

impl EventSlot {
    /// No event yet, for a probe that is a return probe (`ret`) and that
    /// its line named (`named`).
    pub(crate) fn new(ret: bool, named: bool) -> Self {
        Self {
            ev: AtomicPtr::new(core::ptr::null_mut()),
            ret,
            named,
        }
    }

    /// Writes the probe's record, as `fired` describes it, into every
    /// instance that has its event enabled. Called from probe handlers:
    /// no locks, no allocation.
    #[inline(always)]
    pub(crate) fn fire(&self, fired: impl FnOnce() -> Fired) {
        let ev = self.ev.load(Ordering::Acquire);
        if ev.is_null() {
            return;
        }
        match fired() {
            // SAFETY: By the type invariant `ev` is an event in tracefs;
            // the record writers are notrace and take no lock.
            Fired::Entry { ip } => unsafe { bindings::bp_event_entry(ev, ip) },
            // SAFETY: As above.
            Fired::Return { func, ret_ip } => unsafe {
                bindings::bp_event_return(ev, func, ret_ip)
            },
        }
    }

    /// The event name of a probe on `symbol` at `offset`, named `name`.
    fn event_name<'a>(&self, name: &'a [u8], symbol: &[u8], offset: u32) -> Name<'a> {
        if self.named {
            Name::Given(name)
        } else {
            let symbol = core::str::from_utf8(symbol).unwrap_or("");
            Name::Auto(auto_event_name(self.ret, symbol, offset))
        }
    }
}

/// An event's name: the line's, or the one `kprobe_events` makes.
enum Name<'a> {
    Given(&'a [u8]),
    Auto(EventName),
}

impl Name<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Name::Given(n) => n,
            Name::Auto(n) => n.as_str().as_bytes(),
        }
    }

    /// As an [`EventName`] (a given one cut at its length limit, which
    /// the line's parser keeps names under).
    fn owned(&self) -> EventName {
        match self {
            Name::Given(n) => EventName::new(core::str::from_utf8(n).unwrap_or("")),
            Name::Auto(n) => *n,
        }
    }
}

/// One probe as [`SetEvents::add`] walks them: its slot, name, symbol and
/// offset.
pub(crate) struct ProbeEvent<'a> {
    pub(crate) slot: &'a EventSlot,
    pub(crate) name: &'a [u8],
    pub(crate) symbol: &'a [u8],
    pub(crate) offset: u32,
}

/// Walks a set's probes that can have an event, calling its argument for
/// each, in the same order every time.
pub(crate) type EachProbe<'a> = &'a dyn Fn(&mut dyn FnMut(&ProbeEvent<'_>));

/// A NUL-terminated copy of `s`, for the C side.
fn c_string(s: &[u8]) -> Result<KVec<u8>, Failed> {
    let mut v = KVec::with_capacity(s.len() + 1, GFP_KERNEL).map_err(|_| Failed::oom())?;
    v.extend_from_slice(s, GFP_KERNEL)
        .map_err(|_| Failed::oom())?;
    v.push(0, GFP_KERNEL).map_err(|_| Failed::oom())?;
    Ok(v)
}

/// The events of one set.
///
/// # Invariants
///
/// Every pointer in `events` came from `bp_event_new` and is owned here:
/// in tracefs once `added` (until `removed`), else not. Only the caller
/// that turned `removed` from `false` to `true` touches `events` after
/// `added`.
pub(crate) struct SetEvents {
    events: UnsafeCell<KVVec<*mut bindings::bp_event>>,
    added: bool,
    removed: AtomicBool,
}

// SAFETY: The pointers are C objects the kernel's tracing code shares
// between CPUs under its own locks; `events` is only mutated by its unique
// remover (see the type's invariants).
unsafe impl Send for SetEvents {}
// SAFETY: See `Send`.
unsafe impl Sync for SetEvents {}

impl SetEvents {
    /// None yet.
    pub(crate) fn new() -> Self {
        Self {
            events: UnsafeCell::new(KVVec::new()),
            added: false,
            removed: AtomicBool::new(false),
        }
    }

    /// Makes an event for every probe `each` walks (set `set`), all added
    /// to tracefs in one step, then points each probe at its own. All or
    /// nothing: an error leaves tracefs as it was. `each` walks the same
    /// probes in the same order every time it is called.
    pub(crate) fn add(&mut self, set: &[u8], each: EachProbe<'_>) -> Result<(), Failed> {
        // An event of a retired set, in use then, may be free to go now
        // (and its name with it).
        // SAFETY: Plain C calls; an empty sync only removes such events.
        if unsafe { bindings::bp_events_orphans() } {
            let null = core::ptr::null_mut();
            // SAFETY: See above.
            unsafe { bindings::bp_events_sync(null, 0, null, 0, core::ptr::null_mut()) };
        }
        let events = self.events.get_mut();
        let system = c_string(set)?;
        let mut names: KVVec<EventName> = KVVec::new();
        let mut failed = None;
        each(&mut |p| {
            if failed.is_some() {
                return;
            }
            let name = p.slot.event_name(p.name, p.symbol, p.offset);
            if let Err(e) = Self::make(events, &system, set, name.bytes(), p.slot.ret) {
                failed = Some(e);
            }
            if names.push(name.owned(), GFP_KERNEL).is_err() {
                failed = Some(Failed::oom());
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        Self::refuse_twice(set, &mut names)?;
        let (ptr, n) = (events.as_mut_ptr(), events.len());
        // SAFETY: `ptr` holds `n` events from `bp_event_new`, none in
        // tracefs; the adds are all or nothing.
        let ret = unsafe {
            bindings::bp_events_sync(ptr, n, core::ptr::null_mut(), 0, core::ptr::null_mut())
        };
        if ret != 0 {
            return Err(Failed::new(
                Error::from_errno(ret),
                format_args!(
                    "set {}: its events could not be added to tracefs",
                    BStr(set)
                ),
            ));
        }
        // INVARIANT: every event is in tracefs now.
        self.added = true;
        let mut i = 0;
        each(&mut |p| {
            if let Some(&ev) = events.get(i) {
                // INVARIANT: `ev` is in tracefs.
                p.slot.ev.store(ev, Ordering::Release);
            }
            i += 1;
        });
        Ok(())
    }

    /// Makes the event `set/name` (not in tracefs yet), refusing a name
    /// that tracefs has already.
    fn make(
        events: &mut KVVec<*mut bindings::bp_event>,
        system: &[u8],
        set: &[u8],
        name: &[u8],
        ret: bool,
    ) -> Result<(), Failed> {
        let cname = c_string(name)?;
        // SAFETY: Both strings are NUL-terminated.
        if unsafe { bindings::bp_event_exists(system.as_ptr().cast(), cname.as_ptr().cast()) } != 0
        {
            return Err(Failed::new(
                EEXIST,
                format_args!(
                    "event {}/{} exists in tracefs already (kprobe_events, another set, or a static event): name the probe, or the set, otherwise",
                    BStr(set),
                    BStr(name)
                ),
            ));
        }
        events.reserve(1, GFP_KERNEL).map_err(|_| Failed::oom())?;
        // SAFETY: Both strings are NUL-terminated; the C side copies them.
        let ev =
            unsafe { bindings::bp_event_new(system.as_ptr().cast(), cname.as_ptr().cast(), ret) };
        if ev.is_null() {
            return Err(Failed::oom());
        }
        // Cannot fail: room was reserved.
        let _ = events.push(ev, GFP_KERNEL);
        Ok(())
    }

    /// Refuses an event name two probes of the set would share.
    fn refuse_twice(set: &[u8], names: &mut KVVec<EventName>) -> Result<(), Failed> {
        names.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
        for w in names.windows(2) {
            if let [a, b] = w {
                if a.as_str() == b.as_str() {
                    return Err(Failed::new(
                        EEXIST,
                        format_args!(
                            "event {}/{} would be made twice: name the probes apart",
                            BStr(set),
                            a.as_str()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Removes the events from tracefs, once, after the set's probes were
    /// unregistered (no handler reads them again). One still in use stays
    /// in tracefs without records, owned by the C side, until it can go.
    pub(crate) fn remove(&self) {
        if !self.added || self.removed.swap(true, Ordering::AcqRel) {
            return;
        }
        // SAFETY: The swap above made this the only caller (invariants).
        let events = unsafe { &mut *self.events.get() };
        let mut busy = 0usize;
        // SAFETY: Every event is in tracefs; the C side frees those it
        // removes and keeps those in use, setting both slots to NULL.
        let ret = unsafe {
            bindings::bp_events_sync(
                core::ptr::null_mut(),
                0,
                events.as_mut_ptr(),
                events.len(),
                &mut busy,
            )
        };
        if ret != 0 {
            pr_warn!("events could not be removed from tracefs ({ret}): kept\n");
        }
    }
}

impl Drop for SetEvents {
    fn drop(&mut self) {
        let events = self.events.get_mut();
        if self.added && !*self.removed.get_mut() {
            // Never free what tracefs has: kept (a teardown always removes
            // them first; a set whose probes ftrace kept never frees them).
            core::mem::forget(kvec::take(events));
            return;
        }
        for &ev in events.iter() {
            // SAFETY: Not in tracefs (never added, or removed: the C side
            // set removed ones to NULL, which `bp_event_free` ignores).
            unsafe { bindings::bp_event_free(ev) };
        }
    }
}

/// At unload, once every set's teardown has run: removes the events that
/// were still enabled when their set retired (none is now: an enabled
/// event holds a reference on the module).
pub(crate) fn unload() {
    // SAFETY: A plain C call; it sleeps, and unload may.
    unsafe { bindings::bp_events_exit() };
}
