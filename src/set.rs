// SPDX-License-Identifier: GPL-2.0

//! A probe set's life cycle: a named group of probes registered in one
//! batch, armed and disarmed together, and torn down asynchronously on the
//! module's workqueue with one batch per backend.
//!
//! The probes themselves belong to the backends ([`crate::backend`]); how
//! a set is built is in [`build`], what it shows in [`report`], and what an
//! in-kernel API client keeps in [`owner`].

use core::marker::PhantomPinned;
use core::pin::Pin;
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use kernel::prelude::*;
use kernel::sync::Arc;
use kernel::workqueue::{impl_has_work, Work};

use crate::backend::Coming;
use crate::bindings;
use crate::command::{CreateOptions, DirectMode};
use crate::direct::btf::Prototypes;
use crate::error::{BStr, Failed};
use crate::events::tracefs::SetEvents;
use crate::gate::Gate;
use crate::gpcount::{self, PhaseGps};
use crate::lifecycle::{self, Op, SetState};
use crate::locked::Locked;
use crate::rcu::{self, RcuBox, RcuOption};

mod backends;
mod build;
mod owner;
mod report;

use backends::Backends;

pub(crate) use build::Builder;
pub(crate) use owner::{may_own, Owner};

/// Monotonic nanoseconds, read on a path that no probe can hit (see
/// `bp_clock_ns` in `rust/clock.c`): a timing must not include a trap
/// taken by one of the probes it times. Only [`Stamp`] reads it.
fn now_ns() -> u64 {
    // SAFETY: `bp_clock_ns` may be called from any context.
    unsafe { bindings::bp_clock_ns() }
}

/// A reading of the phase clock.
///
/// It has no `-` or `+`: the one way to a duration is [`Stamp::elapsed`]
/// (or [`Stamp::until`]), which saturates at 0. Two readings can run
/// backwards: they may be taken on two CPUs (a writer migrates, the
/// teardown runs on an unbound workqueue), and the TSC, trusted at load,
/// can be marked unstable or recalibrated later. A plain `u64`
/// subtraction would then underflow, which with `RUST_OVERFLOW_CHECKS`
/// (Debian's 7.3, `distro-7.3`) is a panic holding the registry lock.
/// `tests/tests/lint_timestamps.rs` fails on any other use of the clock.
#[derive(Clone, Copy)]
pub(crate) struct Stamp(u64);

impl Stamp {
    /// Now.
    pub(crate) fn now() -> Self {
        Self(now_ns())
    }

    /// Nanoseconds from this reading to now; 0 if the clock went back.
    pub(crate) fn elapsed(self) -> u64 {
        self.until(Self::now())
    }

    /// Nanoseconds from this reading to `later`; 0 if `later` is earlier.
    pub(crate) fn until(self, later: Self) -> u64 {
        later.0.saturating_sub(self.0)
    }

    /// The reading, to keep in an atomic ([`Stamp::from_ns`] reads it
    /// back).
    pub(crate) fn ns(self) -> u64 {
        self.0
    }

    /// A reading kept by [`Stamp::ns`].
    pub(crate) fn from_ns(ns: u64) -> Self {
        Self(ns)
    }
}

/// Whether [`now_ns`] reads the TSC (else `ktime_get_ns()`), for `stats`.
pub(crate) fn clock_is_tsc() -> bool {
    // SAFETY: `bp_clock_is_tsc` only reads a flag.
    unsafe { bindings::bp_clock_is_tsc() }
}

/// What a set's handlers touch: the enable gate and the backends' probes.
///
/// Pinned (its [`crate::rcu::RcuBox`] hands it out as `Pin<&mut Probes>` only): every
/// probe points to `gate`. The backends are not structurally pinned: what
/// of theirs the kernel points to lives in allocations of their own.
pub(crate) struct Probes {
    /// The enable gate: handlers count only while it is open.
    pub(crate) gate: Gate,
    pub(crate) backends: Backends,
    skipped: build::Skipped,
    /// Its probes' trace events (`--events`).
    events: SetEvents,
    _pin: PhantomPinned,
}

impl Probes {
    /// What a build fills in (the backends, the skipped glob members),
    /// beside the gate every probe will point to.
    fn parts(self: Pin<&mut Self>) -> Parts<'_> {
        // SAFETY: Nothing is moved out of `self`: the gate is only shared,
        // and the rest is not structurally pinned (see the type's
        // documentation).
        let this = unsafe { self.get_unchecked_mut() };
        Parts {
            gate: &this.gate,
            backends: &mut this.backends,
            skipped: &mut this.skipped,
            events: &mut this.events,
        }
    }

    /// Keeps probes that ftrace did not let go of (a backend's `retire`
    /// said so) for good: ftrace still holds an ops in the box and may
    /// call the module's code, so neither the box nor the module is ever
    /// freed.
    fn keep_for_good(probes: RcuBox<Probes>) {
        core::mem::forget(probes);
        // SAFETY: Takes a reference on this module, which is live (its
        // code is running); it is never put, so the module stays.
        unsafe { bindings::bp_pin_module() };
    }
}

