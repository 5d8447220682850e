// SPDX-License-Identifier: GPL-2.0

//! RCU: read-side guards, grace periods, and objects freed through `call_rcu`.
//!
//! The 6.12 kernel crate has no RCU abstraction; this one is shaped like the
//! later upstream `kernel::sync::rcu` (a `Guard` returned by [`read_lock`],
//! [`synchronize`]) so that it can be swapped for it, plus [`RcuBox`], an owned
//! allocation whose drop is deferred past a grace period with `call_rcu`.

use core::marker::PhantomData;
use core::pin::Pin;
use core::ptr::NonNull;

use kernel::prelude::*;
use kernel::types::Opaque;

use crate::bindings;

/// An RCU read-side critical section; it ends when the guard is dropped.
///
/// Not `Send`: `rcu_read_unlock` must run on the task that locked.
pub(crate) struct Guard(PhantomData<*mut ()>);

/// Enters an RCU read-side critical section.
pub(crate) fn read_lock() -> Guard {
    // SAFETY: `rcu_read_lock` may be called from any context; the guard's
    // drop calls the matching `rcu_read_unlock`.
    unsafe { bindings::bp_rcu_read_lock() };
    Guard(PhantomData)
}

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: A `Guard` only exists after `bp_rcu_read_lock`, and is not
        // `Send`, so this unlocks on the task that locked.
        unsafe { bindings::bp_rcu_read_unlock() };
    }
}

/// A value whose lifetime lies inside an RCU read-side critical section.
///
/// # Safety
///
/// While a value of the implementing type lives, the current CPU is in a
/// read-side critical section that `call_rcu` callbacks wait for: between
/// `rcu_read_lock` and `rcu_read_unlock`, or with preemption or interrupts
/// disabled (RCU's flavors are consolidated since Linux 4.20, so a
/// preemption-disabled region delays `call_rcu` like `rcu_read_lock` does).
pub(crate) unsafe trait ReadSide {}

// SAFETY: A `Guard` lives between `rcu_read_lock` and `rcu_read_unlock`.
unsafe impl ReadSide for Guard {}

/// A read-side critical section that the caller's context already is:
/// preemption is disabled for as long as this lives.
pub(crate) struct PreemptDisabled(PhantomData<*mut ()>);

impl PreemptDisabled {
    /// Vouches that preemption stays disabled while the value lives.
    ///
    /// # Safety
    ///
    /// The caller runs with preemption (or interrupts) disabled, and keeps
    /// it so until the value is dropped.
    pub(crate) unsafe fn assume() -> Self {
        Self(PhantomData)
    }
}

// SAFETY: By `assume`'s contract preemption is disabled while it lives.
unsafe impl ReadSide for PreemptDisabled {}

/// Disables preemption with `preempt_disable_notrace()` (through a notrace
/// C helper) until dropped: a read-side critical section that calls
/// nothing ftrace can trace, for the direct handlers.
pub(crate) struct PreemptDisabledNotrace(PhantomData<*mut ()>);

impl PreemptDisabledNotrace {
    /// Disables preemption.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        // SAFETY: May be called from any context; re-enabled in `drop`.
        unsafe { bindings::bp_preempt_disable_notrace() };
        Self(PhantomData)
    }
}

impl Drop for PreemptDisabledNotrace {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: Matches the disable in `new`, on the same task (not `Send`).
        unsafe { bindings::bp_preempt_enable_notrace() };
    }
}

// SAFETY: Preemption is disabled while the value lives.
unsafe impl ReadSide for PreemptDisabledNotrace {}

/// Waits for a full RCU grace period. Sleeps. (Part of the wrapper's API,
/// as upstream's `kernel::sync::rcu`; batchprobe's own paths use `call_rcu`
/// and the kernel's batch calls, which synchronise inside.)
#[expect(dead_code)]
pub(crate) fn synchronize() {
    // SAFETY: Called from process context (every caller of this function may sleep).
    unsafe { bindings::synchronize_rcu() };
}

