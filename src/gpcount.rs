// SPDX-License-Identifier: GPL-2.0

//! Counting the RCU grace periods that batchprobe's phases wait for.
//!
//! A batch is meant to pay O(1) grace periods whatever its size, and on a
//! preemptible kernel an RCU-tasks grace period costs far more than a plain
//! one (a task preempted anywhere must be seen to schedule voluntarily or
//! leave the kernel; `rcu_expedite_gp()` does not shorten it). So each phase
//! records how many of each kind it waited for, and `stats` shows them.
//!
//! While the module is loaded, a kprobe sits on each kind's synchronous
//! wait: `synchronize_rcu` (expedited or not), `synchronize_rcu_tasks` and
//! `synchronize_rcu_tasks_rude`; its pre-handler bumps a counter. A phase
//! takes a [`Snapshot`] when it starts and stores the difference when it
//! ends ([`PhaseGps`]). The counters are system-wide: a wait that another
//! task started while the phase ran (the kprobe optimizer, say, whose
//! passes a phase can be stuck behind on `kprobe_mutex`) is counted too,
//! which is what the phase paid. On a kernel without RCU-tasks
//! (non-preemptible, where `synchronize_rcu_tasks()` is `synchronize_rcu()`)
//! the tasks kinds have no function to probe and print as `-`; so does the
//! rude kind where `synchronize_rcu_tasks_rude()` returns at once (x86 on
//! 7.3: [`kcompat::RUDE_RCU_WAITS`]).

use core::pin::Pin;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use kernel::ffi::c_int;
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::bindings;
use crate::kcompat;

/// The kinds counted, in the order [`PhaseGps`] prints them.
const KINDS: usize = 3;
/// The index of the RCU-tasks-rude kind.
const RUDE: usize = 2;
/// The function each kind's wait goes through (NUL-terminated).
const SYMBOLS: [&[u8]; KINDS] = [
    b"synchronize_rcu\0",
    b"synchronize_rcu_tasks\0",
    b"synchronize_rcu_tasks_rude\0",
];
/// The kinds' names, as `stats` and `make bench` show them.
pub(crate) const NAMES: &str = "rcu/rcu_tasks/rcu_tasks_rude";

/// Waits started since the counters were registered, per kind.
static COUNTS: [AtomicU64; KINDS] = [const { AtomicU64::new(0) }; KINDS];
/// Whether each kind's counter is registered.
static AVAILABLE: [AtomicBool; KINDS] = [const { AtomicBool::new(false) }; KINDS];

/// One counting kprobe; `kp` first, so the handler finds `kind` from it.
#[repr(C)]
struct Counter {
    kp: Opaque<bindings::kprobe>,
    kind: usize,
}

/// The counting kprobes, registered for as long as this lives.
///
/// # Invariants
///
/// `counters[i].kp` is registered iff `AVAILABLE[i]`. (The kprobes are
/// pinned: they never move.)
pub(crate) struct Counters {
    counters: Pin<KBox<[Counter; KINDS]>>,
}

// SAFETY: The kprobes are only handed to the kernel's kprobe API, which
// serialises its own use of them; nothing else reads or writes them.
unsafe impl Send for Counters {}
// SAFETY: `&Counters` gives no access to the kprobes at all.
unsafe impl Sync for Counters {}

/// The counters' pre-handler.
///
/// # Safety
///
/// `p` is the `kp` field of a live [`Counter`] (the kernel only calls this
/// for the kprobes `Counters::register` set up).
unsafe extern "C" fn count(p: *mut bindings::kprobe, _regs: *mut bindings::pt_regs) -> c_int {
    // SAFETY: `kp` is the first field of the `repr(C)` `Counter` (see the
    // function's safety section).
    let kind = unsafe { (*p.cast::<Counter>()).kind };
    // `kind` is always in range; `get` keeps a panic path out of a handler.
    if let Some(c) = COUNTS.get(kind) {
        c.fetch_add(1, Ordering::Relaxed);
    }
    0
}

