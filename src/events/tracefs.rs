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
//! `r_SYM_0` ([`super::name`]); probes of one name share its event, as
//! `kprobe_events` appends a probe to an event of its name. A name tracefs
//! has already (anyone's event `SET/EVENT`), or one an entry and a return
//! probe would share, fails the `create`, which changes nothing.
//!
//! Counting is untouched: a probe counts whether or not its event is on;
//! turning an event on or off waits for no grace period. The events leave
//! tracefs when the set's teardown has unregistered its probes; one still
//! in use then (enabled, open by perf) stays, without records and holding
//! the module, until it is off: its removal is queued then (`flush` waits
//! for it).

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};

use kernel::prelude::*;
use kernel::sync::Arc;

use super::format::Head;
use super::name::{
    auto_event_name, fprobe_event_name, EventName, ProbeEventName, MAX_EVENT_NAME_LEN,
};
use super::program::{self, FetchProgram};
use crate::bindings;
use crate::command::{Events, ProbeKind};
use crate::error::{BStr, Failed};
use crate::kvec;
use crate::sched::Pacer;
use crate::sort;

/// What a probe saw when it fired, for its record; `regs`: its registers
/// (for perf's samples), or null where the backend has none; `fetch_regs`:
/// the registers its fetch arguments read (an fprobe's partial ones on
/// fgraph), or null.
pub(crate) enum Fired {
    /// An entry probe at `ip` (`__probe_ip`).
    Entry {
        ip: usize,
        regs: *mut bindings::pt_regs,
        fetch_regs: *mut bindings::pt_regs,
    },
    /// A return from the function at `func` to `ret_ip`; `edata`: what
    /// the probe kept at entry for its arguments ([`EventSlot::keep_entry`]),
    /// or null.
    Return {
        func: usize,
        ret_ip: usize,
        regs: *mut bindings::pt_regs,
        fetch_regs: *mut bindings::pt_regs,
        edata: *const u8,
    },
    /// A return as [`Fired::Return`], from a direct exit set's function,
    /// which took `duration` ns; no registers for perf (the caller's are
    /// taken); `edata`: the entry's saved argument registers, or null.
    Exit {
        func: usize,
        ret_ip: usize,
        duration: u64,
        fetch_regs: *mut bindings::pt_regs,
        edata: *const u8,
    },
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
    /// Its records' head: an entry's, a return probe's, a direct exit
    /// set's return (with the duration).
    head: Head,
    /// A `d:` probe: an unnamed one's event is named as an fprobe
    /// event's (`SYM__entry`, `SYM__exit`).
    fentry: bool,
    /// The line named the probe (else its event gets `p_SYM_OFF`).
    named: bool,
    /// The probe gets an event unless its set is made with `--no-events`:
    /// it was named on a line of its own, or its line has arguments.
    wanted: bool,
    /// The line's fetch arguments, which fill its records after the
    /// probe's own fields (`None`: none). Kept while the probe is:
    /// `rust/events.c` runs them from its handlers.
    args: Option<Arc<FetchProgram>>,
}

/// Whether anyone takes `ev`'s records (a tracefs instance has it enabled,
/// or perf has it open): read first by every hit, without a call.
///
/// # Safety
///
/// `ev` is a live event.
#[inline(always)]
unsafe fn used(ev: *mut bindings::bp_event) -> bool {
    // SAFETY: `struct bp_event_head` is `struct bp_event`'s first member
    // (`rust/helpers.h`), live as `ev` is; its counter is an `atomic_t`,
    // which C changes only atomically.
    let users = unsafe {
        AtomicI32::from_ptr(core::ptr::addr_of_mut!(
            (*ev.cast::<bindings::bp_event_head>()).users.counter
        ))
    };
    users.load(Ordering::Relaxed) != 0
}

/// The bytes of strings `args` take for this hit, read once before the
/// record is reserved (`__get_data_size`); 0 without arguments.
///
/// # Safety
///
/// As [`FetchProgram::data_size`].
#[inline(always)]
unsafe fn data_size(
    args: Option<&FetchProgram>,
    regs: *mut bindings::pt_regs,
    edata: *const core::ffi::c_void,
) -> usize {
    match args {
        // SAFETY: By the caller.
        Some(a) => unsafe { a.data_size(regs, edata) },
        None => 0,
    }
}