/// What a build fills in ([`Probes::parts`]).
struct Parts<'a> {
    gate: &'a Gate,
    backends: &'a mut Backends,
    skipped: &'a mut build::Skipped,
    events: &'a mut SetEvents,
}

/// The last duration of each phase, in nanoseconds (0: not run yet).
#[derive(Default)]
pub(crate) struct Timings {
    pub(crate) register: AtomicU64,
    pub(crate) enable: AtomicU64,
    pub(crate) disable: AtomicU64,
    /// The background disarm that follows a disable.
    pub(crate) disarm: AtomicU64,
    /// Attaching the direct calls (part of `register`).
    pub(crate) attach: AtomicU64,
    /// Detaching the direct calls (part of `unregister_complete`).
    pub(crate) detach: AtomicU64,
    /// The teardown work itself (`unregister_complete` less queueing).
    pub(crate) teardown: AtomicU64,
    pub(crate) unregister_call: AtomicU64,
    pub(crate) unregister_complete: AtomicU64,
    unregister_started: AtomicU64,
    /// The grace periods each phase waited for (see [`gpcount`]).
    pub(crate) gp_register: PhaseGps,
    pub(crate) gp_enable: PhaseGps,
    pub(crate) gp_disarm: PhaseGps,
    pub(crate) gp_retarget: PhaseGps,
    pub(crate) gp_teardown: PhaseGps,
    /// Detaching the direct calls (part of `gp_teardown`).
    pub(crate) gp_detach: PhaseGps,
}

/// A registered set of probes.
///
/// # Invariants
///
/// While `probes` is published, every probe in it is registered (or
/// attached, or noted for arming) and stays so until [`Set::teardown`]
/// runs (once: only the transition to `Retiring` queues it).
#[pin_data(PinnedDrop)]
pub(crate) struct Set {
    name: KVec<u8>,
    options: CreateOptions,
    state: AtomicU8,
    /// Published to readers until the teardown takes it.
    probes: RcuOption<Probes>,
    /// Hit and miss totals, frozen by the teardown.
    final_counts: (AtomicU64, AtomicU64),
    /// Probes per backend field (`kprobes`, `fprobes`, ...), kept after
    /// teardown.
    tally: KVec<(&'static str, usize)>,
    /// Number of glob members the kernel refused (kept after teardown).
    nskipped: usize,
    /// The bytes its return-instance pools take (estimated at create, see
    /// [`crate::retpool`]; kept after teardown).
    return_pool: usize,
    /// Sets made through the in-kernel API: their client.
    owner: Option<Owner>,
    pub(crate) timings: Timings,
    #[pin]
    work: Work<Set>,
    #[pin]
    disarm_work: Work<Set, 2>,
    #[pin]
    done_work: Work<Set, 3>,
}

// SAFETY: The probes are only used through the kernel's thread-safe probe
// APIs; everything else is atomic or immutable after construction.
unsafe impl Send for Set {}
// SAFETY: See `Send`.
unsafe impl Sync for Set {}

#[pinned_drop]
impl PinnedDrop for Set {
    fn drop(self: Pin<&mut Self>) {
        // A safety net: a set is always retired before its last reference
        // goes, but never free memory the kernel still has registered.
        // Sets are only dropped in process context (never from RCU callbacks).
        if self.state() != SetState::Freed {
            pr_warn!(
                "set {} dropped while {}\n",
                BStr(&self.name).as_str(),
                self.state().as_str()
            );
            self.retire_now();
        }
    }
}

impl_has_work! {
    impl HasWork<Self> for Set { self.work }
    impl HasWork<Self, 2> for Set { self.disarm_work }
    impl HasWork<Self, 3> for Set { self.done_work }
}

impl Set {
    /// The set's name.
    pub(crate) fn name(&self) -> &[u8] {
        &self.name
    }

    /// How many probes it was built with, every backend's together (kept
    /// after teardown, as `sets` shows them).
    pub(crate) fn probe_count(&self) -> usize {
        self.tally
            .iter()
            .fold(0usize, |n, (_, c)| n.saturating_add(*c))
    }

    /// The API client's bookkeeping, for sets made through the API.
    pub(crate) fn owner(&self) -> Option<&Owner> {
        self.owner.as_ref()
    }

