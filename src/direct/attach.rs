// SPDX-License-Identifier: GPL-2.0

//! Attaching and detaching a direct set: publishing its functions in the
//! index, registering them (one ops for all, or a benchmark baseline's
//! way), the bisection that finds the functions another tracer holds, and
//! the detach that undoes it all.

use core::sync::atomic::Ordering;

use kernel::error::to_result;
use kernel::prelude::*;

use super::exit::{exit_attached, exit_detached};
use super::{index, AttachError, DirectSet, DirectSlot, Strategy};
use crate::bindings;
use crate::command::DirectMode;
use crate::ftrace::{FtraceOps, Unwound};
use crate::kvec;

impl DirectSet {
    /// Publishes the functions in the index, then attaches them all: one
    /// filter update and one `register_ftrace_direct`. On failure nothing
    /// stays attached or indexed, and the error says why (and which
    /// function, as its index in the order of `push`, when it knows).
    ///
    /// If that fails with `EBUSY`, another tracer holds some of the
    /// functions: a foreign direct caller (a BPF trampoline, another
    /// module), or an IPMODIFY ftrace user (livepatch, a kprobe with a post
    /// handler). ftrace refuses such a batch before patching anything, so
    /// refusals are cheap: the functions are bisected into groups, each
    /// registered as an ops of its own, until every refused group is one
    /// function. Glob members so found are left out ([`DirectSet::refused`]);
    /// an explicit one fails the set, named. With k such functions among n
    /// that is O(k log n) registrations, one text-patching pass per group
    /// that attached, and at detach one `unregister_ftrace_direct` (two
    /// RCU-tasks grace periods) per group instead of one in all.
    pub(super) fn attach_all(&mut self) -> Result<(), AttachError> {
        if self.slots.is_empty() {
            return Ok(());
        }
        let mut ips = KVVec::with_capacity(self.slots.len(), GFP_KERNEL)?;
        for s in self.slots.iter() {
            ips.push(s.fentry, GFP_KERNEL)?;
        }
        index::lock_index().publish_with(&self.slots, |p| self.slot_index(p))?;
        // Pinned before the first registration: a task may enter a body
        // through the exit trampoline as soon as one ops is live, even one
        // that a failed attach takes down again.
        let exit = self.mode() == DirectMode::Exit;
        if exit {
            if let Err(e) = exit_attached() {
                self.unindex();
                return Err(e.into());
            }
        }
        if let Err(e) = self.register_all(ips) {
            self.unindex();
            // A stuck ops may still send calls through the exit trampoline:
            // it stays counted, as after a failed detach.
            if exit && !self.stuck.load(Ordering::Relaxed) {
                exit_detached();
            }
            return Err(e);
        }
        self.attached.store(true, Ordering::Release);
        Ok(())
    }

    /// [`DirectSet::attach_all`]'s registration of every function (their
    /// fentry sites in `ips`) as the strategy says, bisecting on `EBUSY`.
    /// On failure nothing stays registered.
    fn register_all(&mut self, mut ips: KVVec<kernel::ffi::c_ulong>) -> Result<(), AttachError> {
        let res = match self.strategy {
            Strategy::OneOps => match self.attach_one_ops(&mut ips) {
                Err(e) if e == EBUSY && self.slots.len() > 1 => {
                    drop(ips);
                    return self.attach_groups();
                }
                res => res,
            },
            Strategy::OpsPerFunction => self.attach_per_function(),
            Strategy::Fprobe => {
                let n = ips.len() as i32;
                // SAFETY: The fprobe is live and unregistered, and pinned:
                // it never moves; `ips` holds `n` addresses.
                to_result(unsafe {
                    bindings::register_fprobe_ips(self.fprobe.get(), ips.as_mut_ptr(), n)
                })
            }
        };
        // A single function: the error is about it.
        res.map_err(|error| AttachError {
            error,
            slot: (self.slots.len() == 1).then_some(0),
        })
    }