/// Writes one record of `ev`, as `fired` says, its arguments filled by
/// `args` (none: `None`).
///
/// # Safety
///
/// `ev` is an event in tracefs; `fired`'s registers are the handler's own
/// (or null), its `edata` null or what the probe kept at entry; the
/// caller is a probe handler (preemption disabled).
#[inline(always)]
unsafe fn write(ev: *mut bindings::bp_event, args: Option<&FetchProgram>, fired: Fired) {
    let fetch = args.map_or(core::ptr::null(), |a| {
        core::ptr::from_ref::<FetchProgram>(a).cast::<core::ffi::c_void>()
    });
    // Each call below: `ev`, the registers and the entry data are as the
    // function's contract says; the record writers are notrace and take no
    // lock; `fetch` is null or the probe's programs, which it keeps.
    match fired {
        Fired::Entry {
            ip,
            regs,
            fetch_regs,
        } => {
            // SAFETY: See above.
            let dsize = unsafe { data_size(args, fetch_regs, core::ptr::null()) };
            // SAFETY: See above.
            unsafe { bindings::bp_event_entry(ev, ip, regs, fetch, fetch_regs, dsize) }
        }
        Fired::Return {
            func,
            ret_ip,
            regs,
            fetch_regs,
            edata,
        } => {
            // SAFETY: See above.
            let dsize = unsafe { data_size(args, fetch_regs, edata.cast()) };
            let (data, f) = (edata.cast(), fetch);
            // SAFETY: See above.
            unsafe { bindings::bp_event_return(ev, func, ret_ip, regs, f, fetch_regs, data, dsize) }
        }
        Fired::Exit {
            func,
            ret_ip,
            duration,
            fetch_regs,
            edata,
        } => {
            // SAFETY: See above; `edata` is null or the saved argument
            // registers.
            let dsize = unsafe { data_size(args, fetch_regs, edata.cast()) };
            let (data, f) = (edata.cast(), fetch);
            // SAFETY: See above.
            unsafe {
                bindings::bp_event_exit(ev, func, ret_ip, duration, f, fetch_regs, data, dsize)
            }
        }
    }
}

impl EventSlot {
    /// Whether the probe's records carry fetch arguments (its handler
    /// then gathers the registers they read).
    pub(crate) fn has_args(&self) -> bool {
        self.args.is_some()
    }

    /// No event yet, for a probe of `kind` in a set made with `--exit` or
    /// not (`exit`: a `d:` probe's records are then return records), that
    /// its line named (`named`), and that was named on a line of its own
    /// (`explicit`: not a glob's member).
    pub(crate) fn new(
        (kind, exit): (ProbeKind, bool),
        named: bool,
        explicit: bool,
        args: Option<Arc<FetchProgram>>,
    ) -> Self {
        Self {
            ev: AtomicPtr::new(core::ptr::null_mut()),
            head: program::head(kind, exit),
            fentry: kind == ProbeKind::Direct,
            named,
            wanted: explicit || args.is_some(),
            args,
        }
    }

    /// Whether the probe gets an event in a set created with `which`:
    /// with neither `--events` nor `--no-events` ([`Events::Lines`]), if
    /// it was named on a line of its own (as every `kprobe_events` line
    /// names one), or its line has fetch arguments (which only records
    /// show).
    pub(crate) fn made_for(&self, which: Events) -> bool {
        match which {
            Events::All => true,
            Events::Lines => self.wanted,
            Events::Off => false,
        }
    }

    /// Whether anyone takes the probe's records now (its event is in
    /// tracefs, enabled in an instance or open by perf): a handler that
    /// must gather much for a record asks first. [`EventSlot::fire`]
    /// asks again.
    #[inline(always)]
    pub(crate) fn taken(&self) -> bool {
        let ev = self.ev.load(Ordering::Acquire);
        // SAFETY: By the type invariant `ev` is null or an event in tracefs.
        !ev.is_null() && unsafe { used(ev) }
    }