    /// Fills `out[i]` with target `i`'s hits and misses (API sets; the
    /// frozen counts once torn down). Returns how many were filled.
    pub(crate) fn read_counts(&self, out: &mut [bindings::batchprobe_counts]) -> usize {
        let Some(owner) = &self.owner else {
            return 0;
        };
        let n = out.len().min(owner.frozen().len());
        let guard = rcu::read_lock();
        if let Some(p) = self.probes.get(&guard) {
            p.backends.each(&mut |v| {
                let i = v.index as usize;
                if let Some(c) = out.get_mut(i).filter(|_| i < n) {
                    *c = bindings::batchprobe_counts {
                        hits: v.hits,
                        missed: v.missed,
                    };
                }
            });
        } else {
            for (c, f) in out.iter_mut().zip(owner.frozen().iter()) {
                *c = bindings::batchprobe_counts {
                    hits: f[0].load(Ordering::Relaxed),
                    missed: f[1].load(Ordering::Relaxed),
                };
            }
        }
        n
    }

    /// Where the set is in its life cycle.
    pub(crate) fn state(&self) -> SetState {
        SetState::from_u8(self.state.load(Ordering::Acquire)).unwrap_or(SetState::Freed)
    }

    /// Opens or closes the gate the handlers check.
    fn gate(&self, _locked: Locked<'_>, open: bool) {
        // SAFETY: Only `teardown` takes the probes, and it runs after every
        // caller of this function is done with the set: they hold the
        // registry lock (`_locked`) and the state machine orders them.
        if let Some(p) = unsafe { self.probes.get_unguarded() } {
            p.gate.set(open);
        }
    }

    fn set_state(&self, s: SetState) {
        self.state.store(s as u8, Ordering::Release);
    }

    /// Arms every probe, backend after backend, then opens the gate. All
    /// or nothing.
    pub(crate) fn enable(&self, locked: Locked<'_>) -> Result<(), Failed> {
        let Some(to) = self.step(Op::Enable)? else {
            return Ok(());
        };
        let t0 = Stamp::now();
        let gp0 = gpcount::snapshot();
        // A disarm queued by an earlier disable must not run after this.
        self.flush_disarm();
        // SAFETY: Only `teardown` takes the probes; it cannot run while a
        // command holds the registry lock on a live set (state machine).
        if let Some(p) = unsafe { self.probes.get_unguarded() } {
            let _fast = rcu::expedite();
            let all = p.backends.all();
            for (i, b) in all.iter().enumerate() {
                if let Err(e) = b.arm() {
                    for armed in all.get(..i).unwrap_or(&[]) {
                        armed.disarm();
                    }
                    return Err(e);
                }
            }
        }
        self.gate(locked, true);
        self.timings.enable.store(t0.elapsed(), Ordering::Relaxed);
        self.timings.gp_enable.record(gp0);
        self.set_state(to);
        Ok(())
    }

    /// Closes the gate: from here on no hit is counted, in O(1). Returns
    /// whether the caller must queue the physical disarm ([`Set::disarm`])
    /// on the module workqueue.
    pub(crate) fn disable(&self, locked: Locked<'_>) -> Result<bool, Failed> {
        let Some(to) = self.step(Op::Disable)? else {
            return Ok(false);
        };
        let t0 = Stamp::now();
        self.gate(locked, false);
        self.set_state(to);
        self.timings.disable.store(t0.elapsed(), Ordering::Relaxed);
        Ok(true)
    }

    /// Disarms every probe back to back (on the workqueue), unless the set
    /// was enabled again or retired meanwhile.
    pub(crate) fn disarm(&self) {
        if self.state() != SetState::Disabled {
            return;
        }
        let t0 = Stamp::now();
        let gp0 = gpcount::snapshot();
        let _fast = rcu::expedite();
        // Runs to the end even if an unregister arrives meanwhile (its
        // teardown, queued behind, waits): stopping half way, so that the
        // teardown met half-disarmed optimized probes, left a stray int3 in
        // kernel text twice in TCG benchmark runs at N = 4096 ("Oops: int3"
        // at a former probe site after the teardown).
        // SAFETY: Only `teardown` takes the probes, and it is queued behind
        // this work on the same ordered workqueue.
        if let Some(p) = unsafe { self.probes.get_unguarded() } {
            for b in p.backends.all() {
                b.disarm();
            }
        }
        self.timings.disarm.store(t0.elapsed(), Ordering::Relaxed);
        self.timings.gp_disarm.record(gp0);
    }

