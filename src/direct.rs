// SPDX-License-Identifier: GPL-2.0

//! The ftrace-direct backend: `d:SET/NAME SYM` and `d:SET GLOB`.
//!
//! A set's direct functions share one `ftrace_ops`: its filter is filled
//! with every function address in one `ftrace_set_filter_ips` call, and one
//! `register_ftrace_direct` patches all their fentry sites to call a
//! batchprobe trampoline ([`crate::trampoline`]) in one text-patching pass.
//! Detach is one `unregister_ftrace_direct`; `modify_ftrace_direct` switches
//! a live set between trampolines.
//!
//! Trampolines are shared by all sets, so a handler finds the function it
//! was called for in a global, sorted index published through RCU
//! ([`index`], with the handlers themselves).

use core::pin::Pin;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use crate::gate::Gate;

use kernel::alloc::AllocError;
use kernel::error::to_result;
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::addrset;
use crate::backend::{Added, Ctx, Fit, ProbeView, SetBackend, Target};
use crate::bindings;
use crate::btf;
use crate::command::{CreateOptions, DirectMode, ProbeKind};
use crate::error::{generic, pure, refusal, BStr, Failed};
use crate::errtext::Site;
use crate::ftrace::{self, FtraceOps, Switch};
use crate::kcompat;
use crate::kvec;
use crate::locked::Locked;
use crate::probe::Meta;
use crate::rcu;
use crate::signature::{self, Refusal};
use crate::trampoline;

mod exit;
mod index;

use exit::{exit_attached, exit_detached, exit_quiesce};

pub(crate) use index::missed;
use index::{count, taken};

/// One traced function of a direct set.
pub(crate) struct DirectSlot {
    start: usize,
    end: usize,
    /// The ftrace call site: what the filter is given.
    fentry: usize,
    /// Its hit counter, its set's gate, its names and its index.
    meta: Meta,
    /// Calls ftrace's recursion lock refused (see [`missed`]).
    missed: AtomicU64,
    last_arg: AtomicU64,
    /// Exit mode: returns counted, and the last return value.
    exits: AtomicU64,
    last_ret: AtomicU64,
    /// Unique among every slot made since load, never 0: the exit
    /// trampoline's token for "the slot this call was counted in".
    id: u64,
    /// Named on a line of its own (or by an API client), not a glob member.
    explicit: bool,
    /// A glob member that another tracer holds (a foreign direct caller or
    /// an IPMODIFY ftrace user): left out of the attach (see
    /// [`DirectSet::attach_all`]). Set at most once, by the attach's
    /// bisection, after the slot is in the published index (handlers may
    /// be reading the slot's counters then), and before the set is
    /// published to `sets` and `stats` readers, the only readers of this
    /// flag besides the build itself: atomic, so that no `&mut` to a slot
    /// a handler may see is ever made.
    refused: AtomicBool,
}

impl DirectSlot {
    /// Calls not delivered: refused by ftrace's recursion lock.
    pub(crate) fn missed(&self) -> u64 {
        self.missed.load(Ordering::Relaxed)
    }

    /// The first argument of the last recorded call (record mode).
    pub(crate) fn last_arg(&self) -> u64 {
        self.last_arg.load(Ordering::Relaxed)
    }

    /// Returns counted (exit mode).
    pub(crate) fn exits(&self) -> u64 {
        self.exits.load(Ordering::Relaxed)
    }

    /// The last return value recorded (exit mode).
    pub(crate) fn last_ret(&self) -> u64 {
        self.last_ret.load(Ordering::Relaxed)
    }

    /// The symbol.
    pub(crate) fn symbol(&self) -> &[u8] {
        self.meta.symbol()
    }