    /// Its records' head.
    pub(crate) fn head(&self) -> Head {
        self.head
    }

    /// Writes the probe's record, as `fired` describes it, into every
    /// instance that has its event enabled. Called from probe handlers,
    /// with preemption disabled: no locks, no allocation.
    #[inline(always)]
    pub(crate) fn fire(&self, fired: impl FnOnce() -> Fired) {
        let ev = self.ev.load(Ordering::Acquire);
        // Nobody takes its records: no registers gathered, no record made.
        // SAFETY: By the type invariant `ev` is null or an event in tracefs.
        if ev.is_null() || !unsafe { used(ev) } {
            return;
        }
        // This probe's own programs: probes that share an event may read
        // different things into its fields.
        let args = self.args.as_deref();
        // Everything below is inlined into the handler: one C call per
        // record (see `rust/events.c`).
        // SAFETY: By the type invariant `ev` is an event in tracefs; the
        // backends' `Fired` carry their handler's own registers and entry
        // data; handlers run with preemption disabled.
        unsafe { write(ev, args, fired()) }
    }

    /// Keeps, at a return probe's entry, what its arguments read then
    /// (`regs`: the entry's registers) in `data`, as many bytes as the
    /// line's [`FetchProgram::entry_data_size`]. Called from the entry
    /// handler: no locks, no allocation.
    ///
    /// # Safety
    ///
    /// `regs` is the handler's live registers, `data` writable for the
    /// line's [`FetchProgram::entry_data_size`] bytes.
    #[inline(always)]
    pub(crate) unsafe fn keep_entry(&self, regs: *mut bindings::pt_regs, data: *mut u8) {
        if let Some(a) = &self.args {
            // SAFETY: By the caller.
            unsafe { a.keep_entry(regs, data) };
        }
    }

    /// The event name of a probe on `symbol` at `offset`, named `name`.
    fn event_name<'a>(&self, name: &'a [u8], symbol: &[u8], offset: u32) -> ProbeEventName<'a> {
        if self.named {
            return ProbeEventName::Given(name);
        }
        let symbol = core::str::from_utf8(symbol).unwrap_or("");
        ProbeEventName::Auto(if self.fentry {
            fprobe_event_name(self.head == Head::Exit, symbol)
        } else {
            auto_event_name(self.head == Head::Return, symbol, offset)
        })
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

/// A probe as [`SetEvents::add`] makes its event: the event's name, its
/// records' head, its fetch arguments.
type Probe = (EventName, Head, Option<Arc<FetchProgram>>);