    /// Switches the set's direct calls to the counting (`record == false`)
    /// or the counting-and-recording trampoline, without detaching. To the
    /// exit trampoline only if it can call every function: `prototypes`
    /// gives the kernel's (asked only if there are functions to check).
    pub(crate) fn retarget(
        &self,
        _locked: Locked<'_>,
        mode: DirectMode,
        prototypes: &mut dyn FnMut() -> Result<Arc<Prototypes>>,
    ) -> Result<(), Failed> {
        self.step(Op::Retarget)?;
        // SAFETY: Only `teardown` takes the probes, and the state machine
        // keeps it from running while a command (holding the registry
        // lock, `_locked`) is being executed.
        let Some(p) = (unsafe { self.probes.get_unguarded() }) else {
            return Ok(());
        };
        if mode == DirectMode::Exit {
            let refusal = p.backends.direct.exit_refusal(prototypes).map_err(|e| {
                Failed::new(
                    e,
                    format_args!(
                        "set {}: the exit trampoline needs the kernel's BTF \
                         (/sys/kernel/btf/vmlinux): {}",
                        BStr(&self.name),
                        crate::error::generic(e)
                    ),
                )
            })?;
            if let Some((sym, r)) = refusal {
                return Err(Failed::errno(
                    crate::direct::signature::REFUSED_ERRNO,
                    format_args!(
                        "set {}: direct {}: {}",
                        BStr(&self.name),
                        BStr(sym),
                        r.as_str()
                    ),
                ));
            }
        }
        let gp0 = gpcount::snapshot();
        let res = p.backends.direct.retarget(mode);
        self.timings.gp_retarget.record(gp0);
        res.map_err(|e| {
            Failed::new(
                e,
                format_args!(
                    "set {}: modify_ftrace_direct failed: {}",
                    BStr(&self.name),
                    crate::error::refusal(crate::errtext::Site::Direct, e)
                ),
            )
        })
    }

    /// Moves the set to `Retiring`; the caller then queues its teardown.
    pub(crate) fn begin_unregister(&self, locked: Locked<'_>) -> Result<(), Failed> {
        let to = self.step(Op::Unregister)?.unwrap_or(SetState::Retiring);
        self.timings
            .unregister_started
            .store(Stamp::now().ns(), Ordering::Relaxed);
        self.gate(locked, false);
        self.set_state(to);
        Ok(())
    }

    /// Records how long the unregister call took to return (it started in
    /// [`Set::begin_unregister`]).
    pub(crate) fn unregister_returned(&self) {
        let started = Stamp::from_ns(self.timings.unregister_started.load(Ordering::Relaxed));
        self.timings
            .unregister_call
            .store(started.elapsed(), Ordering::Relaxed);
    }

    /// Unregisters every probe: one batch per backend, int3 probes first
    /// (one grace period each), then what ftrace serves (timed as
    /// `detach`). Runs on the module workqueue, once. Returns whether an
    /// API client's completion is due ([`Set::complete`]).
    pub(crate) fn teardown(&self) -> bool {
        // It runs only where its end is legal, on a retiring set: once,
        // since it leaves the set freed.
        let Ok(Some(done)) = lifecycle::next(self.state(), Op::TeardownDone) else {
            return false;
        };
        let t0 = Stamp::now();
        let gp0 = gpcount::snapshot();
        // SAFETY: Only this function takes the probes, and it runs once.
        let detached = match unsafe { self.probes.get_unguarded() } {
            Some(p) => self.retire_probes(p),
            None => true,
        };
        self.release_probes(detached);
        let now = Stamp::now();
        self.timings
            .teardown
            .store(t0.until(now), Ordering::Relaxed);
        self.timings.gp_teardown.record(gp0);
        let started = Stamp::from_ns(self.timings.unregister_started.load(Ordering::Relaxed));
        self.timings
            .unregister_complete
            .store(started.until(now), Ordering::Relaxed);
        self.set_state(done);
        match &self.owner {
            // No handler runs or will run: the client may free what they
            // use, and unload once the reference is put ([`Set::complete`]).
            Some(_) if detached => true,
            Some(o) => {
                // Its handler may still be called: the client stays too.
                o.abandon();
                false
            }
            None => false,
        }
    }

