// SPDX-License-Identifier: GPL-2.0

//! `MOD:SYM` probes across their module's loads, as `kprobe_events` keeps
//! its own. A control line naming a function of a module that is not
//! loaded makes a probe that waits: its slot is kept, unregistered. When a
//! module comes (the module notifier's `MODULE_STATE_COMING`, after ftrace
//! made the module's call sites and before its init runs, where
//! `trace_kprobe_module_callback()` registers `kprobe_events`' probes),
//! every `MOD:SYM` probe on it is registered: a waiting one for the first
//! time, one gone with an earlier unload (the kernel's GONE kprobe)
//! unregistered and registered anew. A glob's members (`MOD:GLOB`), which
//! are probed at the addresses a walk found, stay gone.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

use kernel::alloc::AllocError;
use kernel::ffi::c_int;
use kernel::prelude::*;

use super::{check_registered, settle, slot_of, How, Int3Kind, Int3Set, Slot};
use crate::backend::{Coming, Refused, Target};
use crate::error::{self, BStr};
use crate::kallsyms::ModuleText;
use crate::kvec;
use crate::locked::Locked;
use crate::symname::split_module;

/// The module `MOD` of a symbol written `MOD:SYM`.
fn module_of(symbol: &[u8]) -> Option<&[u8]> {
    split_module(symbol)
        .map(|(m, _)| m)
        .filter(|m| !m.is_empty())
}

/// A `MOD:SYM` line's probe, which may wait for its module.
#[derive(Clone, Copy)]
pub(super) struct Wait {
    /// The notrace rule applies to it (see [`super::notrace`]).
    judge: bool,
}

impl Wait {
    /// For `t` if it is a control line's `MOD:SYM` (the kernel resolves
    /// its name; `judge`: the notrace rule applies to it).
    pub(super) fn of(t: &Target<'_>, judge: bool) -> Option<Self> {
        let by_name = t.addr == 0 && t.text.is_none() && t.explicit && t.line.is_some();
        (by_name && module_of(t.symbol).is_some()).then_some(Self { judge })
    }

    /// Whether a registration of the probe on `symbol` that failed with
    /// `e` leaves it waiting: the kernel found no such name (`ENOENT`) and
    /// no live module has the name `MOD`. A module on its way in counts as
    /// none: the notifier's call for it is still to come (unless its call
    /// came and the module lacks the symbol: the probe then waits for its
    /// next load, where `kprobe_events` refuses it).
    pub(super) fn waits(self, e: Error, symbol: &[u8]) -> bool {
        e == ENOENT
            && module_of(symbol)
                .is_some_and(|m| matches!(ModuleText::find(m), Err(x) if x == ENOENT))
    }
}

/// One `MOD:SYM` probe: its slot's C probe, and how it is registered.
struct Entry<B: Int3Kind> {
    raw: *mut B::Raw,
    how: How,
    judge: bool,
    /// The kernel did not let go of it when it was unregistered, gone (see
    /// [`Int3Kind::let_go`]): never registered or unregistered again, and
    /// the set's memory is kept for good.
    kept: AtomicBool,
}

impl<B: Int3Kind> Entry<B> {
    /// Whether its probe is registered now (it neither waits nor was kept).
    fn is_registered(&self) -> bool {
        // SAFETY: The type invariant of [`Modular`]: the raw field of a
        // live slot.
        let slot = unsafe { slot_of::<B>(self.raw) };
        !slot.waiting.load(Ordering::Acquire) && !self.kept.load(Ordering::Acquire)
    }
}

/// The `MOD:SYM` probes of an [`Int3Set`].
///
/// # Invariants
///
/// Each entry's `raw` is the C probe of a slot of the same set, registered
/// unless the slot waits or the entry was kept; `batch` has room for every
/// entry, and what it holds is meaningful only inside the call that filled
/// it.
pub(super) struct Modular<B: Int3Kind> {
    entries: KVVec<Entry<B>>,
    /// Room for one batch of unregistering. Used under the registry lock
    /// while the set is live ([`Int3Set::register_coming`]), or by its
    /// retire, once, when it is not any more: never both at once (their
    /// `# Safety` sections).
    batch: UnsafeCell<KVVec<*mut B::Raw>>,
}

impl<B: Int3Kind> Modular<B> {
    /// None yet.
    pub(super) fn new() -> Self {
        Self {
            entries: KVVec::new(),
            batch: UnsafeCell::new(KVVec::new()),
        }
    }

    /// Room for one more entry, so that [`Modular::keep`] cannot fail.
    pub(super) fn reserve(&mut self) -> Result<(), AllocError> {
        self.entries.reserve(1, GFP_KERNEL)?;
        let n = self.entries.len() + 1;
        self.batch.get_mut().reserve(n, GFP_KERNEL)
    }

