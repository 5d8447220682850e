// SPDX-License-Identifier: GPL-2.0

//! Tasks inside a body the exit trampoline called: the Rust side of
//! `rust/exit_tasks.c`.
//!
//! The exit trampoline's handlers ([`crate::direct`]) count a task in and
//! out on per-CPU counters. A task that ends inside a body (a traced
//! `get_signal` that calls `do_group_exit`, an exit system call through a
//! traced `x64_sys_call`, a seccomp kill, an io_uring worker) is never
//! counted out: an ftrace callback on `do_exit()`, registered with the
//! first exit set ([`start`]) and until unload ([`Watch`]), finds such
//! bodies on the exiting task's stack and counts them gone (not a kprobe:
//! `kprobes/enabled` = 0 silenced it). So "is any task inside" is answered exactly, with no shared
//! cache line on the hot path, and the module's pin on itself
//! ([`crate::direct`]) drops once the last real task has left.

use kernel::prelude::*;

use crate::bindings;

/// The owner of the `do_exit()` callback: the module, from load to
/// unload. [`start`] registers the callback (with the first exit set); the
/// `Watch`'s drop unregisters it if it was.
///
/// # Invariants
///
/// One `Watch` exists, the module's, and it is dropped after the last
/// exit set is gone (after the engine's shutdown).
pub(crate) struct Watch(());

impl Watch {
    /// The module's watch: nothing registered yet.
    pub(crate) fn new() -> Self {
        Watch(())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: No exit set is left to call `start` (type invariant);
        // this unregisters the callback if `start` registered it, and
        // waits until no CPU runs it.
        unsafe { bindings::bp_exit_tasks_exit() };
    }
}

/// Registers the `do_exit()` callback if it is not yet. Called under the
/// direct lock, before an exit set's first registration: `EOPNOTSUPP` on a
/// kernel without a reliable unwinder (ORC or frame pointers), `EBUSY`
/// while function tracing is off (`ftrace_enabled` = 0); the kernel log
/// says which.
pub(crate) fn start() -> Result {
    // SAFETY: Serialised by the caller's lock; the callback is unregistered
    // only at unload, after every exit set ([`Watch`]).
    kernel::error::to_result(unsafe { bindings::bp_exit_tasks_start() })
}

/// Counts the current task into a body (the exit trampoline's entry).
#[inline(always)]
pub(crate) fn count_in() {
    // SAFETY: A notrace per-CPU increment.
    unsafe { bindings::bp_exit_count_in() };
}

/// Counts the current task out of a body (the exit trampoline's exit).
#[inline(always)]
pub(crate) fn count_out() {
    // SAFETY: A notrace per-CPU decrement.
    unsafe { bindings::bp_exit_count_out() };
}

/// Tasks inside: counted in, less counted out, less the bodies tasks ended
/// inside. Exact once no task can enter a body (no set attached with the
/// exit trampoline, and an RCU-tasks grace period since); never too low.
/// While tasks can enter it is a snapshot read CPU by CPU.
pub(crate) fn inside() -> isize {
    // SAFETY: Reads per-CPU counters and an atomic.
    unsafe { bindings::bp_exit_inside() }
}

/// Bodies that tasks ended inside (they exited from within), since load.
pub(crate) fn gone() -> isize {
    // SAFETY: Reads an atomic.
    unsafe { bindings::bp_exit_gone_count() }
}

/// Whether exiting tasks look for the trampoline on their stacks. On from
/// before an exit set's first registration until no task is inside.
pub(crate) fn watch(on: bool) {
    // SAFETY: Sets a flag (with a full barrier) that the kprobe reads.
    unsafe { bindings::bp_exit_set_watch(on) };
}
