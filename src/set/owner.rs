// SPDX-License-Identifier: GPL-2.0

//! What a set made through the in-kernel API keeps: its client module's
//! reference, the completion callback, and the per-target counts frozen at
//! teardown.

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

use kernel::ffi::c_void;
use kernel::prelude::*;

use super::Probes;
use crate::bindings;

/// What a set made through the in-kernel API ([`crate::api`]) keeps
/// beyond a control-file set.
///
/// # Invariants
///
/// `module` is null or a module on which this value holds one reference,
/// put (once: the pointer is swapped out) by [`Owner::complete`] at the end
/// of the set's teardown, or on drop.
pub(crate) struct Owner {
    module: AtomicPtr<bindings::module>,
    /// `batchprobe_unregister`'s callback and its argument.
    done: AtomicPtr<c_void>,
    done_arg: AtomicPtr<c_void>,
    /// Per-target hits and misses, frozen by the teardown.
    frozen: KVVec<[AtomicU64; 2]>,
    /// The client module's address, only ever compared (see
    /// [`Owner::made_by`]); null for built-in code.
    origin: usize,
    /// Whether the client still holds the handle `batchprobe_create` gave
    /// it (one reference on the set): cleared by `batchprobe_put`, or by
    /// [`Owner::take_handle`] when the client went away without putting it.
    handle: AtomicBool,
}

impl Owner {
    /// Takes a reference on `module` (null: built-in code, none taken) for
    /// a set of `targets` targets. `ENODEV` if the module is unloading.
    pub(crate) fn new(module: *mut bindings::module, targets: usize) -> Result<Self> {
        let mut frozen = KVVec::with_capacity(targets, GFP_KERNEL)?;
        for _ in 0..targets {
            frozen.push([AtomicU64::new(0), AtomicU64::new(0)], GFP_KERNEL)?;
        }
        // SAFETY: `module` is null or the caller's own live module.
        if !module.is_null() && !unsafe { bindings::bp_try_module_get(module) } {
            return Err(ENODEV);
        }
        // INVARIANT: the reference was just taken (or `module` is null).
        Ok(Self {
            module: AtomicPtr::new(module),
            done: AtomicPtr::new(core::ptr::null_mut()),
            done_arg: AtomicPtr::new(core::ptr::null_mut()),
            frozen,
            origin: module as usize,
            handle: AtomicBool::new(true),
        })
    }

    /// Whether the set was made by `module` (whether or not the teardown
    /// has put the module reference yet). Compares addresses only.
    pub(crate) fn made_by(&self, module: *mut bindings::module) -> bool {
        !module.is_null() && self.origin == module as usize
    }

    /// Takes over the client's handle reference: `true` once, for whoever
    /// takes it first (`batchprobe_put`, or the module notifier for a
    /// client that went away holding it); that caller drops the reference.
    pub(crate) fn take_handle(&self) -> bool {
        self.handle.swap(false, Ordering::AcqRel)
    }

    /// Remembers what to call when the teardown has completed.
    pub(crate) fn on_done(
        &self,
        done: Option<unsafe extern "C" fn(*mut c_void)>,
        arg: *mut c_void,
    ) {
        self.done_arg.store(arg, Ordering::Relaxed);
        let f = done.map_or(core::ptr::null_mut(), |f| f as *mut c_void);
        self.done.store(f, Ordering::Release);
    }

    /// Calls the completion callback, if any, then drops the module
    /// reference. Called once, at the end of the teardown.
    pub(super) fn complete(&self) {
        let f = self.done.swap(core::ptr::null_mut(), Ordering::AcqRel);
        if !f.is_null() {
            // SAFETY: `f` came from an `Option<unsafe extern "C" fn(*mut
            // c_void)>` in `on_done`; the client's module is pinned by the
            // reference put below, so its text is there.
            let f: unsafe extern "C" fn(*mut c_void) = unsafe { core::mem::transmute(f) };
            // SAFETY: The client's callback, with the argument it gave.
            unsafe { f(self.done_arg.load(Ordering::Relaxed)) };
        }
        self.release();
    }

    /// Keeps the module reference for good, and never calls back: ftrace
    /// refused to detach the set's direct calls, so its handler may still
    /// be called.
    pub(super) fn abandon(&self) {
        self.done.store(core::ptr::null_mut(), Ordering::Release);
        if !self
            .module
            .swap(core::ptr::null_mut(), Ordering::AcqRel)
            .is_null()
        {
            pr_warn!(
                "a client module stays pinned: its set's direct calls could not be detached\n"
            );
        }
    }

    /// Whether `module` is this set's client.
    pub(crate) fn is(&self, module: *mut bindings::module) -> bool {
        !module.is_null() && self.module.load(Ordering::Acquire) == module
    }

    /// Drops the module reference, if not dropped yet.
    fn release(&self) {
        let module = self.module.swap(core::ptr::null_mut(), Ordering::AcqRel);
        if !module.is_null() {
            // SAFETY: By the type invariant this puts the one reference
            // taken in `new`, once (the swap above).
            unsafe { bindings::bp_module_put(module) };
        }
    }

    /// Freezes the per-target counts of `p`.
    pub(super) fn freeze(&self, p: &Probes) {
        p.backends.each(&mut |v| {
            if let Some(c) = self.frozen.get(v.index as usize) {
                c[0].store(v.hits, Ordering::Relaxed);
                c[1].store(v.missed, Ordering::Relaxed);
            }
        });
    }

    /// The frozen counts, per target.
    pub(super) fn frozen(&self) -> &[[AtomicU64; 2]] {
        &self.frozen
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        self.release();
    }
}

// SAFETY: `module` is only passed to `module_put`; the callback is the
// client's, callable from any process context; the rest is atomic.
unsafe impl Send for Owner {}
// SAFETY: See `Send`.
unsafe impl Sync for Owner {}