/// A new event `system/name` (both NUL-terminated), not in tracefs yet,
/// whose records have `head` and are filled by `args` (null: out of
/// memory).
fn new_event(
    system: &[u8],
    name: &[u8],
    head: Head,
    args: Option<&Arc<FetchProgram>>,
) -> Result<*mut bindings::bp_event, Failed> {
    let kind = match head {
        Head::Entry => bindings::bp_head_BP_HEAD_ENTRY,
        Head::Return => bindings::bp_head_BP_HEAD_RETURN,
        Head::Exit => bindings::bp_head_BP_HEAD_EXIT,
    };
    let new = |descs: &[bindings::bp_event_arg], print_fmt: Option<&[u8]>, fixed| {
        // SAFETY: The strings are NUL-terminated, `descs` holds valid
        // descriptors; the C side copies them all.
        unsafe {
            bindings::bp_event_new(
                system.as_ptr().cast(),
                name.as_ptr().cast(),
                kind,
                descs.as_ptr(),
                descs.len() as u32,
                print_fmt.map_or(core::ptr::null(), |p| p.as_ptr().cast()),
                fixed,
            )
        }
    };
    match args {
        None => Ok(new(&[], None, 0)),
        Some(a) => a
            .describe(head.bytes(), |descs, print_fmt| {
                new(descs, Some(print_fmt), a.fixed())
            })
            .map_err(|_| Failed::oom()),
    }
}

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

    /// Makes the events of the probes `each` walks (set `set`), all added
    /// to tracefs in one step, then points each probe at its own. Probes
    /// whose events would have one name share that event, as
    /// `kprobe_events` appends a probe to an event of its name (a glob
    /// meets two functions of one name; `p_SYM_0` then serves both), if
    /// they are all entry or all return probes. All or nothing: an error
    /// leaves tracefs as it was. `each` walks the same probes in the same
    /// order every time it is called.
    pub(crate) fn add(&mut self, set: &[u8], each: EachProbe<'_>) -> Result<(), Failed> {
        // An event of a retired set, in use then, may be free to go now
        // (and its name with it).
        // SAFETY: Plain C calls; an empty sync only removes such events.
        if unsafe { bindings::bp_events_orphans() } {
            use core::ptr::null_mut as null;
            // SAFETY: See above.
            unsafe { bindings::bp_events_sync(null(), 0, null(), 0, null(), null()) };
        }
        let probes = Self::names(set, each)?;
        let event_of = self.make_all(set, &probes)?;
        let events = self.events.get_mut();
        let (ptr, n) = (events.as_mut_ptr(), events.len());
        let mut taken = usize::MAX;
        // SAFETY: `ptr` holds `n` events from `bp_event_new`, none in
        // tracefs; the adds are all or nothing (on failure, one a user
        // enabled between two chunks stays in tracefs, owned by the C
        // side, its slot NULL; the others are not in tracefs). `taken` is
        // writable.
        let ret = unsafe {
            bindings::bp_events_sync(
                ptr,
                n,
                core::ptr::null_mut(),
                0,
                core::ptr::null_mut(),
                &mut taken,
            )
        };
        if ret != 0 {
            return Err(Self::not_added(set, ret, taken, &probes, &event_of));
        }
        // INVARIANT: every event is in tracefs now.
        self.added = true;
        let mut i = 0;
        each(&mut |p| {
            let ev = event_of.get(i).and_then(|&e| events.get(e as usize));
            if let Some(&ev) = ev {
                // INVARIANT: `ev` is in tracefs.
                p.slot.ev.store(ev, Ordering::Release);
            }
            i += 1;
        });
        Ok(())
    }

    /// Why the events of `set` could not be added (`ret`, the sync's
    /// error): `EEXIST` names the event at `taken` (its probes' name),
    /// which tracefs has already.
    fn not_added(set: &[u8], ret: i32, taken: usize, probes: &[Probe], event_of: &[u32]) -> Failed {
        let taken_name = || {
            (0u32..)
                .zip(event_of.iter())
                .find(|&(_, &e)| e as usize == taken)
                .and_then(|(i, _)| probes.get(i as usize))
                .map(|p| p.0.as_bytes())
        };
        match (ret == EEXIST.to_errno()).then(taken_name).flatten() {
            Some(name) => Failed::new(
                EEXIST,
                format_args!(
                    "event {}/{} exists in tracefs already (kprobe_events, another set, or a static event): name the probe, or the set, otherwise",
                    BStr(set),
                    BStr(name)
                ),
            ),
            None => Failed::new(
                Error::from_errno(ret),
                format_args!(
                    "set {}: its events could not be added to tracefs",
                    BStr(set)
                ),
            ),
        }
    }

    /// Every probe's event name, kind (a return probe) and arguments, in
    /// walk order; a line's name longer than tracefs takes is refused.
    fn names(set: &[u8], each: EachProbe<'_>) -> Result<KVVec<Probe>, Failed> {
        let mut probes = KVVec::new();
        let mut failed = None;
        each(&mut |p| {
            if failed.is_some() {
                return;
            }
            let name = p.slot.event_name(p.name, p.symbol, p.offset);
            if name.bytes().len() >= MAX_EVENT_NAME_LEN {
                failed = Some(Failed::new(
                    EINVAL,
                    format_args!(
                        "event {}/{}: an event name is at most {} bytes",
                        BStr(set),
                        BStr(name.bytes()),
                        MAX_EVENT_NAME_LEN - 1
                    ),
                ));
            } else if probes
                .push((name.owned(), p.slot.head, p.slot.args.clone()), GFP_KERNEL)
                .is_err()
            {
                failed = Some(Failed::oom());
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(probes),
        }
    }

    /// Makes one event per name (not in tracefs yet) and says, for each
    /// probe, which: its index in `events`.
    fn make_all(&mut self, set: &[u8], probes: &[Probe]) -> Result<KVVec<u32>, Failed> {
        let oom = |_| Failed::oom();
        let events = self.events.get_mut();
        let system = c_string(set)?;
        // At most one event a probe: `make` never grows `events`. Sorted:
        // (name, head, walk index, arguments), the names by reference.
        events.reserve(probes.len(), GFP_KERNEL).map_err(oom)?;
        let mut sorted = KVVec::with_capacity(probes.len(), GFP_KERNEL).map_err(oom)?;
        let mut event_of = KVVec::with_capacity(probes.len(), GFP_KERNEL).map_err(oom)?;
        for (i, (name, head, args)) in (0u32..).zip(probes.iter()) {
            sorted
                .push((name, *head, i, args.as_ref()), GFP_KERNEL)
                .map_err(oom)?;
            event_of.push(0u32, GFP_KERNEL).map_err(oom)?;
        }
        // By bytes: UTF-8's order is its characters', without checking
        // them again per comparison.
        sort::sort_by(&mut sorted, |a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut pace = Pacer::new(256);
        for run in sorted.chunk_by(|a, b| a.0.as_bytes() == b.0.as_bytes()) {
            let Some(&(name, head, _, args)) = run.first() else {
                continue;
            };
            if run.iter().any(|p| p.1 != head) {
                return Err(Failed::new(
                    EEXIST,
                    format_args!(
                        "event {}/{}: an entry and a return probe cannot share it (kprobe_events: different probe type)",
                        BStr(set),
                        name.as_str()
                    ),
                ));
            }
            let same = |a: Option<&Arc<FetchProgram>>| match (a, args) {
                (None, None) => true,
                (Some(a), Some(b)) => a.same_as(b),
                _ => false,
            };
            if !run.iter().all(|p| same(p.3)) {
                return Err(Failed::new(
                    EEXIST,
                    format_args!(
                        "event {}/{}: its probes' fetch arguments differ (kprobe_events: argument type or name is different)",
                        BStr(set),
                        name.as_str()
                    ),
                ));
            }
            Self::make(events, &system, name.as_bytes(), head, args)?;
            let e = events.len() as u32 - 1;
            for p in run {
                if let Some(slot) = event_of.get_mut(p.2 as usize) {
                    *slot = e;
                }
            }
            pace.step().map_err(|_| Failed::killed())?;
        }
        Ok(event_of)
    }

    /// Makes the event `set/name` (not in tracefs yet).
    fn make(
        events: &mut KVVec<*mut bindings::bp_event>,
        system: &[u8],
        name: &[u8],
        head: Head,
        args: Option<&Arc<FetchProgram>>,
    ) -> Result<(), Failed> {
        let cname = c_string(name)?;
        // A name tracefs has already is refused when the events are added
        // (`add`), under the lock the adds take.
        events.reserve(1, GFP_KERNEL).map_err(|_| Failed::oom())?;
        let ev = new_event(system, &cname, head, args)?;
        if ev.is_null() {
            return Err(Failed::oom());
        }
        // Cannot fail: room was reserved.
        let _ = events.push(ev, GFP_KERNEL);
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
                core::ptr::null_mut(),
            )
        };
        if ret != 0 {
            // The C side keeps them, for a later sync or the unload.
            pr_warn!("events could not be removed from tracefs ({ret}) yet\n");
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
/// were in use when their set retired, waiting while another event (an
/// eprobe) still refers to one, and saying so in the log: none outlives
/// the module.
pub(crate) fn unload() {
    // SAFETY: A plain C call; it sleeps, and unload may.
    unsafe { bindings::bp_events_exit() };
}

/// Removes such events that can go now (`flush`).
pub(crate) fn flush() {
    // SAFETY: A plain C call; it sleeps, and `flush` may.
    unsafe { bindings::bp_events_flush() };
}