    /// Keeps the probe `raw` (registered, or its slot says it waits),
    /// after a [`Modular::reserve`].
    pub(super) fn keep(&mut self, raw: *mut B::Raw, how: How, w: Wait) {
        let e = Entry {
            raw,
            how,
            judge: w.judge,
            kept: AtomicBool::new(false),
        };
        // INVARIANT: room was reserved (no allocation); `batch` has room
        // for every entry.
        let _ = self.entries.push(e, GFP_ATOMIC);
    }

    /// How many (registered or waiting).
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Those registered now.
    pub(super) fn registered(&self) -> impl Iterator<Item = *mut B::Raw> + '_ {
        self.entries
            .iter()
            .filter(|e| e.is_registered())
            .map(|e| e.raw)
    }

    /// Whether any is on a function of `module`.
    pub(super) fn has_module(&self, module: &[u8]) -> bool {
        self.entries.iter().any(|e| {
            // SAFETY: The type invariant: the raw field of a live slot.
            module_of(unsafe { slot_of::<B>(e.raw) }.symbol()) == Some(module)
        })
    }

    /// Unregisters the probes in `batch` in one call (one grace period),
    /// or one call each (`one_by_one`).
    ///
    /// # Safety
    ///
    /// `batch` holds registered probes of the set only, and the caller has
    /// it to itself (see the field).
    unsafe fn unregister_batch(batch: &mut KVVec<*mut B::Raw>, one_by_one: bool) {
        if one_by_one {
            for &raw in batch.iter() {
                // SAFETY: Registered (caller).
                unsafe { B::unregister_one(raw) };
            }
        } else if !batch.is_empty() {
            let n = c_int::try_from(batch.len()).unwrap_or(c_int::MAX);
            // SAFETY: Registered probes (caller); the kernel only reads
            // the array.
            unsafe { B::unregister_many(batch.as_mut_ptr(), n) };
        }
    }

    /// Unregisters every registered entry in one batch (or one by one),
    /// for the set's retire (see [`Int3Set::retire`]), and returns those
    /// unregistered, for [`Int3Set::all_let_go`] to check, and whether
    /// none was kept earlier (else the set's memory is kept for good).
    ///
    /// # Safety
    ///
    /// Called once, by the retire, when the set is not live any more.
    pub(super) unsafe fn retire(&self, one_by_one: bool) -> (&[*mut B::Raw], bool) {
        // SAFETY: The retire has `batch` to itself (caller, and the
        // field's rule).
        let batch = unsafe { &mut *self.batch.get() };
        kvec::clear(batch);
        for raw in self.registered() {
            // INVARIANT: room for every entry (no allocation).
            let _ = batch.push(raw, GFP_ATOMIC);
        }
        // SAFETY: Registered probes of the set, `batch` held (above).
        unsafe { Self::unregister_batch(batch, one_by_one) };
        let none_kept = !self.entries.iter().any(|e| e.kept.load(Ordering::Acquire));
        (batch, none_kept)
    }
}

impl<B: Int3Kind> Int3Set<B> {
    /// Unregisters, in one batch (one grace period), the `MOD:SYM` probes
    /// `mine` picks that the kernel marked gone (their module was
    /// unloaded), so that they wait again; one the kernel does not let go
    /// of is kept for good instead. `set`: the set's name, for the log.
    ///
    /// # Safety
    ///
    /// As [`Int3Set::register_coming`].
    unsafe fn release_gone(&self, set: &[u8], mine: impl Fn(&&Entry<B>) -> bool) {
        // SAFETY: A live set, under the registry lock (caller): this has
        // `batch` to itself (the field's rule).
        let batch = unsafe { &mut *self.modular.batch.get() };
        kvec::clear(batch);
        for e in self.modular.entries.iter().filter(&mine) {
            // SAFETY: A live slot's probe.
            if e.is_registered() && unsafe { B::gone(e.raw) } {
                // INVARIANT: room for every entry (no allocation).
                let _ = batch.push(e.raw, GFP_ATOMIC);
            }
        }
        // SAFETY: Registered (gone) probes of the set, `batch` held.
        unsafe { Modular::<B>::unregister_batch(batch, false) };
        kvec::clear(batch);
        for e in self.modular.entries.iter().filter(&mine) {
            // SAFETY: As above.
            let slot = unsafe { slot_of::<B>(e.raw) };
            // Those just unregistered: registered before, not waiting yet.
            // SAFETY: A live slot's probe.
            if !e.is_registered() || !unsafe { B::gone(e.raw) } {
                continue;
            }
            // A gone probe is disarmed already (`kprobe_disabled()` counts
            // GONE), so the kernel lets go of it; should it not (see
            // [`Int3Kind::let_go`]), it is kept, never reused or freed.
            // SAFETY: Live, just handed to the unregister.
            if unsafe { B::let_go(e.raw) } {
                // INVARIANT: unregistered, and said so.
                slot.waiting.store(true, Ordering::Release);
            } else {
                pr_err!(
                    "set {}: {} {}: the kernel did not unregister it; its memory is kept for good\n",
                    BStr(set).as_str(),
                    B::NAME,
                    BStr(slot.symbol()).as_str()
                );
                e.kept.store(true, Ordering::Release);
            }
        }
    }