/// While this guard lives, RCU grace periods are expedited system-wide
/// (`rcu_expedite_gp`): a `synchronize_rcu` the kernel runs on our behalf
/// (inside `unregister_kprobes`, and in the kprobe instruction-slot garbage
/// collector, which runs one every few dozen freed optprobes) then costs an
/// IPI round instead of waiting for every CPU to pass a quiescent state.
pub(crate) struct Expedited(PhantomData<*mut ()>);

/// Expedites grace periods until the returned guard is dropped. Nests.
pub(crate) fn expedite() -> Expedited {
    // SAFETY: `rcu_expedite_gp` only increments a counter; the guard's drop
    // decrements it again.
    unsafe { bindings::rcu_expedite_gp() };
    Expedited(PhantomData)
}

impl Drop for Expedited {
    fn drop(&mut self) {
        // SAFETY: Matches the `rcu_expedite_gp` of `expedite`.
        unsafe { bindings::rcu_unexpedite_gp() };
    }
}

/// Waits until every callback queued with `call_rcu` so far has run. Sleeps.
pub(crate) fn barrier() {
    // SAFETY: Called from process context (module teardown).
    unsafe { bindings::rcu_barrier() };
}

#[repr(C)]
struct RcuCell<T> {
    // First field: the callback finds the cell from the head's address.
    head: Opaque<bindings::callback_head>,
    value: T,
}

/// An owned heap object that, instead of being freed on drop, is handed to
/// `call_rcu` and freed after a grace period, so that RCU readers that may
/// still hold a pointer into it stay safe.
///
/// `T` is dropped in RCU callback (softirq) context: its `Drop` must not sleep.
///
/// # Invariants
///
/// `self.0` points to a live `RcuCell<T>` allocated by `KBox` and owned by `self`.
pub(crate) struct RcuBox<T: Send + 'static>(NonNull<RcuCell<T>>);

// SAFETY: `RcuBox<T>` owns a `T`; sending it sends the `T`.
unsafe impl<T: Send + 'static> Send for RcuBox<T> {}
// SAFETY: `&RcuBox<T>` only hands out `&T`.
unsafe impl<T: Send + Sync + 'static> Sync for RcuBox<T> {}

impl<T: Send + 'static> RcuBox<T> {
    /// Allocates `value`.
    pub(crate) fn new(value: T, flags: kernel::alloc::Flags) -> Result<Self> {
        let cell = KBox::new(
            RcuCell {
                head: Opaque::uninit(),
                value,
            },
            flags,
        )?;
        // INVARIANT: The pointer comes from a `KBox` whose ownership we take.
        Ok(Self(NonNull::from(KBox::leak(cell))))
    }

    /// The value, for filling it in before anyone else can see it:
    /// pinned, as it stays where it is until a grace period after the box
    /// is dropped (RCU readers, and the kernel, may point into it).
    pub(crate) fn get_mut(&mut self) -> Pin<&mut T> {
        // SAFETY: By the type invariant the cell is live and owned by `self`,
        // and `&mut self` excludes every other access through `self`. The
        // value is never moved: no method of `RcuBox` or `RcuOption` moves
        // it out, and it is dropped in place by `reclaim`.
        unsafe { Pin::new_unchecked(&mut (*self.0.as_ptr()).value) }
    }

    /// The `call_rcu` callback: drops the cell whose head it is given.
    ///
    /// # Safety
    ///
    /// `head` is the `head` of an `RcuCell<T>` leaked from a `KBox` and
    /// handed to `call_rcu` once.
    unsafe extern "C" fn reclaim(head: *mut bindings::callback_head) {
        // SAFETY: `head` is the first field of a `repr(C)` `RcuCell<T>` that
        // `drop` handed to `call_rcu`, and the callback runs exactly once, so
        // this reclaims the `KBox` it was leaked from.
        drop(unsafe { KBox::from_raw(head.cast::<RcuCell<T>>()) });
    }
}

impl<T: Send + 'static> core::ops::Deref for RcuBox<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: By the type invariant the cell is live while `self` is.
        unsafe { &(*self.0.as_ptr()).value }
    }
}

