// SPDX-License-Identifier: GPL-2.0

//! What a set made through the in-kernel API keeps: its client module's
//! reference, the completion callback, and the per-target counts frozen at
//! teardown.

use core::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

use kernel::ffi::c_void;
use kernel::prelude::*;

use super::Probes;
use crate::bindings;

/// Client modules' owners that the module notifier may still have work
/// for ([`Owner::pending`]), counted per client module, hashed by the
/// module's address into [`BUCKETS`] counters: see [`may_own`]. Atomics, not
/// the registry lock, so that any module's unload can ask without waiting
/// for a control write.
const BUCKET_BITS: u32 = 8;
const BUCKETS: usize = 1 << BUCKET_BITS;
static PENDING: [AtomicUsize; BUCKETS] = [const { AtomicUsize::new(0) }; BUCKETS];
/// Never used: what [`bucket`] would give if the hash fell outside
/// [`PENDING`] (it cannot), rather than a panicking index.
static PENDING_SPARE: AtomicUsize = AtomicUsize::new(0);

/// The counter of the client module at address `module`.
fn bucket(module: usize) -> &'static AtomicUsize {
    // Fibonacci hashing: the high bits of the address times 2^64 / phi.
    let h = (module as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - BUCKET_BITS);
    PENDING.get(h as usize).unwrap_or(&PENDING_SPARE)
}

/// [`Owner::pending`]: the set holds its client module's reference (the
/// notifier retires the sets of a module that goes with one: `is`).
const HOLDS_MODULE: u8 = 1;
/// [`Owner::pending`]: the client holds its handle (the notifier puts the
/// handles of a module that goes without putting them: `take_handle`).
const HANDLE_OUT: u8 = 2;

/// Whether `module` may own a set the module notifier has work for: `false`
/// only if it certainly owns none (another module hashing alike gives a
/// `true` that the registry then answers). Needs no lock.
///
/// The caller has marked `module` as going (`MODULE_STATE_GOING`) before:
/// with the fence below, and the fully ordered increment in [`Owner::new`]
/// before its `try_module_get`, either this load sees that increment, or
/// that `try_module_get` sees the module going and fails, and no set is
/// made. A create whose `try_module_get` succeeded is counted here, and if
/// the notifier gets the registry lock before it does, the create sees the
/// module going under the lock and refuses ([`Owner::live`]).
pub(crate) fn may_own(module: *mut bindings::module) -> bool {
    if module.is_null() {
        return false;
    }
    fence(Ordering::SeqCst);
    bucket(module as usize).load(Ordering::SeqCst) != 0
}

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
    /// What the module notifier may still have to do for this owner
    /// ([`HOLDS_MODULE`], [`HANDLE_OUT`]); while any is set, the owner is
    /// counted in its module's [`bucket`]. Each is cleared once its work
    /// is done (the reference put, the handle taken), after the fact.
    pending: AtomicU8,
}

impl Owner {
    /// Takes a reference on `module` (null: built-in code, none taken) for
    /// a set of `targets` targets. `ENODEV` if the module is unloading.
    pub(crate) fn new(module: *mut bindings::module, targets: usize) -> Result<Self> {
        let mut frozen = KVVec::with_capacity(targets, GFP_KERNEL)?;
        for _ in 0..targets {
            frozen.push([AtomicU64::new(0), AtomicU64::new(0)], GFP_KERNEL)?;
        }
        let counted = !module.is_null();
        // Counted before the reference is taken: see `may_own`.
        if counted {
            bucket(module as usize).fetch_add(1, Ordering::SeqCst);
        }
        // SAFETY: `module` is null or the caller's own live module.
        if counted && !unsafe { bindings::bp_try_module_get(module) } {
            bucket(module as usize).fetch_sub(1, Ordering::SeqCst);
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
            pending: AtomicU8::new(if counted {
                HOLDS_MODULE | HANDLE_OUT
            } else {
                0
            }),
        })
    }

    /// Clears `bits` of [`Owner::pending`]; whoever clears the last one
    /// takes the owner out of its module's count.
    fn settle(&self, bits: u8) {
        let old = self.pending.fetch_and(!bits, Ordering::SeqCst);
        if old != 0 && old & !bits == 0 {
            bucket(self.origin).fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Whether the client module is not going away (built-in code never
    /// is). Asked under the registry lock before a set is registered: see
    /// [`may_own`].
    pub(crate) fn live(&self) -> bool {
        let module = self.module.load(Ordering::Acquire);
        // SAFETY: This owner holds a reference on a non-null `module`
        // (type invariant), so it is not freed.
        module.is_null() || unsafe { bindings::bp_module_is_live(module) }
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
        let took = self.handle.swap(false, Ordering::AcqRel);
        self.settle(HANDLE_OUT);
        took
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
        // `is` is false from now on: the notifier has nothing to retire.
        self.settle(HOLDS_MODULE);
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
        self.settle(HOLDS_MODULE);
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
        // A handle never given out (a create that failed) or already put:
        // nothing can take it any more.
        self.settle(HANDLE_OUT);
    }
}

// SAFETY: `module` is only passed to `module_put`; the callback is the
// client's, callable from any process context; the rest is atomic.
unsafe impl Send for Owner {}
// SAFETY: See `Send`.
unsafe impl Sync for Owner {}
