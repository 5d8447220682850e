// SPDX-License-Identifier: GPL-2.0

//! What the ftrace-based backends (the fprobe and direct sets) share:
//! whether ftrace can trace a function, and why a target is refused when it
//! cannot; and [`FtraceOps`], the `ftrace_ops` of direct calls, with every
//! register, modify and unregister loop over them.

use core::pin::Pin;

use kernel::alloc::AllocError;
use kernel::error::to_result;
use kernel::ffi::c_ulong;
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::bindings;
use crate::locked::Locked;

mod sites;

pub(crate) use sites::{CallSites, SiteSource};

/// Whether ftrace can trace the function at `addr`: the address of its
/// ftrace call site if so, else why not. `known`: the answer for `addr`
/// from [`CallSites`], when the walk that found the function had them
/// (`Some(None)`: ftrace cannot, `EINVAL` as `ftrace_set_filter_ip` says
/// it); `None`: ftrace is asked now.
pub(crate) fn traceable(
    _locked: Locked<'_>,
    addr: usize,
    known: Option<Option<usize>>,
) -> Result<usize> {
    match known {
        Some(Some(site)) => Ok(site),
        Some(None) => Err(EINVAL),
        // `_locked` proves the registry lock held, which serialises the
        // users of the scratch ops.
        None => check_ip(addr),
    }
}

/// Asks ftrace about one function: sets it as the only filter of the
/// scratch ops. The registry lock must be held (the scratch ops' users
/// serialise on it).
fn check_ip(addr: usize) -> Result<usize> {
    let mut fentry: kernel::ffi::c_ulong = 0;
    // SAFETY: Only the module's scratch ops is touched, and the callers
    // hold the registry lock, which serialises all users of it. `fentry`
    // is writable.
    to_result(unsafe { bindings::bp_ftrace_check_ip(addr, &mut fentry) })?;
    Ok(fentry as usize)
}

/// How far into a function its ftrace call site can be: right after its
/// endbr64 under IBT, else at +0. A kprobe deeper in is never
/// ftrace-based.
pub(crate) fn fentry_max_offset() -> u32 {
    // SAFETY: It returns a constant.
    unsafe { bindings::bp_fentry_max_offset() }
}

/// Why a target without an address (the walk of the core kernel's text
/// never met its name) is refused.
pub(crate) const NOT_IN_TEXT: &str = "unknown symbol, or not a core-kernel function";

/// Frees the scratch ops' filter (the one [`traceable`] fills), on unload.
///
/// # Safety
///
/// Nothing uses the scratch ops any more: no command runs or can start.
pub(crate) unsafe fn free_scratch() {
    // SAFETY: Nothing else uses the scratch ops any more (the caller's
    // contract).
    unsafe { bindings::bp_ftrace_scratch_free() };
}

/// One `ftrace_ops` for direct calls: its filter, and its registration
/// with a trampoline.
///
/// While the ops is registered (from a successful [`FtraceOps::register`]
/// until its [`FtraceOps::unregister`]), ftrace keeps a pointer to it. The
/// C object therefore lives in an allocation of its own, pinned: an
/// `FtraceOps` may move (in a vector that grows, say), the `ftrace_ops`
/// never does. The callers of `register` promise only that it is not
/// dropped while registered.
///
/// # Invariants
///
/// `ops` is only ever passed to ftrace's own API, which serialises its
/// users with its own locks.
pub(crate) struct FtraceOps {
    ops: Pin<KBox<Opaque<bindings::ftrace_ops>>>,
}

/// A failed [`FtraceOps::register_each`].
pub(crate) struct Unwound {
    pub(crate) error: Error,
    /// ftrace let go of every ops registered before the failure (if not,
    /// some stay registered: they must never be dropped).
    pub(crate) released: bool,
}

/// A failed [`FtraceOps::switch_all`].
pub(crate) struct Switch {
    pub(crate) error: Error,
    /// Every ops that had moved is back on the old trampoline.
    pub(crate) moved_back: bool,
}

impl FtraceOps {
    /// An unregistered ops with an empty filter.
    pub(crate) fn new() -> Result<Self, AllocError> {
        Ok(Self {
            ops: KBox::pin(Opaque::new(bindings::ftrace_ops::default()), GFP_KERNEL)?,
        })
    }

    /// Sets the filter to `ips` and registers the ops with `tramp`; frees
    /// the filter again on failure.
    ///
    /// # Safety
    ///
    /// `self` is not registered, and is not dropped until it is
    /// unregistered; `tramp` is a valid direct caller.
    pub(crate) unsafe fn register(&self, ips: &mut [c_ulong], tramp: usize) -> Result {
        let ops = self.ops.get();
        let n = ips.len() as u32;
        // SAFETY: `ops` is a live, unregistered ftrace_ops (the caller's
        // contract), pinned, so it never moves; `ips` holds `n` addresses.
        let mut ret = unsafe { bindings::ftrace_set_filter_ips(ops, ips.as_mut_ptr(), n, 0, 1) };
        if ret == 0 {
            // SAFETY: As above; the trampoline is a valid direct caller.
            ret = unsafe { bindings::register_ftrace_direct(ops, tramp) };
        }
        if ret < 0 {
            // SAFETY: `ops` is not registered; this frees its filter hash.
            unsafe { bindings::ftrace_free_filter(ops) };
        }
        to_result(ret)
    }