    /// `c.module` is coming: registers this set's `MOD:SYM` probes on it,
    /// those that wait and those gone with its last unload (unregistered
    /// first, in one batch), and arms them if the set is enabled. A probe
    /// the kernel refuses now stays waiting, and the kernel log says why,
    /// as `kprobe_events` logs "Failed to re-register probe".
    ///
    /// # Safety
    ///
    /// The set is live and the caller holds the registry lock
    /// (`c.locked`) for the whole call: no retire, enable, disable or
    /// disarm of the set runs meanwhile, and nothing else uses `batch`.
    pub(super) unsafe fn register_coming(&self, c: &Coming<'_>) {
        let Coming {
            locked,
            set,
            module,
            enabled,
        } = *c;
        let mine = |e: &&Entry<B>| {
            // SAFETY: The type invariant: the raw field of a live slot.
            module_of(unsafe { slot_of::<B>(e.raw) }.symbol()) == Some(module)
        };
        // SAFETY: As the caller guarantees.
        unsafe { self.release_gone(set, mine) };
        for (i, e) in self.modular.entries.iter().filter(mine).enumerate() {
            if i % 256 == 255 {
                crate::sched::cond_resched();
            }
            // SAFETY: As above.
            let slot = unsafe { slot_of::<B>(e.raw) };
            if !slot.waiting.load(Ordering::Acquire) || e.kept.load(Ordering::Acquire) {
                continue;
            }
            // SAFETY: The slot waits: its probe is not registered; the
            // registry lock is held on this live set (caller).
            if let Err(r) = unsafe { register_again(locked, slot, e) } {
                pr_warn!(
                    "set {}: {} {}: not registered on {}'s load, left waiting: {} ({})\n",
                    BStr(set).as_str(),
                    B::NAME,
                    BStr(slot.symbol()).as_str(),
                    BStr(module).as_str(),
                    r.what,
                    r.error.to_errno()
                );
                continue;
            }
            if !enabled {
                continue;
            }
            // SAFETY: Just registered.
            if let Err(err) = unsafe { B::enable(e.raw) } {
                pr_warn!(
                    "set {}: {} {}: registered on {}'s load, but not armed: {}\n",
                    BStr(set).as_str(),
                    B::NAME,
                    BStr(slot.symbol()).as_str(),
                    BStr(module).as_str(),
                    err.to_errno()
                );
            }
        }
    }
}

/// Registers the probe of `slot` (`e`) again, set up afresh, and checks
/// it as its line's was checked at create (the offset, the notrace rule);
/// disarmed. Its slot no longer waits once it is registered. Its miss
/// counts start again from 0, as the kernel's own probe's do when
/// `kprobe_events` registers it again.
///
/// # Safety
///
/// `slot`'s probe is not registered (the slot waits), `e` is its entry,
/// and the caller holds the registry lock on the slot's live set.
unsafe fn register_again<B: Int3Kind>(
    locked: Locked<'_>,
    slot: &Slot<B>,
    e: &Entry<B>,
) -> Result<(), Refused> {
    let raw = e.raw;
    let symbol = slot.meta.symbol_ptr();
    let mut fresh = B::Raw::default();
    B::init(&mut fresh, symbol, e.how);
    // SAFETY: Not registered (caller): the kernel holds no pointer into
    // it. Listings may read its miss counters and flags meanwhile (volatile
    // reads, under RCU, without the registry lock): such a read may see a
    // torn value, which only a listing shows (the kernel's own updates of
    // those counters race with the same reads).
    unsafe { raw.write(fresh) };
    // SAFETY: Set up by `init`, not registered, and pinned in its chunk,
    // which the set frees a grace period after unregistering it.
    if let Err(err) = unsafe { B::register(raw) } {
        return Err(Refused {
            error: err,
            what: error::refusal(B::SITE, err),
        });
    }
    let judged = e.judge.then_some((slot.symbol(), true));
    // SAFETY: `settle` calls it on the probe just registered.
    let verify = |raw| unsafe { check_registered::<B>(locked, raw, slot.meta.offset(), judged) };
    // SAFETY: Just registered, disarmed, and only this acts on it (the
    // registry lock is held on a live set: no enable, disable, disarm or
    // retire runs).
    unsafe { settle::<B>(raw, e.how, verify) }?;
    // INVARIANT: registered.
    slot.waiting.store(false, Ordering::Release);
    Ok(())
}