    /// Counts a call, records its first argument in record mode, and
    /// hands it to the set's API client, if any, with the arguments the
    /// trampoline saved below `frame` (null: none saved, as for fprobe).
    /// Returns the slot's id if the call was counted (the set's gate was
    /// open), else 0: the exit trampoline's token.
    #[inline(always)]
    fn hit(&self, arg0: usize, record: bool, frame: *const usize) -> u64 {
        // Not `Meta::hit`: the argument is recorded between the count and
        // the delivery, and the token depends on whether it counted.
        let Some(gate) = self.meta.count() else {
            return 0;
        };
        if record {
            self.last_arg.store(arg0 as u64, Ordering::Relaxed);
        }
        if gate.has_client() {
            let mut args = [0usize; 6];
            args[0] = arg0;
            if !frame.is_null() {
                for (i, a) in args.iter_mut().enumerate() {
                    // SAFETY: The trampoline pushed rdi, rsi, rdx, rcx,
                    // r8 and r9 right below its frame pointer `frame`,
                    // and they stay there until the handler returns.
                    *a = unsafe { frame.sub(i + 1).read() };
                }
            }
            let hit = bindings::batchprobe_hit {
                kind: bindings::batchprobe_kind_BATCHPROBE_DIRECT,
                ip: self.start,
                regs: core::ptr::null_mut(),
                args: args.map(|a| a),
            };
            gate.deliver(self.meta.index(), &hit);
        }
        self.id
    }
}

impl DirectSlot {
    /// Counts a return with its value, while the set's gate is open, if
    /// the call was counted in this very slot (`token`, from [`Self::hit`]):
    /// a task that entered through another set, or while the gate was
    /// closed, or refused by the recursion guard, is not charged here.
    #[inline(always)]
    fn exit_hit(&self, retval: usize, token: u64) {
        if token == 0 || token != self.id {
            return;
        }
        if self.meta.is_open() {
            self.exits.fetch_add(1, Ordering::Relaxed);
            self.last_ret.store(retval as u64, Ordering::Relaxed);
        }
    }
}

/// The next [`DirectSlot::id`] (from 1: 0 is "not counted").
static NEXT_SLOT_ID: AtomicU64 = AtomicU64::new(1);

/// The direct part of a set: its `ftrace_ops` and its functions.
///
/// # Invariants
///
/// `slots` never grows once `attach` has run; while `attached`, every ops
/// [`DirectSet::registered`] yields (the per-function ops, else the
/// groups, else `ops`) is registered with the trampoline of `mode`. While
/// `stuck` (never `attached` then), `groups` or `per_function` may hold
/// ops that are still registered. (The C objects, each [`FtraceOps`]' and
/// the fprobe, are pinned in allocations of their own: they never move.)
pub(crate) struct DirectSet {
    ops: FtraceOps,
    /// When another tracer holds some glob members: the rest, attached as
    /// groups of one ops each (see [`DirectSet::attach_all`]). Up to one
    /// per function (every other one taken): vmalloc-backed.
    groups: KVVec<FtraceOps>,
    /// How the functions are attached (benchmark baselines aside: one ops).
    strategy: Strategy,
    /// `Strategy::OpsPerFunction`: one ops per slot, allocated by `attach`.
    per_function: KVVec<FtraceOps>,
    /// `Strategy::Fprobe`: the fprobe.
    fprobe: Pin<KBox<Opaque<bindings::fprobe>>>,
    slots: KVVec<DirectSlot>,
    /// The slots' start addresses, an [`addrset`] table (build time only).
    seen: KVVec<usize>,
    mode: AtomicU8,
    attached: AtomicBool,
    /// Every function passed the exit trampoline's prototype check.
    exit_checked: AtomicBool,
    /// A failed attach's rollback left an ops that ftrace would not let
    /// go of (kept in `groups` or `per_function`): [`DirectSet::detach`]
    /// says so, and the set is kept for good.
    stuck: AtomicBool,
}

// SAFETY: `gate` pointers point into the owning set; the ops is only handed
// to ftrace's own locked API; counters are atomic.
unsafe impl Send for DirectSet {}
// SAFETY: See `Send`.
unsafe impl Sync for DirectSet {}

/// How a direct set attaches its functions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// One `ftrace_ops` for all: one filter update, one patching pass.
    OneOps,
    /// Baseline: one `ftrace_ops` (and patching pass) per function.
    OpsPerFunction,
    /// Baseline: `register_fprobe_ips` (ftrace_ops + fprobe handler).
    Fprobe,
}