    /// Unregisters the ops from the trampoline it is on and frees its
    /// filter (waiting until no task is inside the trampoline for it).
    ///
    /// The trampoline is the one ftrace recorded for the ops
    /// (`direct_call`, set by `register_ftrace_direct` and every
    /// `modify_ftrace_direct` that succeeded), not the one its set's mode
    /// names: after a switch that failed half way and could not move every
    /// ops back, the two differ, and `unregister_ftrace_direct` drops only
    /// the `direct_functions` entries that name the trampoline it is given
    /// (the others stayed, and later direct users of those functions got
    /// `EBUSY` until reboot).
    ///
    /// # Safety
    ///
    /// `self` is registered.
    pub(crate) unsafe fn unregister(&self) -> Result {
        let ops = self.ops.get();
        // SAFETY: Registered (the caller's contract), so live; pinned, so
        // not moving. ftrace writes `direct_call` only in the register and
        // modify calls, which the caller's lock serialises with this one.
        let tramp = unsafe { bindings::bp_ftrace_direct_call(ops) } as usize;
        // SAFETY: As above; `tramp` is the trampoline the ops is on.
        to_result(unsafe { bindings::unregister_ftrace_direct(ops, tramp, true) })
    }

    /// Moves the registered ops to the trampoline `tramp`.
    ///
    /// # Safety
    ///
    /// `self` is registered; `tramp` is a valid direct caller.
    pub(crate) unsafe fn modify(&self, tramp: usize) -> Result {
        // SAFETY: Registered (the caller's contract), so live; pinned, so
        // not moving; the trampoline is valid.
        to_result(unsafe { bindings::modify_ftrace_direct(self.ops.get(), tramp) })
    }

    /// Registers `ops[i]` with `tramp` for the single address `ips[i]`,
    /// one by one: one filter update and one patching pass each. On
    /// failure unregisters the ones already registered, and returns the
    /// error (`ENOMEM` if there are fewer ops than addresses) with whether
    /// ftrace let go of all of them ([`Unwound`]).
    ///
    /// # Safety
    ///
    /// Every ops in `ops` is unregistered, and none is dropped until it is
    /// unregistered; `tramp` is a valid direct caller.
    pub(crate) unsafe fn register_each(
        ops: &[FtraceOps],
        ips: impl Iterator<Item = c_ulong>,
        tramp: usize,
    ) -> Result<(), Unwound> {
        for (i, ip) in ips.enumerate() {
            let undo = |error| Unwound {
                error,
                // SAFETY: The first `i` ops were registered (the iterations
                // before this one).
                released: unsafe { Self::unregister_all(ops.iter().take(i)) }.is_ok(),
            };
            let Some(one) = ops.get(i) else {
                return Err(undo(ENOMEM));
            };
            // SAFETY: A live, unregistered ops, not dropped until
            // unregistered (the caller's contract).
            if let Err(e) = unsafe { one.register(&mut [ip], tramp) } {
                return Err(undo(e));
            }
        }
        Ok(())
    }

    /// Unregisters every ops of `all`, each from the trampoline it is on:
    /// the worst error (the lowest errno), if any.
    ///
    /// # Safety
    ///
    /// Every ops of `all` is registered.
    pub(crate) unsafe fn unregister_all<'a>(all: impl Iterator<Item = &'a FtraceOps>) -> Result {
        // SAFETY: The caller's contract.
        unsafe { Self::unregister_each(all, |_| {}) }
    }

    /// Unregisters every ops of `all`, each from the trampoline it is on,
    /// calling `failed` with the error of each one ftrace refused: the
    /// worst error (the lowest errno), if any.
    ///
    /// # Safety
    ///
    /// Every ops of `all` is registered.
    pub(crate) unsafe fn unregister_each<'a>(
        all: impl Iterator<Item = &'a FtraceOps>,
        mut failed: impl FnMut(Error),
    ) -> Result {
        let mut worst: Result = Ok(());
        for ops in all {
            // SAFETY: Registered (the caller's contract).
            if let Err(e) = unsafe { ops.unregister() } {
                failed(e);
                worst = match worst {
                    Err(w) if w.to_errno() <= e.to_errno() => Err(w),
                    _ => Err(e),
                };
            }
        }
        worst
    }

    /// Switches every ops of `all` from the trampoline `from` to `to`; on
    /// failure the ones already moved are moved back (the error says
    /// whether all were).
    ///
    /// # Safety
    ///
    /// Every ops of `all` is registered with `from`; both trampolines are
    /// valid direct callers.
    pub(crate) unsafe fn switch_all<'a>(
        all: impl Iterator<Item = &'a FtraceOps> + Clone,
        from: usize,
        to: usize,
    ) -> Result<(), Switch> {
        for (i, ops) in all.clone().enumerate() {
            // SAFETY: Registered (the caller's contract).
            if let Err(error) = unsafe { ops.modify(to) } {
                // Switch the ones already moved back, so that every ops
                // matches `from` again (detach passes it).
                // SAFETY: The first `i` were registered and moved to `to`.
                let moved_back = unsafe { Self::switch_back(all.take(i), from) };
                return Err(Switch { error, moved_back });
            }
        }
        Ok(())
    }

    /// Moves `moved` (registered ops now on the new trampoline) back to
    /// `old`: whether every one moved back.
    ///
    /// # Safety
    ///
    /// Every ops of `moved` is registered; `old` is a valid direct caller.
    unsafe fn switch_back<'a>(moved: impl Iterator<Item = &'a FtraceOps>, old: usize) -> bool {
        let mut moved_back = true;
        for ops in moved {
            // SAFETY: Registered, now with the new trampoline.
            if let Err(e) = unsafe { ops.modify(old) } {
                pr_warn!("switching a direct call back failed: {}\n", e.to_errno());
                moved_back = false;
            }
        }
        moved_back
    }
}
