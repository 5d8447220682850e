// SPDX-License-Identifier: GPL-2.0

//! Tasks inside a body the exit trampoline called: the Rust side of
//! `rust/exit_tasks.c`.
//!
//! The exit trampoline's handlers ([`crate::direct`]) count a task in and
//! out on per-CPU counters. A task that ends inside a body (a traced
//! `get_signal` that calls `do_group_exit`, an exit system call through a
//! traced `x64_sys_call`, a seccomp kill, an io_uring worker) is never
//! counted out: a kprobe on `do_exit()`, registered for the module's life
//! ([`Watch`]), finds such bodies on the exiting task's stack and counts
//! them gone. So "is any task inside" is answered exactly, with no shared
//! cache line on the hot path, and the module's pin on itself
//! ([`crate::direct`]) drops once the last real task has left.

use kernel::prelude::*;

use crate::bindings;

/// The `do_exit()` kprobe, registered from load to unload.
///
/// # Invariants
///
/// The kprobe is registered while a `Watch` exists.
pub(crate) struct Watch(());

impl Watch {
    /// Registers the `do_exit()` kprobe.
    pub(crate) fn register() -> Result<Self> {
        // SAFETY: Registers the C file's static kprobe once (one `Watch`
        // exists: the module's); `drop` unregisters it.
        kernel::error::to_result(unsafe { bindings::bp_exit_tasks_init() })?;
        // INVARIANT: registered just now.
        Ok(Watch(()))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: Registered in `register` (type invariant); this waits
        // until no CPU runs its handler.
        unsafe { bindings::bp_exit_tasks_exit() };
    }
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
