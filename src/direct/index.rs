// SPDX-License-Identifier: GPL-2.0

//! The direct handlers' way to their function: a global, sorted index of
//! `[start, end) → slot` over every attached direct function.
//!
//! Trampolines are shared by all sets, so a handler finds the function it
//! was called for here, published through RCU: attaching builds and
//! publishes a new index (the old one is freed with `call_rcu`); detaching
//! only clears its entries' slot pointers, so teardown never allocates.
//! Updates hold [`IndexGuard`], which only [`lock_index`] makes.

use core::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use kernel::prelude::*;

mod recursion;

use super::exit::tasks;
use super::{AttachError, DirectSlot};
use crate::bindings;
use crate::rcu::{self, RcuBox, RcuOption};
use crate::sort;
use recursion::RecursionGuard;

struct Entry {
    start: usize,
    end: usize,
    slot: AtomicPtr<DirectSlot>,
}

/// Every attached direct function, sorted by start address.
struct Index {
    entries: KVVec<Entry>,
}

/// The published index; replaced and its entries cleared under
/// [`IndexGuard`].
static INDEX: RcuOption<Index> = RcuOption::empty();

/// The direct lock (a C mutex), held: it serialises index updates (attach
/// and detach run under different locks: the registry's and the
/// workqueue's), and the exit trampoline's pin ([`super`]).
///
/// # Invariants
///
/// This task holds the mutex (`bp_direct_lock`) until the guard is dropped.
/// Only [`lock_index`] makes one (the field is private to this file).
pub(super) struct IndexGuard {
    /// Not `Send`: a mutex is released by the task that took it.
    _not_send: core::marker::PhantomData<*mut ()>,
}

/// Takes the direct lock (process context: it sleeps).
pub(super) fn lock_index() -> IndexGuard {
    // SAFETY: A plain mutex_lock on a static mutex, in process context.
    unsafe { bindings::bp_direct_lock() };
    // INVARIANT: Taken just now.
    IndexGuard {
        _not_send: core::marker::PhantomData,
    }
}

impl Drop for IndexGuard {
    fn drop(&mut self) {
        // SAFETY: Held by this task (type invariant).
        unsafe { bindings::bp_direct_unlock() };
    }
}

impl IndexGuard {
    /// The published index, while the lock is held.
    fn current(&self) -> Option<&Index> {
        // SAFETY: Only holders of the lock replace or take the index, and
        // the reference lives no longer than `self`.
        unsafe { INDEX.get_unguarded() }
    }

    /// Publishes a new index: the live entries of the current one and one
    /// entry per slot of `slots`. `mine` says which slot of `slots` (by
    /// position) a slot pointer is, if any. Fails with `EBUSY` and the
    /// slot's position if another set's function starts where one of
    /// `slots` does, and with `ENOMEM`; the current index stays then.
    pub(super) fn publish_with(
        &self,
        slots: &[DirectSlot],
        mine: impl Fn(*const DirectSlot) -> Option<usize>,
    ) -> Result<(), AttachError> {
        let old = self.current();
        let live = old.map_or(0, |o| o.entries.len());
        let mut entries = KVVec::with_capacity(live + slots.len(), GFP_KERNEL)?;
        if let Some(old) = old {
            for e in old.entries.iter() {
                let slot = e.slot.load(Ordering::Relaxed);
                if slot.is_null() {
                    continue;
                }
                let _ = entries.push(
                    Entry {
                        start: e.start,
                        end: e.end,
                        slot: AtomicPtr::new(slot),
                    },
                    GFP_KERNEL,
                );
            }
        }
        for s in slots.iter() {
            let slot = core::ptr::from_ref(s).cast_mut();
            let _ = entries.push(
                Entry {
                    start: s.start,
                    end: s.end,
                    slot: AtomicPtr::new(slot),
                },
                GFP_KERNEL,
            );
        }
        stamp_born(slots);
        // Ours first among equal starts, so that a conflict is found as
        // (ours, another set's) in one pass over the sorted entries:
        // O(n log n), not every old entry against every new function.
        let is_mine = |e: &Entry| mine(e.slot.load(Ordering::Relaxed)).is_some();
        sort::sort_by_key(entries.as_mut_slice(), |e| (e.start, !is_mine(e)));
        for w in entries.windows(2) {
            if let [a, b] = w {
                if a.start == b.start && !is_mine(b) {
                    if let Some(i) = mine(a.slot.load(Ordering::Relaxed)) {
                        return Err(AttachError {
                            error: EBUSY,
                            slot: Some(i),
                        });
                    }
                }
            }
        }
        let index = RcuBox::new(Index { entries }, GFP_KERNEL)?;
        drop(INDEX.replace(index));
        Ok(())
    }