/// The fprobe entry handler of `--fprobe` sets: counts like the trampoline.
///
/// # Safety
///
/// Called by the kernel with a live `regs`.
unsafe extern "C" fn fprobe_entry(
    _fp: *mut bindings::fprobe,
    entry_ip: kernel::ffi::c_ulong,
    _ret_ip: kernel::ffi::c_ulong,
    regs: *mut kcompat::FprobeRegs,
    _data: *mut kernel::ffi::c_void,
) -> kernel::ffi::c_int {
    // SAFETY: The kernel passes the live registers of the traced call; the
    // accessor is notrace.
    let arg0 = unsafe { bindings::bp_fprobe_arg0(regs) } as usize;
    // SAFETY: fprobe calls its handlers holding ftrace's recursion lock,
    // that is with preemption disabled.
    let section = unsafe { rcu::PreemptDisabled::assume() };
    count(&section, entry_ip, arg0, false, core::ptr::null());
    0
}

impl DirectSet {
    /// No functions yet, attached as `options` say: one ops for all, or
    /// a benchmark baseline (`--fprobe`, `--one-by-one`).
    pub(crate) fn for_options(options: &CreateOptions) -> Result<Self, AllocError> {
        let set = Self::new(if options.fprobe {
            Strategy::Fprobe
        } else if options.one_by_one {
            Strategy::OpsPerFunction
        } else {
            Strategy::OneOps
        })?;
        if options.exit {
            // `add` keeps only the functions the exit trampoline can call.
            set.mode.store(DirectMode::Exit as u8, Ordering::Relaxed);
            set.exit_checked.store(true, Ordering::Relaxed);
        }
        Ok(set)
    }

    /// No functions yet.
    pub(crate) fn new(strategy: Strategy) -> Result<Self, AllocError> {
        let fp = bindings::fprobe {
            entry_handler: Some(fprobe_entry),
            ..Default::default()
        };
        Ok(Self {
            ops: FtraceOps::new()?,
            groups: KVVec::new(),
            strategy,
            per_function: KVVec::new(),
            fprobe: KBox::pin(Opaque::new(fp), GFP_KERNEL)?,
            slots: KVVec::new(),
            seen: KVVec::new(),
            mode: AtomicU8::new(DirectMode::Count as u8),
            attached: AtomicBool::new(false),
            exit_checked: AtomicBool::new(false),
            stuck: AtomicBool::new(false),
        })
    }

    /// Number of functions (attached, or to attach).
    pub(crate) fn len(&self) -> usize {
        self.iter().count()
    }