impl<T: Send + 'static> Drop for RcuBox<T> {
    fn drop(&mut self) {
        // SAFETY: The cell is live (type invariant) and its head is not queued
        // yet: this is the only place that queues it, and drop runs once.
        // `reclaim` matches the layout of `RcuCell<T>`.
        unsafe { bindings::call_rcu((*self.0.as_ptr()).head.get(), Some(Self::reclaim)) };
    }
}

/// An [`RcuBox`] published to RCU readers, which can be unpublished (taken)
/// once; readers that loaded it before keep a valid reference until their
/// read-side critical section ends, because the box is freed with `call_rcu`.
///
/// # Invariants
///
/// `self.0` is null or the value pointer of an `RcuBox<T>` owned by `self`.
pub(crate) struct RcuOption<T: Send + 'static>(core::sync::atomic::AtomicPtr<T>);

impl<T: Send + 'static> RcuOption<T> {
    /// Nothing published (usable in a `static`).
    pub(crate) const fn empty() -> Self {
        // INVARIANT: Null.
        Self(core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()))
    }

    /// Publishes `b` in place of the current value, which is returned (drop
    /// it to free it after a grace period). Updaters must be serialised.
    pub(crate) fn replace(&self, b: RcuBox<T>) -> Option<RcuBox<T>> {
        let cell = b.0;
        core::mem::forget(b);
        // SAFETY: The cell is live; its ownership moves to `self`.
        let p = unsafe { core::ptr::addr_of_mut!((*cell.as_ptr()).value) };
        // INVARIANT: `p` is the value pointer of the box we took over.
        let old = self.0.swap(p, core::sync::atomic::Ordering::AcqRel);
        Self::reclaim_ptr(old)
    }

    /// Publishes `b`.
    pub(crate) fn new(b: RcuBox<T>) -> Self {
        let cell = b.0;
        core::mem::forget(b);
        // SAFETY: The cell is live; its ownership moves to `self`.
        let p = unsafe { core::ptr::addr_of_mut!((*cell.as_ptr()).value) };
        // INVARIANT: `p` is the value pointer of the box we took over.
        Self(core::sync::atomic::AtomicPtr::new(p))
    }

    /// The published value, for as long as the read-side section `_guard` lasts.
    pub(crate) fn get<'a, G: ReadSide>(&'a self, _guard: &'a G) -> Option<&'a T> {
        let p = self.0.load(core::sync::atomic::Ordering::Acquire);
        // SAFETY: Non-null means published (type invariant); it is freed
        // only by `call_rcu` after being taken, so it stays valid while the
        // caller's RCU read-side critical section lasts.
        unsafe { p.as_ref() }
    }

    /// The published value, outside any read-side section.
    ///
    /// # Safety
    ///
    /// The caller must ensure `take` is not called while the reference lives.
    pub(crate) unsafe fn get_unguarded(&self) -> Option<&T> {
        let p = self.0.load(core::sync::atomic::Ordering::Acquire);
        // SAFETY: Published values stay valid until taken (type invariant),
        // which the caller excludes.
        unsafe { p.as_ref() }
    }

    /// Unpublishes the value; dropping the box frees it after a grace period.
    pub(crate) fn take(&self) -> Option<RcuBox<T>> {
        let p = self
            .0
            .swap(core::ptr::null_mut(), core::sync::atomic::Ordering::AcqRel);
        Self::reclaim_ptr(p)
    }

    /// The box behind a value pointer that was just unpublished.
    fn reclaim_ptr(p: *mut T) -> Option<RcuBox<T>> {
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` is the `value` field of an `RcuCell<T>` we own (type
        // invariant), now unpublished, so the cell is handed back exactly once.
        let cell = unsafe {
            NonNull::new_unchecked(
                p.cast::<u8>()
                    .sub(core::mem::offset_of!(RcuCell<T>, value))
                    .cast::<RcuCell<T>>(),
            )
        };
        // INVARIANT: ownership of the cell moves to the new box.
        Some(RcuBox(cell))
    }
}

impl<T: Send + 'static> Drop for RcuOption<T> {
    fn drop(&mut self) {
        drop(self.take());
    }
}

// SAFETY: `RcuOption<T>` owns a `T` (like `RcuBox<T>`).
unsafe impl<T: Send + Sync + 'static> Sync for RcuOption<T> {}