    /// The teardown's unregistering: int3 probes first, then what ftrace
    /// serves (timed as `detach`); then the counts are frozen. Returns
    /// whether ftrace let go of everything.
    fn retire_probes(&self, p: &Probes) -> bool {
        let mut detached = true;
        let one_by_one = self.options.one_by_one;
        let all = p.backends.all();
        {
            let _fast = (!one_by_one).then(rcu::expedite);
            for b in all.iter().filter(|b| !b.ftrace_based()) {
                detached &= b.retire(one_by_one);
            }
        }
        let t = Stamp::now();
        let gp = gpcount::snapshot();
        for b in all.iter().filter(|b| b.ftrace_based()) {
            detached &= b.retire(one_by_one);
        }
        self.timings.detach.store(t.elapsed(), Ordering::Relaxed);
        self.timings.gp_detach.record(gp);
        // No handler runs any more: freeze the counts before the slots
        // are unpublished, so that a reader never sees neither.
        // No handler reads the events any more either.
        if detached {
            p.events.remove();
        }
        let (hits, missed) = p.backends.totals();
        self.final_counts.0.store(hits, Ordering::Relaxed);
        self.final_counts.1.store(missed, Ordering::Relaxed);
        if let Some(o) = &self.owner {
            o.freeze(p);
        }
        detached
    }

    /// Unpublishes the probes once retired: freed after a grace period if
    /// ftrace let go of them (`detached`), else kept for good.
    fn release_probes(&self, detached: bool) {
        // Unpublish the slots; readers still looking at them are safe until
        // a grace period has passed, when `call_rcu` frees them.
        let probes = self.probes.take();
        if detached {
            drop(probes);
        } else if let Some(p) = probes {
            Probes::keep_for_good(p);
        }
    }

    /// An API set whose teardown has run: calls the client's completion
    /// callback, then drops the module reference. Process context; not on
    /// the teardown queue (see [`crate::api`]).
    pub(crate) fn complete(&self) {
        if let Some(o) = &self.owner {
            o.complete();
        }
    }

    /// Waits until a disarm queued by an earlier `disable` has run.
    fn flush_disarm(&self) {
        // SAFETY: `disarm_work` is a live, initialised work item of `self`.
        unsafe { bindings::flush_work(Work::raw_get(core::ptr::addr_of!(self.disarm_work))) };
    }

    /// `module` is coming (see [`crate::backend::SetBackend::module_coming`]):
    /// the set's probes that wait for it, or went with its last unload, are
    /// registered, and armed if the set is enabled (its gate is open then).
    /// A live set only; a disarm queued by an earlier disable is waited
    /// for first, so that none runs on probes being registered again.
    pub(crate) fn module_coming(&self, locked: Locked<'_>, module: &[u8]) {
        let state = self.state();
        if !state.is_live() {
            return;
        }
        // SAFETY: Only `teardown` takes the probes; it cannot run while a
        // caller holds the registry lock (`locked`) on a live set (state
        // machine).
        let Some(p) = (unsafe { self.probes.get_unguarded() }) else {
            return;
        };
        // Most sets have nothing on the module: the load does not wait for
        // their queued disarms.
        if !p.backends.on_module(module) {
            return;
        }
        // Queued only under the registry lock (`disable`), so none is
        // queued again before this returns.
        self.flush_disarm();
        let c = Coming {
            locked,
            set: &self.name,
            module,
            enabled: state == SetState::Enabled,
        };
        // SAFETY: A live set, its disarm run, under the registry lock for
        // the whole call (`locked`).
        unsafe { p.backends.module_coming(&c) };
    }

    /// Unregisters synchronously a set that was never published (rollback).
    pub(crate) fn discard(&self) {
        // The same write may have disabled the set before a later line
        // failed: its queued disarm must not run on probes freed here.
        self.flush_disarm();
        if self.state().is_live() {
            self.retire_now();
        }
    }

    /// Retires the set here and now ([`Set::discard`], and the drop safety
    /// net): to `Retiring` (unless it is there already), then the teardown
    /// and, for an API set, the completion.
    fn retire_now(&self) {
        match lifecycle::retire_now(self.state()) {
            Ok(Some(to)) => self.set_state(to),
            Ok(None) => {}
            Err(r) => {
                // Only a freed set is refused (both callers check for it
                // first): its teardown ran already, and a second one would
                // retire and free its probes twice. Nothing to do.
                pr_warn!(
                    "set {}: not retired again: {}\n",
                    BStr(&self.name).as_str(),
                    r.as_str()
                );
                return;
            }
        }
        if self.teardown() {
            self.complete();
        }
    }

    fn step(&self, op: Op) -> Result<Option<SetState>, Failed> {
        lifecycle::next(self.state(), op).map_err(|r| {
            Failed::errno(
                r.errno(),
                format_args!("set {}: {}", BStr(&self.name), r.as_str()),
            )
        })
    }

    fn frozen(&self) -> (u64, u64) {
        (
            self.final_counts.0.load(Ordering::Relaxed),
            self.final_counts.1.load(Ordering::Relaxed),
        )
    }
}