    /// Every function (attached, or to attach).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &DirectSlot> {
        self.slots
            .iter()
            .filter(|s| !s.refused.load(Ordering::Relaxed))
    }

    /// The glob members left out because another tracer holds them.
    fn refused(&self) -> impl Iterator<Item = &DirectSlot> {
        self.slots
            .iter()
            .filter(|s| s.refused.load(Ordering::Relaxed))
    }

    /// The function added `i`-th, refused or not (what `attach` errors name).
    fn get(&self, i: usize) -> Option<&DirectSlot> {
        self.slots.get(i)
    }

    /// The current trampoline.
    pub(crate) fn mode(&self) -> DirectMode {
        // Only `DirectMode as u8` is ever stored.
        DirectMode::from_u8(self.mode.load(Ordering::Relaxed)).unwrap_or(DirectMode::Count)
    }

    /// Whether a function at `start` was added already.
    fn has(&self, start: usize) -> bool {
        addrset::contains(&self.seen, start)
    }

    /// Allocates what `attach` needs beyond the slots (before `attach`),
    /// and drops what only the build needed.
    fn prepare(&mut self) -> Result {
        self.seen = KVVec::new();
        if self.strategy == Strategy::OpsPerFunction {
            let mut v = KVVec::with_capacity(self.slots.len(), GFP_KERNEL)?;
            for _ in 0..self.slots.len() {
                v.push(FtraceOps::new()?, GFP_KERNEL)?;
            }
            self.per_function = v;
        }
        Ok(())
    }

    /// Adds the function `t` at `[start, start + size)`, whose ftrace call
    /// site is `fentry`, of the set whose gate is `gate` (before `attach`
    /// only).
    fn push(
        &mut self,
        gate: *const Gate,
        t: &Target<'_>,
        start: usize,
        size: usize,
        fentry: usize,
    ) -> Result {
        if addrset::needs_growth(self.slots.len(), self.seen.len()) {
            let len = addrset::grown_len(self.seen.len());
            let mut bigger = KVVec::from_elem(0usize, len, GFP_KERNEL)?;
            for &k in self.seen.iter().filter(|&&k| k != 0) {
                addrset::insert(&mut bigger, k);
            }
            self.seen = bigger;
        }
        if addrset::insert(&mut self.seen, start) != addrset::Inserted::New {
            return Err(EEXIST);
        }
        // `gate` is the owning set's gate (`Meta`'s invariant).
        let meta = Meta::new(gate, t)?;
        self.slots.push(
            DirectSlot {
                start,
                end: start.saturating_add(size.max(1)),
                fentry,
                meta,
                missed: AtomicU64::new(0),
                last_arg: AtomicU64::new(0),
                exits: AtomicU64::new(0),
                last_ret: AtomicU64::new(0),
                id: NEXT_SLOT_ID.fetch_add(1, Ordering::Relaxed),
                explicit: t.explicit,
                refused: AtomicBool::new(false),
            },
            GFP_KERNEL,
        )?;
        Ok(())
    }

    /// Publishes the functions in the index, then attaches them all: one
    /// filter update and one `register_ftrace_direct`. On failure nothing
    /// stays attached or indexed, and the error says why (and which
    /// function, as its index in the order of `push`, when it knows).
    ///
    /// If that fails with `EBUSY`, another tracer holds some of the
    /// functions: a foreign direct caller (a BPF trampoline, another
    /// module), or an IPMODIFY ftrace user (livepatch, a kprobe with a post
    /// handler). ftrace refuses such a batch before patching anything, so
    /// refusals are cheap: the functions are bisected into groups, each
    /// registered as an ops of its own, until every refused group is one
    /// function. Glob members so found are left out ([`DirectSet::refused`]);
    /// an explicit one fails the set, named. With k such functions among n
    /// that is O(k log n) registrations, one text-patching pass per group
    /// that attached, and at detach one `unregister_ftrace_direct` (two
    /// RCU-tasks grace periods) per group instead of one in all.
    fn attach_all(&mut self) -> Result<(), (Error, Option<usize>)> {
        if self.slots.is_empty() {
            return Ok(());
        }
        let oom = (ENOMEM, None);
        let mut ips = KVVec::with_capacity(self.slots.len(), GFP_KERNEL).map_err(|_| oom)?;
        for s in self.slots.iter() {
            ips.push(s.fentry, GFP_KERNEL).map_err(|_| oom)?;
        }
        index::lock_index().publish_with(&self.slots, |p| self.slot_index(p))?;
        // Pinned before the first registration: a task may enter a body
        // through the exit trampoline as soon as one ops is live, even one
        // that a failed attach takes down again.
        let exit = self.mode() == DirectMode::Exit;
        if exit {
            exit_attached();
        }
        if let Err(e) = self.register_all(ips) {
            self.unindex();
            // A stuck ops may still send calls through the exit trampoline:
            // it stays counted, as after a failed detach.
            if exit && !self.stuck.load(Ordering::Relaxed) {
                exit_detached();
            }
            return Err(e);
        }
        self.attached.store(true, Ordering::Release);
        Ok(())
    }

    /// [`DirectSet::attach_all`]'s registration of every function (their
    /// fentry sites in `ips`) as the strategy says, bisecting on `EBUSY`.
    /// On failure nothing stays registered.
    fn register_all(
        &mut self,
        mut ips: KVVec<kernel::ffi::c_ulong>,
    ) -> Result<(), (Error, Option<usize>)> {
        let res = match self.strategy {
            Strategy::OneOps => match self.attach_one_ops(&mut ips) {
                Err(e) if e == EBUSY && self.slots.len() > 1 => {
                    drop(ips);
                    return self.attach_groups();
                }
                res => res,
            },
            Strategy::OpsPerFunction => self.attach_per_function(),
            Strategy::Fprobe => {
                let n = ips.len() as i32;
                // SAFETY: The fprobe is live and unregistered, and pinned:
                // it never moves; `ips` holds `n` addresses.
                to_result(unsafe {
                    bindings::register_fprobe_ips(self.fprobe.get(), ips.as_mut_ptr(), n)
                })
            }
        };
        // A single function: the error is about it.
        res.map_err(|e| (e, (self.slots.len() == 1).then_some(0)))
    }

    /// [`DirectSet::attach_all`]'s bisection: attaches the functions in groups,
    /// each as an ops of its own, leaving out (glob) or failing on
    /// (explicit) the single functions another tracer holds.
    fn attach_groups(&mut self) -> Result<(), (Error, Option<usize>)> {
        let oom = (ENOMEM, None);
        let n = self.slots.len();
        // Up to one per function: vmalloc-backed. Both are sized before
        // the first group registers, so that the loop's pushes never
        // allocate (and never fail with groups registered).
        let mut busy: KVVec<usize> = KVVec::with_capacity(n, GFP_KERNEL).map_err(|_| oom)?;
        // Ranges of `slots` still to try; the whole was refused already.
        // Depth first: a split pops one range and pushes its two halves,
        // so at most 2 + log2(n) ranges wait (a few hundred bytes).
        let depth = 2 + (usize::BITS - n.leading_zeros()) as usize;
        let mut todo: KVec<(usize, usize)> =
            KVec::with_capacity(depth, GFP_KERNEL).map_err(|_| oom)?;
        let mid = n / 2;
        todo.push((mid, n), GFP_KERNEL).map_err(|_| oom)?;
        todo.push((0, mid), GFP_KERNEL).map_err(|_| oom)?;
        let mut failed = None;
        while let Some((lo, hi)) = kvec::pop(&mut todo) {
            crate::sched::cond_resched();
            match self.attach_group(lo, hi) {
                Ok(true) => {}
                // Within the capacities reserved above: these pushes do
                // not allocate (an error would only come from a bug).
                Ok(false) if hi - lo == 1 => {
                    if busy.push(lo, GFP_KERNEL).is_err() {
                        failed = Some(oom);
                        break;
                    }
                }
                Ok(false) => {
                    let mid = lo + (hi - lo) / 2;
                    if todo.push((mid, hi), GFP_KERNEL).is_err()
                        || todo.push((lo, mid), GFP_KERNEL).is_err()
                    {
                        failed = Some(oom);
                        break;
                    }
                }
                Err(e) => {
                    failed = Some((e, None));
                    break;
                }
            }
        }
        let explicit = busy
            .iter()
            .copied()
            .find(|&i| self.slots.get(i).is_some_and(|s| s.explicit));
        if failed.is_none() && (explicit.is_some() || self.groups.is_empty()) {
            // An explicit function is taken, or every one is: refused, named.
            failed = Some((EBUSY, explicit.or(busy.first().copied())));
        }
        if let Some(e) = failed {
            self.detach_groups();
            return Err(e);
        }
        for &i in busy.iter() {
            if let Some(s) = self.slots.get(i) {
                s.refused.store(true, Ordering::Relaxed);
            }
        }
        // Their entries must not count calls the other tracer's patching
        // sends elsewhere anyway: drop them from the index.
        self.unindex_where(|s| s.refused.load(Ordering::Relaxed));
        Ok(())
    }

    /// Registers `slots[lo..hi]` as one more ops: `Ok(false)` if another
    /// tracer holds one of them (`EBUSY`, nothing patched).
    fn attach_group(&mut self, lo: usize, hi: usize) -> Result<bool, Error> {
        let mut ips = KVVec::with_capacity(hi - lo, GFP_KERNEL)?;
        for s in self.slots.get(lo..hi).unwrap_or(&[]) {
            ips.push(s.fentry, GFP_KERNEL)?;
        }
        let ops = FtraceOps::new()?;
        self.groups.reserve(1, GFP_KERNEL)?;
        // SAFETY: A new ops, unregistered, kept in `groups` once
        // registered; the trampoline is valid.
        match unsafe { ops.register(&mut ips, trampoline::addr(self.mode())) } {
            Err(e) if e == EBUSY => return Ok(false),
            res => res?,
        }
        // Reserved above: does not allocate, cannot fail.
        let _ = self.groups.push(ops, GFP_ATOMIC);
        Ok(true)
    }

    /// Unregisters every group ops (a failed bisection). If ftrace refuses
    /// one, every group stays and the set is marked stuck.
    fn detach_groups(&mut self) {
        let tramp = trampoline::addr(self.mode());
        // Each failure is logged.
        // SAFETY: Every group ops is registered with `tramp`.
        let res = unsafe {
            FtraceOps::unregister_each(self.groups.iter(), tramp, |e| {
                pr_warn!(
                    "detaching a group of direct calls failed: {}\n",
                    e.to_errno()
                );
            })
        };
        if res.is_ok() {
            kvec::clear(&mut self.groups);
        } else {
            // ftrace may still call the trampoline through a refused ops:
            // the groups stay, and so does the set ([`DirectSet::detach`]).
            self.stuck.store(true, Ordering::Relaxed);
        }
    }

    fn attach_one_ops(&self, ips: &mut KVVec<kernel::ffi::c_ulong>) -> Result {
        // SAFETY: `ops` is unregistered (not attached), and dropped only
        // with the set, once `detach` unregistered it (after a failed
        // detach the set is kept for good); the trampoline is valid.
        unsafe { self.ops.register(ips, trampoline::addr(self.mode())) }
    }

    /// The baseline: one ops, one filter update and one patching pass per
    /// function. Undoes what it did on failure.
    fn attach_per_function(&self) -> Result {
        let ips = self.slots.iter().map(|s| s.fentry);
        // SAFETY: Live, unregistered ops (`attach` allocated them all
        // before the first registration), dropped only with the set, as
        // `ops` is.
        let res = unsafe {
            FtraceOps::register_each(&self.per_function, ips, trampoline::addr(self.mode()))
        };
        res.map_err(|(e, rolled_back)| {
            if !rolled_back {
                // An ops ftrace would not let go of: the set stays.
                self.stuck.store(true, Ordering::Relaxed);
            }
            e
        })
    }

    /// The ops registered while the set is attached (type invariant): the
    /// per-function ones, the groups, or else `ops`.
    fn registered(&self) -> impl Iterator<Item = &FtraceOps> + Clone {
        let per_function = match self.strategy {
            Strategy::OpsPerFunction => &self.per_function[..],
            _ => &[],
        };
        let one =
            (self.strategy == Strategy::OneOps && self.groups.is_empty()).then_some(&self.ops);
        Iterator::chain(
            Iterator::chain(per_function.iter(), self.groups.iter()),
            one,
        )
    }

    /// Detaches every function (one `unregister_ftrace_direct`, which waits
    /// until no task is inside the trampoline for them) and clears their
    /// index entries. Sleeps. Returns `false` if ftrace refused, now or in
    /// a failed attach's rollback (`stuck`): then the functions may still
    /// call the trampoline with this set's ops, so the caller must keep
    /// this set's memory and the module's text for good.
    fn detach(&self) -> bool {
        let mut ok = !self.stuck.load(Ordering::Relaxed);
        if self.attached.swap(false, Ordering::AcqRel) {
            let res = match self.strategy {
                Strategy::Fprobe => {
                    // SAFETY: The fprobe is registered.
                    to_result(unsafe { bindings::unregister_fprobe(self.fprobe.get()) })
                }
                // SAFETY: Every ops `registered` yields is registered with
                // the trampoline of `mode` (type invariant).
                _ => unsafe {
                    FtraceOps::unregister_all(self.registered(), trampoline::addr(self.mode()))
                },
            };
            if let Err(e) = res {
                pr_warn!(
                    "detaching {} direct calls failed (errno {}): their ops and the module stay\n",
                    self.slots.len(),
                    e.to_errno()
                );
                ok = false;
            } else if self.mode() == DirectMode::Exit {
                exit_detached();
            }
        }
        self.unindex();
        ok
    }

    /// The index in `slots` of `slot`, if it is one of this set's: an
    /// address range check, O(1).
    fn slot_index(&self, slot: *const DirectSlot) -> Option<usize> {
        let base = self.slots.as_ptr() as usize;
        let size = core::mem::size_of::<DirectSlot>().max(1);
        let off = (slot as usize).checked_sub(base)?;
        (off % size == 0 && off / size < self.slots.len()).then_some(off / size)
    }

    /// Clears this set's entries in the index: one pass, O(1) per entry.
    fn unindex(&self) {
        self.unindex_where(|_| true);
    }

    /// Clears the index entries of this set's slots that `pick` picks.
    fn unindex_where(&self, pick: impl Fn(&DirectSlot) -> bool) {
        index::lock_index().clear_where(|p| {
            self.slot_index(p)
                .and_then(|i| self.slots.get(i))
                .is_some_and(&pick)
        });
    }

    /// Before a switch to the exit trampoline: the first function it
    /// cannot call, and why (none once every function passed).
    pub(crate) fn exit_refusal(&self, locked: Locked<'_>) -> Result<Option<(&[u8], Refusal)>> {
        if self.exit_checked.load(Ordering::Relaxed) {
            return Ok(None);
        }
        for s in self.iter() {
            if let Some(r) = btf::refusal(locked, s.symbol())? {
                return Ok(Some((s.symbol(), r)));
            }
        }
        self.exit_checked.store(true, Ordering::Relaxed);
        Ok(None)
    }

    /// Switches the live set to another trampoline without detaching (to
    /// the exit trampoline only after [`DirectSet::exit_refusal`] found
    /// none).
    pub(crate) fn retarget(&self, mode: DirectMode) -> Result {
        if mode == DirectMode::Exit && !self.exit_checked.load(Ordering::Relaxed) {
            return Err(EINVAL);
        }
        if self.strategy == Strategy::Fprobe {
            return Err(EINVAL);
        }
        if !self.attached.load(Ordering::Acquire) || mode == self.mode() {
            self.mode.store(mode as u8, Ordering::Relaxed);
            return Ok(());
        }
        // Pinned before the first ops moves: a task may enter a body
        // through the exit trampoline as soon as one does.
        let was = self.mode();
        if mode == DirectMode::Exit {
            exit_attached();
        }
        match self.switch_to(mode) {
            Ok(()) => {
                self.mode.store(mode as u8, Ordering::Relaxed);
                if was == DirectMode::Exit {
                    exit_detached();
                }
                Ok(())
            }
            Err(Switch { error, moved_back }) => {
                if mode == DirectMode::Exit {
                    if moved_back {
                        exit_detached();
                    } else {
                        // Some ops still call the exit trampoline, with no
                        // detach to come that knows it (the set's mode is
                        // still `was`): keep it counted among the exit
                        // trampoline's users, so the pin never drops while
                        // tasks can enter through it.
                        pr_warn!(
                            "a set stays partly on the exit trampoline: the module stays pinned\n"
                        );
                    }
                }
                Err(error)
            }
        }
    }

    /// [`DirectSet::retarget`]'s switch of every ops to `mode`'s trampoline;
    /// on failure the ones already moved are moved back (the error says
    /// whether all were).
    fn switch_to(&self, mode: DirectMode) -> core::result::Result<(), Switch> {
        let from = trampoline::addr(self.mode());
        // SAFETY: Every ops `registered` yields is registered (attached)
        // with the trampoline of the current mode (type invariant); both
        // trampolines are valid.
        unsafe { FtraceOps::switch_all(self.registered(), from, trampoline::addr(mode)) }
    }
}

