// SPDX-License-Identifier: GPL-2.0

//! The exit trampoline's hold on the module's text: while a task may be
//! inside a function the trampoline called, the module pins itself, and a
//! release poll drops the pin once no set uses the trampoline and no task
//! is inside (counted by [`tasks`]). At unload,
//! [`exit_quiesce`] makes sure of it once more.

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kernel::prelude::*;

use super::index::lock_index;
use crate::bindings;

pub(crate) mod tasks;

/// At module exit, after every set is detached: makes sure no task is
/// inside a function the exit trampoline called. The module's pin on itself
/// ([`exit_attached`]) keeps it from being unloaded while one may be, so
/// this finds none; should one be there all the same, it waits for it, then
/// for an RCU-tasks grace period (the trampoline's last instructions),
/// rather than free the text under it.
pub(super) fn exit_quiesce() {
    let mut waited = 0u32;
    loop {
        let inside = tasks::inside();
        if inside == 0 {
            break;
        }
        if waited % 500 == 0 {
            pr_info!(
                "unload waits for {} task(s) still inside functions the exit trampoline called\n",
                inside
            );
        }
        waited = waited.wrapping_add(1);
        // SAFETY: Process context (module exit); sleeps 10 ms.
        unsafe { bindings::bp_sleep_ms(10) };
    }
    // SAFETY: Process context; no lock held.
    unsafe { bindings::bp_synchronize_rcu_tasks() };
    tasks::watch(false);
}

/// Makes sure exiting tasks can be watched ([`tasks::start`]), before
/// an exit set is built: the error is then the set's, named as such.
pub(super) fn exit_watchable() -> Result {
    let _lock = lock_index();
    tasks::start()
}

/// Sets attached with the exit trampoline.
static EXIT_SETS: AtomicUsize = AtomicUsize::new(0);
/// The module holds a reference on itself for the exit trampoline.
static EXIT_PINNED: AtomicBool = AtomicBool::new(false);

/// A set now calls through the exit trampoline: the module pins itself, so
/// that it cannot be unloaded (`rmmod` gets `EWOULDBLOCK`, the kernel's
/// answer for a module in use) while a task may be inside a function the
/// trampoline called, with the trampoline's text on its stack. A task
/// asleep there can stay for long after its set is gone (a kernel thread
/// idling in a traced function); one that exits from inside no longer
/// counts (`rust/exit_tasks.c`). Fails, counting nothing, if exiting
/// tasks cannot be watched ([`tasks::start`]).
pub(super) fn exit_attached() -> Result {
    let _lock = lock_index();
    tasks::start()?;
    EXIT_SETS.fetch_add(1, Ordering::Relaxed);
    // Before the first registration: exiting tasks from now on look for
    // the trampoline on their stacks.
    tasks::watch(true);
    if !EXIT_PINNED.swap(true, Ordering::Relaxed) {
        // SAFETY: The module is live (this is its code running).
        unsafe { bindings::bp_pin_module() };
    }
    Ok(())
}

/// A set no longer calls through the exit trampoline: once none does and
/// no task is inside, the pin goes ([`bp_direct_exit_release`], polled).
pub(super) fn exit_detached() {
    {
        let _lock = lock_index();
        EXIT_SETS.fetch_sub(1, Ordering::Relaxed);
    }
    // SAFETY: Queues the module's static delayed work (cancelled at exit).
    unsafe { bindings::bp_exit_release_schedule() };
}

/// How long [`settle`] waits for the pin to go, in 100-ms steps (10 s).
const SETTLE_STEPS: u32 = 100;

/// `flush` and `unregister --sync` on the control file: once no set uses
/// the exit trampoline, waits (at most 10 s) for the module's pin on
/// itself to go, running the release poll's step itself, so that `rmmod`
/// right after the write succeeds. `None` once the pin is gone (or a set
/// still uses the trampoline, and keeps it); else how many tasks are
/// still inside a function the trampoline called.
pub(crate) fn settle() -> Option<isize> {
    let pinned = || {
        let _lock = lock_index();
        EXIT_SETS.load(Ordering::Relaxed) == 0 && EXIT_PINNED.load(Ordering::Relaxed)
    };
    for _ in 0..SETTLE_STEPS {
        if !pinned() {
            return None;
        }
        // As the poll does (it may run beside this: each step re-checks
        // under the lock, and only one of them drops the pin).
        if bp_direct_exit_release() && !pinned() {
            return None;
        }
        // SAFETY: Process context (a control write, no lock held).
        unsafe { bindings::bp_sleep_ms(100) };
    }
    pinned().then(tasks::inside)
}

/// The release poll (`rust/module.c` runs it from a delayed work, again
/// while it says `false`, backing off from 100 ms to 5 s): drops the
/// module's pin once no set
/// uses the exit trampoline and, after an RCU-tasks grace period for the
/// instructions a task runs after its exit handler counted it out, no task
/// is inside a function it called.
#[no_mangle]
extern "C" fn bp_direct_exit_release() -> bool {
    let idle = || EXIT_SETS.load(Ordering::Relaxed) == 0 && EXIT_PINNED.load(Ordering::Relaxed);
    {
        let _lock = lock_index();
        if !idle() {
            return true;
        }
        if tasks::inside() != 0 {
            return false;
        }
    }
    // SAFETY: Process context (a work item); no lock held.
    unsafe { bindings::bp_synchronize_rcu_tasks() };
    let _lock = lock_index();
    if !idle() {
        return true;
    }
    // No set calls through the trampoline (the lock keeps a new one from
    // attaching until this returns) and a grace period has passed: the
    // count only falls now, so 0 means no task is inside.
    let inside = tasks::inside();
    if inside != 0 {
        if inside < 0 {
            pr_warn!(
                "exit trampoline: {} task(s) inside, below 0; the module stays pinned\n",
                inside
            );
        }
        return false;
    }
    // No task is inside, and none can enter until a set attaches, which
    // turns it on again (under the lock this holds).
    tasks::watch(false);
    EXIT_PINNED.store(false, Ordering::Relaxed);
    // SAFETY: Drops the reference `exit_attached` took. The module may be
    // unloaded from now on: its exit cancels this work synchronously, so
    // it waits until this function and its caller have returned.
    unsafe { bindings::bp_unpin_module() };
    true
}