    /// [`DirectSet::attach_all`]'s bisection: attaches the functions in groups,
    /// each as an ops of its own, leaving out (glob) or failing on
    /// (explicit) the single functions another tracer holds.
    fn attach_groups(&mut self) -> Result<(), AttachError> {
        let n = self.slots.len();
        // Up to one per function: vmalloc-backed. Both are sized before
        // the first group registers, so that the loop's pushes never
        // allocate (and never fail with groups registered).
        let mut busy: KVVec<usize> = KVVec::with_capacity(n, GFP_KERNEL)?;
        // Ranges of `slots` still to try; the whole was refused already.
        // Depth first: a split pops one range and pushes its two halves,
        // so at most 2 + log2(n) ranges wait (a few hundred bytes).
        let depth = 2 + (usize::BITS - n.leading_zeros()) as usize;
        let mut todo: KVec<(usize, usize)> = KVec::with_capacity(depth, GFP_KERNEL)?;
        let mid = n / 2;
        todo.push((mid, n), GFP_KERNEL)?;
        todo.push((0, mid), GFP_KERNEL)?;
        let mut failed = self.bisect(&mut todo, &mut busy).err();
        let explicit = busy
            .iter()
            .copied()
            .find(|&i| self.slots.get(i).is_some_and(|s| s.explicit));
        if failed.is_none() && (explicit.is_some() || self.groups.is_empty()) {
            // An explicit function is taken, or every one is: refused, named.
            failed = Some(AttachError {
                error: EBUSY,
                slot: explicit.or(busy.first().copied()),
            });
        }
        if let Some(e) = failed {
            self.detach_groups();
            return Err(e);
        }
        for &i in busy.iter() {
            if let Some(s) = self.slots.get(i) {
                s.refused.store(true, Ordering::Relaxed);
            }
        }
        // Their entries must not count calls the other tracer's patching
        // sends elsewhere anyway: drop them from the index.
        self.unindex_where(|s| s.refused.load(Ordering::Relaxed));
        Ok(())
    }

    /// [`DirectSet::attach_groups`]' loop: registers each range in `todo`
    /// as a group, splits a refused one in two, and notes in `busy` each
    /// single function refused. Stops at the first error; the groups
    /// registered so far stay (the caller detaches them).
    fn bisect(
        &mut self,
        todo: &mut KVec<(usize, usize)>,
        busy: &mut KVVec<usize>,
    ) -> Result<(), AttachError> {
        while let Some((lo, hi)) = kvec::pop(todo) {
            crate::sched::cond_resched();
            // Within the capacities the caller reserved: these pushes do
            // not allocate (an error would only come from a bug).
            if !self.attach_group(lo, hi)? {
                if hi - lo == 1 {
                    busy.push(lo, GFP_KERNEL)?;
                } else {
                    let mid = lo + (hi - lo) / 2;
                    todo.push((mid, hi), GFP_KERNEL)?;
                    todo.push((lo, mid), GFP_KERNEL)?;
                }
            }
        }
        Ok(())
    }

    /// Registers `slots[lo..hi]` as one more ops: `Ok(false)` if another
    /// tracer holds one of them (`EBUSY`, nothing patched).
    fn attach_group(&mut self, lo: usize, hi: usize) -> Result<bool, Error> {
        let mut ips = KVVec::with_capacity(hi - lo, GFP_KERNEL)?;
        for s in self.slots.get(lo..hi).unwrap_or(&[]) {
            ips.push(s.fentry, GFP_KERNEL)?;
        }
        let ops = FtraceOps::new()?;
        self.groups.reserve(1, GFP_KERNEL)?;
        // SAFETY: A new ops, unregistered, kept in `groups` once
        // registered; the trampoline is valid.
        match unsafe { ops.register(&mut ips, self.trampoline(self.mode())) } {
            Err(e) if e == EBUSY => return Ok(false),
            res => res?,
        }
        // Reserved above: does not allocate, cannot fail.
        let _ = self.groups.push(ops, GFP_ATOMIC);
        Ok(true)
    }

    /// Unregisters every group ops (a failed bisection). If ftrace refuses
    /// one, every group stays and the set is marked stuck.
    fn detach_groups(&mut self) {
        // Each failure is logged.
        // SAFETY: Every group ops is registered.
        let res = unsafe {
            FtraceOps::unregister_each(self.groups.iter(), |e| {
                pr_warn!(
                    "detaching a group of direct calls failed: {}\n",
                    e.to_errno()
                );
            })
        };
        if res.is_ok() {
            kvec::clear(&mut self.groups);
        } else {
            // ftrace may still call the trampoline through a refused ops:
            // the groups stay, and so does the set ([`DirectSet::detach`]).
            self.stuck.store(true, Ordering::Relaxed);
        }
    }