/// Frees the scratch ops' filter, the BTF cache and the index on unload.
///
/// # Safety
///
/// Module exit, in process context: every set is detached, and no command
/// runs or can start.
pub(crate) unsafe fn shutdown() {
    // SAFETY: Process context; the work is the module's static one.
    unsafe { bindings::bp_exit_release_cancel() };
    exit_quiesce();
    // SAFETY: No command runs or can start (the caller's contract).
    unsafe { btf::drop_cache() };
    // SAFETY: No command runs or can start (the caller's contract), so
    // nothing uses the scratch ops any more.
    unsafe { ftrace::free_scratch() };
    index::lock_index().drop_all();
}

impl SetBackend for DirectSet {
    fn name(&self) -> &'static str {
        "direct"
    }

    fn fit(&self, _ctx: &Ctx<'_>, t: &Target<'_>) -> Fit {
        if t.kind == ProbeKind::Direct {
            Fit::Best
        } else {
            Fit::No
        }
    }

    /// Adds a function to attach after the build: it must be ftrace-able
    /// and not traced by another set.
    fn add(&mut self, ctx: &Ctx<'_>, t: &Target<'_>) -> Result<Added, Failed> {
        let Some((addr, size)) = t.text else {
            return Ok(Added::Refused(ENOENT, ftrace::NOT_IN_TEXT));
        };
        if !t.explicit && self.has(addr) {
            // Named on a line of its own too: already in, not a refusal.
            return Ok(Added::Already);
        }
        if self.has(addr) {
            return Ok(Added::Refused(
                EBUSY,
                "already has a direct call from this set: named twice",
            ));
        }
        if taken(addr) {
            return Ok(Added::Refused(
                EBUSY,
                "already has a direct call from another batchprobe set",
            ));
        }
        let fentry = match ftrace::traceable(ctx.locked, addr) {
            Ok(fentry) => fentry,
            Err(e) => return Ok(Added::Refused(e, refusal(Site::Ftrace, e))),
        };
        if self.mode() == DirectMode::Exit {
            let refusal = btf::refusal(ctx.locked, t.symbol).map_err(|e| {
                Failed::new(
                    e,
                    format_args!(
                        "the exit trampoline needs the kernel's BTF \
                         (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): {}",
                        generic(e)
                    ),
                )
            })?;
            if let Some(r) = refusal {
                return Ok(Added::Refused(pure(signature::REFUSED_ERRNO), r.as_str()));
            }
        }
        self.push(ctx.gate, t, addr, size, fentry)?;
        Ok(Added::Yes)
    }

    /// One filter update and one text-patching pass for all the functions.
    fn attach(&mut self, skip: &mut dyn FnMut(&[u8], Error)) -> Result<(), Failed> {
        if self.slots.is_empty() {
            return Ok(());
        }
        self.prepare()?;
        self.attach_all().map_err(|(e, which)| {
            let sym = which
                .and_then(|i| self.get(i))
                .map_or(&b"(one of them)"[..], |s| s.symbol());
            Failed::new(
                e,
                format_args!(
                    "direct {}: attach failed: {}",
                    BStr(sym),
                    refusal(Site::Direct, e)
                ),
            )
            .on_symbol(which.map_or(&[][..], |_| sym))
        })?;
        // Glob members another tracer holds: skipped, as any refusal.
        for s in self.refused() {
            skip(s.symbol(), EBUSY);
        }
        Ok(())
    }

    /// Attached at create: a set's gate alone decides whether calls count.
    fn arm(&self) -> Result<(), Failed> {
        Ok(())
    }

    fn disarm(&self) {}

    fn retire(&self, _one_by_one: bool) -> bool {
        self.detach()
    }

    fn ftrace_based(&self) -> bool {
        true
    }

    fn tally(&self, f: &mut dyn FnMut(&'static str, usize)) {
        f("direct", self.len());
    }

    fn each(&self, f: &mut dyn FnMut(&ProbeView<'_>)) {
        for s in self.iter() {
            // Direct targets have no offset (the parser and the API refuse
            // one), so the view's is 0.
            f(&ProbeView {
                last_arg: Some(s.last_arg()),
                exit: (self.mode() == DirectMode::Exit || s.exits() != 0)
                    .then(|| (s.exits(), s.last_ret())),
                ..s.meta.view("direct", s.missed())
            });
        }
    }
}