    /// Clears the entries whose slot `pick` picks: one pass, O(1) per
    /// entry, no allocation.
    pub(super) fn clear_where(&self, pick: impl Fn(*const DirectSlot) -> bool) {
        if let Some(index) = self.current() {
            for (k, e) in index.entries.iter().enumerate() {
                if k % 4096 == 4095 {
                    crate::sched::cond_resched();
                }
                if pick(e.slot.load(Ordering::Relaxed)) {
                    e.slot.store(core::ptr::null_mut(), Ordering::Release);
                }
            }
        }
    }

    /// Unpublishes the index (on unload, every set detached); it is freed
    /// after a grace period.
    pub(super) fn drop_all(&self) {
        drop(INDEX.take());
    }
}

/// Notes when `slots` go into the index (once): a timed call entered
/// before was counted in another slot (`slot.rs`). Read under the index
/// lock, after any earlier slot of their functions left the index, and
/// before the index that has them is published.
fn stamp_born(slots: &[DirectSlot]) {
    // A full barrier: an earlier clear of these functions' older slots is
    // visible before the clock is read, whichever lock section it was in.
    core::sync::atomic::fence(Ordering::SeqCst);
    let born = super::slot::clock();
    for s in slots.iter() {
        let _ = s
            .born
            .compare_exchange(0, born, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// Which batchprobe direct set already traces `addr`, if any.
pub(crate) fn taken(addr: usize) -> bool {
    let guard = rcu::read_lock();
    INDEX.get(&guard).is_some_and(|index| {
        let from = index.entries.partition_point(|e| e.start < addr);
        index.entries.get(from..).is_some_and(|rest| {
            rest.iter()
                .take_while(|e| e.start == addr)
                .any(|e| !e.slot.load(Ordering::Relaxed).is_null())
        })
    })
}

/// Counts a call of the function whose fentry call returns to `ret_ip`.
///
/// Runs in the traced function's context, which can be any context at all
/// (NMI, the scheduler, RCU's own functions). It takes ftrace's recursion
/// lock first: from then on preemption is disabled (notrace), which is also
/// the read-side critical section for [`INDEX`]. It calls nothing traceable,
/// so that even a set on `__rcu_read_lock` or on the recursion helpers'
/// callees cannot recurse; should a callee ever be traced, the lock refuses
/// the nested call.
/// Returns the exit trampoline's token (see [`DirectSlot::hit`]): 0 when
/// the call was not counted.
#[inline(always)]
fn handle(ret_ip: usize, arg0: usize, record: bool, frame: *const usize, exit: bool) -> u64 {
    // The return address is just past the fentry call, inside the function.
    let ip = ret_ip.wrapping_sub(1);
    let Some(section) = RecursionGuard::try_lock(ip) else {
        MISSED.fetch_add(1, Ordering::Relaxed);
        // Charge the miss to its function too, in a notrace
        // preemption-disabled section (an RCU read side for the index).
        let section = rcu::PreemptDisabledNotrace::new();
        if let Some(slot) = slot_at(&section, ip) {
            if slot.meta.is_open() {
                slot.missed.fetch_add(1, Ordering::Relaxed);
            }
        }
        return 0;
    };
    count(&section, ip, arg0, record, frame, exit)
}

/// The slot of the attached function that contains `ip`, if any, alive as
/// long as `section`.
#[inline(always)]
fn slot_at<'a, G: rcu::ReadSide>(section: &'a G, ip: usize) -> Option<&'a DirectSlot> {
    let index = INDEX.get(section)?;
    let i = index.entries.partition_point(|e| e.start <= ip);
    let e = index.entries.get(i.checked_sub(1)?)?;
    if ip >= e.end {
        return None;
    }
    let slot = e.slot.load(Ordering::Acquire);
    // SAFETY: A non-null slot pointer in a published index is a live slot:
    // detach clears the pointer before the set frees its slots with
    // `call_rcu`, and `section` is an RCU read-side critical section.
    unsafe { slot.as_ref() }
}

/// Counts a call at `ip` in the slot of the function that contains it.
/// `section` keeps the index alive (an RCU read-side critical section).
/// `exit`: the exit trampoline's entry, whose token a timed slot makes
/// from the clock and whether the slot is still in the index after it.
#[inline(always)]
pub(super) fn count(
    section: &impl rcu::ReadSide,
    ip: usize,
    arg0: usize,
    record: bool,
    frame: *const usize,
    exit: bool,
) -> u64 {
    let Some(slot) = slot_at(section, ip) else {
        return 0;
    };
    // Looked up again in the index published now, not the one found
    // first: a detach clears its entries in the current index only.
    let indexed = || slot_at(section, ip).is_some_and(|now| core::ptr::eq(now, slot));
    slot.hit(arg0, record, frame, exit.then_some(indexed))
}

/// Direct calls not counted because ftrace's recursion lock was taken: the
/// handler was called from inside another tracer callback (or itself) in
/// the same context. As fprobe's `nmissed`.
static MISSED: AtomicU64 = AtomicU64::new(0);

/// Direct calls the recursion guard refused, since load.
pub(crate) fn missed() -> u64 {
    MISSED.load(Ordering::Relaxed)
}

/// The handler of `bp_direct_tramp_count` (called from `rust/trampolines.c`'s
/// asm with the trampoline's frame pointer, below which it saved the
/// argument registers).
#[no_mangle]
extern "C" fn bp_direct_handle_count(ret_ip: usize, arg0: usize, frame: *const usize) {
    let _ = handle(ret_ip, arg0, false, frame, false);
}

/// The handler of `bp_direct_tramp_record` (called from `rust/trampolines.c`'s asm).
#[no_mangle]
extern "C" fn bp_direct_handle_record(ret_ip: usize, arg0: usize, frame: *const usize) {
    let _ = handle(ret_ip, arg0, true, frame, false);
}

/// The entry handler of `bp_direct_tramp_exit` (`rust/trampolines.c`): counts
/// the task in (always, so that the pin and [`super::exit_quiesce`] wait for its
/// return even when the recursion guard refuses the call), then counts the
/// call as the record trampoline does. Returns the token the trampoline
/// keeps in its frame for [`bp_direct_handle_exit_return`].
#[no_mangle]
extern "C" fn bp_direct_handle_exit_entry(ret_ip: usize, arg0: usize, frame: *const usize) -> u64 {
    tasks::count_in();
    handle(ret_ip, arg0, true, frame, true)
}

/// The exit handler of `bp_direct_tramp_exit`, called when the body has
/// returned `retval`: counts the return in the function's slot if it is
/// the slot the call was counted in (`token`; the set may have gone while
/// the task was inside, and another set may hold the function now), then
/// counts the task out. `caller`: where the return address into the
/// traced function's caller is, on the task's stack; `saved`: the call's
/// argument registers (rdi ... r9) where the trampoline that keeps them
/// kept them, or null.
#[no_mangle]
extern "C" fn bp_direct_handle_exit_return(
    ret_ip: usize,
    retval: usize,
    token: u64,
    caller: *const usize,
    saved: *const usize,
) {
    let ip = ret_ip.wrapping_sub(1);
    if let Some(section) = RecursionGuard::try_lock(ip) {
        if let Some(slot) = slot_at(&section, ip) {
            slot.exit_hit(retval, token, (caller, saved));
        }
    } else {
        MISSED.fetch_add(1, Ordering::Relaxed);
    }
    tasks::count_out();
}
