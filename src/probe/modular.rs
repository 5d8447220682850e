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
use core::sync::atomic::Ordering;

use kernel::alloc::AllocError;
use kernel::ffi::c_int;
use kernel::prelude::*;

use super::{notrace, settle, slot_of, How, Int3Kind, Int3Set, Slot};
use crate::backend::{Refused, Target};
use crate::error::{self, BStr};
use crate::kallsyms::ModuleText;
use crate::kvec;
use crate::locked::Locked;

/// The module `MOD` of a symbol written `MOD:SYM`.
fn module_of(symbol: &[u8]) -> Option<&[u8]> {
    let colon = symbol.iter().position(|&c| c == b':')?;
    symbol.get(..colon).filter(|m| !m.is_empty())
}

/// A `MOD:SYM` line's probe, which may wait for its module.
#[derive(Clone, Copy)]
pub(super) struct Wait {
    /// The notrace rule applies to it (see [`notrace`]).
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
}

/// The `MOD:SYM` probes of an [`Int3Set`].
///
/// # Invariants
///
/// Each entry's `raw` is the C probe of a slot of the same set, registered
/// unless the slot waits; `batch` is empty but while one call below runs,
/// and has room for every entry.
pub(super) struct Modular<B: Int3Kind> {
    entries: KVVec<Entry<B>>,
    /// Room for one batch of unregistering. Used under the registry lock
    /// while the set is live ([`Int3Set::module_coming`]), or by its
    /// retire, once, when it is not any more: never both at once.
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
            .map(|e| e.raw)
            // SAFETY: The type invariant: the raw field of a live slot.
            .filter(|&raw| !unsafe { slot_of::<B>(raw) }.waiting.load(Ordering::Acquire))
    }

    /// Unregisters `raws` in one batch (one grace period), and returns how
    /// many of them the kernel let go of. The batch is left empty.
    ///
    /// # Safety
    ///
    /// `batch` holds registered probes of the set only, and the caller has
    /// it to itself (see the field).
    unsafe fn unregister_batch(batch: &mut KVVec<*mut B::Raw>) {
        if !batch.is_empty() {
            let n = c_int::try_from(batch.len()).unwrap_or(c_int::MAX);
            // SAFETY: Registered probes (caller); the kernel only reads
            // the array.
            unsafe { B::unregister_many(batch.as_mut_ptr(), n) };
        }
    }

    /// Unregisters every registered entry in one batch, for the set's
    /// retire (see [`Int3Set::retire`]), and returns those unregistered,
    /// for [`Int3Set::all_let_go`] to check.
    ///
    /// # Safety
    ///
    /// Called once, by the retire, when the set is not live any more.
    pub(super) unsafe fn retire(&self) -> &[*mut B::Raw] {
        // SAFETY: The retire has `batch` to itself (caller, and the
        // field's rule).
        let batch = unsafe { &mut *self.batch.get() };
        kvec::clear(batch);
        for raw in self.registered() {
            // INVARIANT: room for every entry (no allocation).
            let _ = batch.push(raw, GFP_ATOMIC);
        }
        // SAFETY: Registered probes of the set, `batch` held (above).
        unsafe { Self::unregister_batch(batch) };
        batch
    }
}

impl<B: Int3Kind> Int3Set<B> {
    /// `module` is coming: registers this set's `MOD:SYM` probes on it,
    /// those that wait and those gone with its last unload (unregistered
    /// first, in one batch), and arms them if the set is `enabled`. A
    /// probe the kernel refuses now stays waiting, and the kernel log says
    /// why, as `kprobe_events` logs "Failed to re-register probe". Returns
    /// how many it registered. `set`: the set's name, for the log.
    pub(super) fn register_coming(
        &self,
        locked: Locked<'_>,
        set: &[u8],
        module: &[u8],
        enabled: bool,
    ) -> usize {
        let mine = |e: &&Entry<B>| {
            // SAFETY: The type invariant: the raw field of a live slot.
            module_of(unsafe { slot_of::<B>(e.raw) }.symbol()) == Some(module)
        };
        // SAFETY: Called under the registry lock (`locked`) on a live set:
        // this has `batch` to itself (the field's rule).
        let batch = unsafe { &mut *self.modular.batch.get() };
        kvec::clear(batch);
        for e in self.modular.entries.iter().filter(mine) {
            // SAFETY: As above.
            let slot = unsafe { slot_of::<B>(e.raw) };
            // SAFETY: A live slot's probe.
            if !slot.waiting.load(Ordering::Acquire) && unsafe { B::gone(e.raw) } {
                // INVARIANT: room for every entry (no allocation).
                let _ = batch.push(e.raw, GFP_ATOMIC);
            }
        }
        // SAFETY: Registered (gone) probes of the set, `batch` held.
        unsafe { Modular::<B>::unregister_batch(batch) };
        for &raw in batch.iter() {
            // SAFETY: As above; just unregistered.
            let slot = unsafe { slot_of::<B>(raw) };
            // A gone probe is disarmed already: the kernel lets go of it.
            // SAFETY: Live, just handed to the unregister.
            if unsafe { B::let_go(raw) } {
                // INVARIANT: unregistered, and said so.
                slot.waiting.store(true, Ordering::Release);
            }
        }
        kvec::clear(batch);
        let mut registered = 0;
        for (i, e) in self.modular.entries.iter().filter(mine).enumerate() {
            if i % 256 == 255 {
                crate::sched::cond_resched();
            }
            // SAFETY: As above.
            let slot = unsafe { slot_of::<B>(e.raw) };
            if !slot.waiting.load(Ordering::Acquire) {
                continue;
            }
            // SAFETY: The slot waits: its probe is not registered.
            match unsafe { register_again(locked, slot, e) } {
                Ok(()) => registered += 1,
                Err(r) => {
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
        registered
    }
}

/// Registers the probe of `slot` (`e`) again, set up afresh, and checks
/// it as its line's was checked at create (the offset, the notrace rule);
/// disarmed. Its slot no longer waits once it is registered.
///
/// # Safety
///
/// `slot`'s probe is not registered (the slot waits), and `e` is its entry.
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
    // it. Listings read its miss counters meanwhile, with volatile reads,
    // as they read the kernel's own writes to it.
    unsafe { raw.write(fresh) };
    // SAFETY: Set up by `init`, not registered, and pinned in its chunk,
    // which the set frees a grace period after unregistering it.
    if let Err(err) = unsafe { B::register(raw) } {
        return Err(Refused {
            error: err,
            what: error::refusal(B::SITE, err),
        });
    }
    let verify = |raw| {
        B::verify(raw, slot.meta.offset)?;
        if e.judge {
            // SAFETY: `raw` was just registered.
            notrace::refusal_of(locked, (slot.symbol(), true), unsafe { B::addr(raw) })?;
        }
        Ok(())
    };
    // SAFETY: Just registered, disarmed, known to nothing else (the
    // registry lock is held: no enable or disable runs); `symbol` is the
    // slot's own.
    unsafe { settle::<B>(raw, symbol, e.how, verify) }?;
    // INVARIANT: registered.
    slot.waiting.store(false, Ordering::Release);
    Ok(())
}
