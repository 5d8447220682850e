// SPDX-License-Identifier: GPL-2.0

//! The direct handlers' recursion guard: ftrace's own recursion lock.
//!
//! A direct trampoline calls its handler from any traced function, in any
//! context: NMI, the scheduler, RCU's read-side functions. If the handler
//! then called a traced function (on `PREEMPT_RCU`, `rcu_read_lock()` is the
//! traceable `__rcu_read_lock`), that function's trampoline would call the
//! handler again, without end. [`RecursionGuard`] takes the lock that fprobe
//! and the function tracer take (`ftrace_test_recursion_trylock`, through a
//! `notrace` C helper), which refuses a second entry in the same context and
//! disables preemption with `preempt_disable_notrace()` while held. That
//! makes the guard an RCU read-side critical section too ([`rcu::ReadSide`]).

use core::marker::PhantomData;

use kernel::ffi::c_int;

use crate::bindings;
use crate::rcu;

/// ftrace's recursion lock for the current context, held until dropped.
///
/// # Invariants
///
/// `bit` is what `bp_direct_recursion_trylock` returned (>= 0) on this task,
/// and preemption stays disabled until the matching unlock in `drop`.
pub(crate) struct RecursionGuard {
    bit: c_int,
    /// Not `Send`: the lock belongs to the task and CPU that took it.
    _not_send: PhantomData<*mut ()>,
}

impl RecursionGuard {
    /// Takes the lock for a call at `ip`, or `None` when this context is
    /// already inside a tracer callback (the call is then to be dropped).
    #[inline(always)]
    pub(crate) fn try_lock(ip: usize) -> Option<Self> {
        // SAFETY: The helper is notrace and may be called from any context.
        let bit = unsafe { bindings::bp_direct_recursion_trylock(ip) };
        if bit < 0 {
            // No guard is built here: `bool::then_some(Self { .. })` would
            // build one and drop it on refusal, and its `drop` would unlock
            // a lock never taken (one `preempt_enable_notrace()` too many:
            // the CPU's preempt count went negative on the debug kernel).
            return None;
        }
        // INVARIANT: A non-negative `bit` means the lock is held.
        Some(Self {
            bit,
            _not_send: PhantomData,
        })
    }
}

impl Drop for RecursionGuard {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: By the type invariant `bit` is held by this task.
        unsafe { bindings::bp_direct_recursion_unlock(self.bit) };
    }
}

// SAFETY: By the type invariant preemption is disabled while the guard lives.
unsafe impl rcu::ReadSide for RecursionGuard {}