impl Counters {
    /// Registers one counting kprobe per kind; a kind whose function this
    /// kernel does not have stays unavailable. Fails only on allocation.
    pub(crate) fn register() -> Result<Self> {
        let new = |symbol: &[u8], kind: usize| Counter {
            kp: Opaque::new(bindings::kprobe {
                symbol_name: symbol.as_ptr().cast(),
                pre_handler: Some(count),
                ..Default::default()
            }),
            kind,
        };
        let counters = KBox::pin(
            [new(SYMBOLS[0], 0), new(SYMBOLS[1], 1), new(SYMBOLS[2], 2)],
            GFP_KERNEL,
        )?;
        for ((c, available), symbol) in counters.iter().zip(&AVAILABLE).zip(SYMBOLS) {
            if c.kind == RUDE && !kcompat::RUDE_RCU_WAITS {
                // Its calls return at once here: not grace periods. `-`.
                pr_info!("synchronize_rcu_tasks_rude does not wait on this kernel: not counted\n");
                continue;
            }
            // SAFETY: A filled-in, unregistered kprobe, pinned, and not
            // freed before `drop` unregisters it.
            let ret = unsafe { bindings::register_kprobe(c.kp.get()) };
            available.store(ret == 0, Ordering::Relaxed);
            if ret != 0 {
                let name = symbol.strip_suffix(b"\0").unwrap_or(symbol);
                pr_info!(
                    "grace-period counter on {} not available (errno {})\n",
                    core::str::from_utf8(name).unwrap_or("?"),
                    ret
                );
            }
        }
        // INVARIANT: `AVAILABLE[i]` records whether `counters[i]` registered.
        Ok(Self { counters })
    }
}

impl Drop for Counters {
    fn drop(&mut self) {
        for (c, available) in self.counters.iter().zip(&AVAILABLE) {
            if available.swap(false, Ordering::Relaxed) {
                // SAFETY: Registered (type invariant); `unregister_kprobe`
                // waits until no handler runs on it before returning.
                unsafe { bindings::unregister_kprobe(c.kp.get()) };
            }
        }
    }
}

/// The counters at one moment.
#[derive(Clone, Copy)]
pub(crate) struct Snapshot([u64; KINDS]);

/// The counters now.
pub(crate) fn snapshot() -> Snapshot {
    Snapshot(COUNTS.each_ref().map(|c| c.load(Ordering::Relaxed)))
}

/// The grace periods of each kind one phase waited for, last time it ran.
#[derive(Default)]
pub(crate) struct PhaseGps([AtomicU32; KINDS]);

impl PhaseGps {
    /// Stores what was counted since `since`.
    pub(crate) fn record(&self, since: Snapshot) {
        let now = snapshot();
        for ((c, now), since) in self.0.iter().zip(now.0).zip(since.0) {
            let d = now.saturating_sub(since);
            c.store(u32::try_from(d).unwrap_or(u32::MAX), Ordering::Relaxed);
        }
    }
}

impl core::fmt::Display for PhaseGps {
    /// `R/T/U` in [`NAMES`] order; `-` for a kind this kernel lacks.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, (c, available)) in self.0.iter().zip(&AVAILABLE).enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            if available.load(Ordering::Relaxed) {
                write!(f, "{}", c.load(Ordering::Relaxed))?;
            } else {
                f.write_str("-")?;
            }
        }
        Ok(())
    }
}

/// The running totals, for the header of `stats`: `rcu:N rcu_tasks:N ...`.
pub(crate) fn write_totals(w: &mut impl core::fmt::Write) -> core::fmt::Result {
    for ((name, available), count) in NAMES.split('/').zip(&AVAILABLE).zip(&COUNTS) {
        if available.load(Ordering::Relaxed) {
            write!(w, " {}={}", name, count.load(Ordering::Relaxed))?;
        } else {
            write!(w, " {}=-", name)?;
        }
    }
    Ok(())
}