    fn attach_one_ops(&self, ips: &mut KVVec<kernel::ffi::c_ulong>) -> Result {
        // SAFETY: `ops` is unregistered (not attached), and dropped only
        // with the set, once `detach` unregistered it (after a failed
        // detach the set is kept for good); the trampoline is valid.
        unsafe { self.ops.register(ips, self.trampoline(self.mode())) }
    }

    /// The baseline: one ops, one filter update and one patching pass per
    /// function. Undoes what it did on failure.
    fn attach_per_function(&self) -> Result {
        let ips = self.slots.iter().map(|s| s.fentry);
        // SAFETY: Live, unregistered ops (`attach` allocated them all
        // before the first registration), dropped only with the set, as
        // `ops` is.
        let res = unsafe {
            FtraceOps::register_each(&self.per_function, ips, self.trampoline(self.mode()))
        };
        res.map_err(|Unwound { error, released }| {
            if !released {
                // An ops ftrace would not let go of: the set stays.
                self.stuck.store(true, Ordering::Relaxed);
            }
            error
        })
    }

    /// The ops registered while the set is attached (type invariant): the
    /// per-function ones, the groups, or else `ops`.
    pub(super) fn registered(&self) -> impl Iterator<Item = &FtraceOps> + Clone {
        let per_function = match self.strategy {
            Strategy::OpsPerFunction => &self.per_function[..],
            _ => &[],
        };
        let one =
            (self.strategy == Strategy::OneOps && self.groups.is_empty()).then_some(&self.ops);
        Iterator::chain(
            Iterator::chain(per_function.iter(), self.groups.iter()),
            one,
        )
    }

    /// Detaches every function (one `unregister_ftrace_direct`, which waits
    /// until no task is inside the trampoline for them) and clears their
    /// index entries. Sleeps. Returns `false` if ftrace refused, now or in
    /// a failed attach's rollback (`stuck`): then the functions may still
    /// call the trampoline with this set's ops, so the caller must keep
    /// this set's memory and the module's text for good.
    pub(super) fn detach(&self) -> bool {
        let mut ok = !self.stuck.load(Ordering::Relaxed);
        if self.attached.swap(false, Ordering::AcqRel) {
            let res = match self.strategy {
                Strategy::Fprobe => {
                    // SAFETY: The fprobe is registered.
                    to_result(unsafe { bindings::unregister_fprobe(self.fprobe.get()) })
                }
                // SAFETY: Every ops `registered` yields is registered (type
                // invariant), each from the trampoline it is on.
                _ => unsafe { FtraceOps::unregister_all(self.registered()) },
            };
            if let Err(e) = res {
                pr_warn!(
                    "detaching {} direct calls failed (errno {}): their ops and the module stay\n",
                    self.slots.len(),
                    e.to_errno()
                );
                ok = false;
            } else {
                // Once for the mode, once for a half-failed switch to the
                // exit trampoline (each counted the set in).
                if self.mode() == DirectMode::Exit {
                    exit_detached();
                }
                if self.partly_exit.swap(false, Ordering::Relaxed) {
                    exit_detached();
                }
            }
        }
        self.unindex();
        ok
    }

    /// The index in `slots` of `slot`, if it is one of this set's: an
    /// address range check, O(1).
    fn slot_index(&self, slot: *const DirectSlot) -> Option<usize> {
        let base = self.slots.as_ptr() as usize;
        let size = core::mem::size_of::<DirectSlot>().max(1);
        let off = (slot as usize).checked_sub(base)?;
        (off % size == 0 && off / size < self.slots.len()).then_some(off / size)
    }

    /// Clears this set's entries in the index: one pass, O(1) per entry.
    fn unindex(&self) {
        self.unindex_where(|_| true);
    }

    /// Clears the index entries of this set's slots that `pick` picks.
    fn unindex_where(&self, pick: impl Fn(&DirectSlot) -> bool) {
        index::lock_index().clear_where(|p| {
            self.slot_index(p)
                .and_then(|i| self.slots.get(i))
                .is_some_and(&pick)
        });
    }
}
