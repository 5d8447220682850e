// SPDX-License-Identifier: GPL-2.0

//! The fprobe backend: `p:SET/NAME SYM` at +0 and `r:SET/NAME SYM` on
//! functions that ftrace can trace, in the core kernel's text, and the
//! members of `MOD:GLOB` and `*:GLOB` lines in a module's text. The set
//! holds such a module loaded from its `create` until it is unregistered
//! (disabled too: `enable` registers the same addresses again), as a
//! kprobe_multi link holds the modules of its addresses
//! ([`HeldModules`]); an explicit `MOD:SYM` line stays on a kprobe, which
//! waits for its module and comes back with it, as `kprobe_events`' does.
//!
//! A set's entry probes share one `struct fprobe`, its return probes
//! another. Arming one is one `register_fprobe_ips`: one filter update and
//! one text-patching pass for all its functions, where int3 kprobes at +0
//! (ftrace-based kprobes) pay one filter update and one patching pass each.
//! Disarming is one `unregister_fprobe`, and so is the teardown.
//!
//! Semantics stay those of kprobes: a hit counts only while the set's gate
//! is open; two probes on one function both count. What differs: an fprobe
//! is not listed in `kprobes/list` (it is in `enabled_functions`), and the
//! kprobe blacklist, which guards the int3 path, is checked here for a
//! line that names its function ([`blacklist`]); a glob's members are not
//! checked (as for BPF's `kprobe_multi`). `p!:` and `r!:` keep a target on
//! int3 kprobes.
//!
//! The kernel's fprobe is not the same on every release we build for
//! ([`kcompat::FPROBE_FGRAPH`]):
//!
//! | | through 6.13 (6.12) | on fgraph (6.14 on, 7.3) |
//! |---|---|---|
//! | ops | one `ftrace_ops` per fprobe | one shared `ftrace_ops` (entry) and `fgraph_ops` (return) for all |
//! | return side | a rethook pool per fprobe, sized below | 1 shadow-stack word per return fprobe per call |
//! | `rN:` | sizes the pool | served by a kretprobe: only it has a pool |
//! | misses | recursion refusals and an empty pool | a failed shadow-stack reservation only |
//! | `unregister_fprobe` waits | RCU-tasks-rude + RCU-tasks + RCU | one RCU grace period, expedited here |
//!
//! On fgraph, a function whose return fprobes need more than 32 words misses
//! every return on all of them, so a set's `r:` go to kretprobes once the
//! module has [`kcompat::RETURN_FPROBE_SETS`] sets with fprobe-served `r:`
//! ([`anchor::count_return_side`]): one return fprobe each, so no function
//! ever carries more than that many of ours.
//!
//! # Stale return frames (fgraph)
//!
//! A task asleep inside a function keeps the address of the return
//! fprobe that saw it enter on its shadow stack, for as long as it sleeps:
//! `unregister_fprobe` waits for handlers, not for such tasks. When it
//! returns, `fprobe_return` calls the `exit_handler` of whatever fprobe is
//! registered at that address by then, without checking that it has one.
//! If the return side was freed and an entry-only fprobe registered where
//! it was, that is a call through NULL (reproduced on Debian's 7.3.4 image:
//! `RIP: 0010:0x0`, `fprobe_return+0x148`). So an address that ever held a
//! return fprobe of ours never holds an entry-only one, by construction:
//! return sides live in vmalloc memory at the start of their allocation
//! ([`Side::exit`] returns a `VBox`, and nothing else makes one), entry sides
//! in vmalloc memory half a page into theirs ([`home`]), the anchor in the
//! module's data; other users' fprobes (a BPF `kretprobe.multi` link's) in
//! kmalloc memory, never in vmalloc's range. A stale frame therefore finds
//! nothing registered (skipped), or a later return side of ours, whose
//! handler looks the function up in its own slots: at worst one extra
//! return counted. What other fprobe users can still meet, and what
//! `fprobe_return` would need, is in `docs/fprobe.md`.
//! `stats` names the backend of each probe. The kernel's own recursion
//! refusals are not counted on fgraph: its tracer drops the call before
//! any handler of ours runs, so neither it nor we can count them.

use core::marker::PhantomPinned;
use core::pin::Pin;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use kernel::alloc::AllocError;
use kernel::error::to_result;
use kernel::ffi::{c_int, c_ulong};
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::backend::{Added, Ctx, Fit, Found, ProbeView, SetBackend, Target};
use crate::bindings;
use crate::command::{CreateOptions, ProbeKind};
use crate::error::{refusal, Failed};
use crate::errtext::Site;
use crate::events::tracefs::Fired;
use crate::ftrace;
use crate::kallsyms::{self, HeldModules};
use crate::kcompat::{self, FprobeRegs};
use crate::probe::Meta;
use crate::rcu;
use crate::retpool::{self, Machine};
use crate::sort;
use crate::symname::split_module;

mod anchor;
mod blacklist;
mod handlers;
mod home;

pub(crate) use anchor::release_fgraph_anchor;
use blacklist::Blacklist;
use home::EntryHome;

/// The `sets` fields that count a set's entry and return probes.
const ENTRY_FIELD: &str = "fprobes";
const EXIT_FIELD: &str = "fretprobes";

/// In [`Side::missed`]: `fp.nmissed` counts the current arm's misses, not yet folded in.
const LIVE: u64 = 1 << 63;

/// One probe: the function's ftrace call site and its counter.
struct FSlot {
    fentry: usize,
    meta: Meta,
}

/// The entry or the return side of a set's fprobes.
///
/// # Invariants
///
/// `fp` is the first field of this `repr(C)` struct, so the `fprobe`
/// pointer a handler gets is a pointer to its `Side`; a side is pinned
/// (its set keeps it in the `Pin` that [`Side::entry`] or [`Side::exit`]
/// made), so it never moves. Both are in vmalloc memory, an entry side at
/// [`home::ENTRY_OFFSET`] into its allocation, a return side at 0: the only
/// constructors are those two. `slots` is sorted by `fentry` and `ips` holds
/// each `fentry` once, from `attach` on; neither changes after it. `armed`
/// says whether `fp` is registered.
#[repr(C)]
struct Side {
    fp: Opaque<bindings::fprobe>,
    slots: KVVec<FSlot>,
    ips: KVVec<c_ulong>,
    /// Entry side (else return side), and `--bare` handlers.
    entry: bool,
    bare: bool,
    /// The kernel's `nr_maxactive` (return side; 0: its default; through
    /// 6.13 only).
    nr_maxactive: c_int,
    /// This side is counted among the return sides ([`anchor::count_return_side`]).
    counted: AtomicBool,
    /// Return instances asked for (`rN:`), summed; 0: none asked.
    maxactive: usize,
    /// Return probes on the functions without `N`.
    default_instances: usize,
    armed: AtomicBool,
    /// Misses of earlier arms (`register_fprobe_ips` resets `nmissed`),
    /// and [`LIVE`] while `fp.nmissed` holds the current arm's: one word,
    /// so that a reader finds each arm's misses in exactly one place.
    missed: AtomicU64,
    name: &'static str,
    field: &'static str,
    /// Handlers find the side from `fp`: it must not move.
    _pin: PhantomPinned,
}

impl Side {
    /// A new return side, in vmalloc memory at the start of its
    /// allocation: never at an address that kmalloc hands out, nor at an
    /// entry side's (see "Stale return frames" in the module
    /// documentation).
    fn exit(bare: bool) -> Result<Pin<VBox<Self>>, AllocError> {
        VBox::pin(Self::new(false, bare), GFP_KERNEL)
    }

    fn new(entry: bool, bare: bool) -> Self {
        let mut side = Self {
            fp: Opaque::uninit(),
            slots: KVVec::new(),
            ips: KVVec::new(),
            entry,
            bare,
            nr_maxactive: 0,
            counted: AtomicBool::new(false),
            maxactive: 0,
            default_instances: 0,
            armed: AtomicBool::new(false),
            missed: AtomicU64::new(0),
            name: if entry { "fprobe" } else { "fretprobe" },
            field: if entry { ENTRY_FIELD } else { EXIT_FIELD },
            _pin: PhantomPinned,
        };
        side.fp = Opaque::new(side.fresh());
        side
    }

    /// Adds a probe; on the return side, `instances` is what its `rN:`
    /// asks for (`None`: a kretprobe's default). Build time only.
    fn add(self: Pin<&mut Self>, slot: FSlot, instances: Option<u32>) -> Result<(), AllocError> {
        // SAFETY: Only fields are written; nothing is moved out of `self`.
        let this = unsafe { self.get_unchecked_mut() };
        if !this.entry {
            match instances {
                Some(n) => this.maxactive = this.maxactive.saturating_add(n as usize),
                None => this.default_instances = this.default_instances.saturating_add(1),
            }
        }
        this.slots.push(slot, GFP_KERNEL)
    }

    /// A never-registered fprobe with this side's handlers.
    ///
    /// `unregister_fprobe` frees the filter hashes of the fprobe's ops but
    /// leaves the ops pointing to them (`ftrace_free_filter`), and so does
    /// a failed `register_fprobe_ips` (`fprobe_fail_cleanup`), so the same
    /// `struct fprobe` cannot be registered again as it is: registering it
    /// anew crashed in `alloc_and_copy_ftrace_hash` (TCG, test kernel).
    /// Each arm therefore starts from a fresh one.
    fn fresh(&self) -> bindings::fprobe {
        if self.entry {
            bindings::fprobe {
                entry_handler: Some(if self.bare {
                    handlers::bare_entry
                } else {
                    handlers::on_entry
                }),
                ..Default::default()
            }
        } else {
            kcompat::fprobe_with_instances(
                bindings::fprobe {
                    exit_handler: Some(if self.bare {
                        handlers::bare_exit
                    } else {
                        handlers::on_exit
                    }),
                    ..Default::default()
                },
                self.nr_maxactive,
            )
        }
    }

    /// Counts a hit on every probe of the function whose call site is
    /// `ip`. Called from the fprobe handlers: no locks, no allocation.
    #[inline(always)]
    fn hit(
        &self,
        ip: usize,
        ret_ip: usize,
        regs: *mut FprobeRegs,
        kind: bindings::batchprobe_kind,
    ) {
        let from = self.slots.partition_point(|s| s.fentry < ip);
        for s in self.slots.get(from..).unwrap_or(&[]) {
            if s.fentry != ip {
                break;
            }
            // SAFETY: `regs` is the handler's own (live) argument; the
            // accessor is notrace (null where fprobes give no pt_regs).
            let pt_regs = || unsafe { bindings::bp_fprobe_pt_regs(regs) };
            // Only for a probe whose arguments read them.
            let fetch_regs = || {
                if s.meta.has_args() {
                    // SAFETY: As above.
                    unsafe { bindings::bp_fprobe_fetch_regs(regs) }
                } else {
                    core::ptr::null_mut()
                }
            };
            let fired = || {
                if kind == bindings::batchprobe_kind_BATCHPROBE_KRETPROBE {
                    Fired::Return {
                        func: ip,
                        ret_ip,
                        regs: pt_regs(),
                        fetch_regs: fetch_regs(),
                        edata: core::ptr::null(),
                    }
                } else {
                    Fired::Entry {
                        ip,
                        regs: pt_regs(),
                        fetch_regs: fetch_regs(),
                    }
                }
            };
            // Described only for a client's handler (never, today: API
            // sets stay on kprobes).
            s.meta.hit(fired, || bindings::batchprobe_hit {
                kind,
                ip,
                regs: pt_regs(),
                ..Default::default()
            });
        }
    }

    /// Sorts the probes and lists their functions once each.
    fn prepare(self: Pin<&mut Self>) -> Result {
        // SAFETY: Only fields are written; nothing is moved out of `self`.
        let this = unsafe { self.get_unchecked_mut() };
        this.prepare_fields()
    }

    /// [`Side::prepare`], on the side's fields.
    fn prepare_fields(&mut self) -> Result {
        sort::sort_by_key(&mut self.slots, |s| s.fentry);
        let mut ips = KVVec::with_capacity(self.slots.len(), GFP_KERNEL)?;
        for s in self.slots.iter() {
            if ips.last() != Some(&(s.fentry as c_ulong)) {
                ips.push(s.fentry as c_ulong, GFP_KERNEL)?;
            }
        }
        self.ips = ips;
        if !self.entry && !self.slots.is_empty() && !self.counted.swap(true, Ordering::Relaxed) {
            // INVARIANT: counted once, released once in `release`.
            anchor::count_return_side();
        }
        if !self.entry && !self.slots.is_empty() && !kcompat::FPROBE_FGRAPH {
            // The return instances, shared by all the functions: what each
            // `rN:` asked for, and a kretprobe's default (max(10, 2 per
            // possible CPU)) for each `r:`; the kernel's own fprobe default
            // (2 per CPU per function) would miss more returns than the
            // kretprobes `r:` used to be. Within the objpool's limit. The
            // builder charged the set for them (`return_pool_cost`).
            // SAFETY: Only reads the possible-CPU mask.
            let cpus = unsafe { bindings::bp_num_possible_cpus() } as usize;
            let n = retpool::fprobe_instances(self.maxactive, self.default_instances, cpus);
            self.nr_maxactive = c_int::try_from(n).unwrap_or(c_int::MAX);
        }
        // SAFETY: Not registered yet: nothing else reads `fp`.
        unsafe { self.fp.get().write(self.fresh()) };
        Ok(())
    }

    /// Registers the fprobe on every function: one patching pass. Runs
    /// under the registry lock ([`SetBackend::arm`]).
    fn arm(&self) -> Result<(), Failed> {
        if self.ips.is_empty() || self.armed.load(Ordering::Relaxed) {
            return Ok(());
        }
        if !self.entry {
            anchor::hold()?;
        }
        // SAFETY: Not registered (`armed` is false; arm and disarm are
        // serialised, and a disarm's `unregister_fprobe` has returned), so
        // neither the kernel nor a handler reads `fp`. Of this module's
        // code only `Side::missed` reads it (`nmissed`), from `sets` and
        // `stats` readers, which hold the registry lock, as this caller
        // does, or from the teardown, which runs when nothing arms the set
        // any more. So no read of `fp` overlaps this write.
        unsafe { self.fp.get().write(self.fresh()) };
        let n = c_int::try_from(self.ips.len()).unwrap_or(c_int::MAX);
        // SAFETY: The fprobe is not registered, and pinned with its side
        // (type invariant); the kernel only reads the array.
        let ret = unsafe {
            bindings::register_fprobe_ips(self.fp.get(), self.ips.as_ptr().cast_mut(), n)
        };
        if let Err(e) = to_result(ret) {
            // `register_fprobe_ips` left the ops pointing to freed filter
            // hashes (`fprobe_fail_cleanup`): the next arm starts from a
            // fresh fprobe, as every arm does.
            return Err(Failed::new(
                e,
                format_args!(
                    "{} on {} functions: register_fprobe_ips failed: {}",
                    self.name,
                    self.ips.len(),
                    refusal(Site::Fprobe, e)
                ),
            ));
        }
        // From here on `fp.nmissed` counts this arm's misses.
        self.missed.fetch_or(LIVE, Ordering::Release);
        // INVARIANT: registered just now.
        self.armed.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Unregisters the fprobe, if registered: one patching pass. Returns
    /// `false` if the kernel refused (the fprobe may still be called).
    fn disarm(&self) -> bool {
        if !self.armed.load(Ordering::Relaxed) {
            return true;
        }
        // SAFETY: Registered (`armed`); `unregister_fprobe` returns once no
        // handler runs any more: through 6.13 ftrace's RCU-tasks waits for
        // the fprobe's own dynamic ops; on fgraph the shared ops' handlers
        // look fprobes up under `rcu_read_lock_sched`, and unregistering
        // waits one RCU grace period after taking ours out.
        if let Err(e) = to_result(unsafe { bindings::unregister_fprobe(self.fp.get()) }) {
            pr_warn!(
                "{}: unregister_fprobe failed, errno {}\n",
                self.name,
                e.to_errno()
            );
            return false;
        }
        // Unregistered: no handler counts a miss any more, so `nmissed` is
        // final; fold it in and clear `LIVE` in one step. A reader that saw
        // `LIVE` before this reads `nmissed` after it and still finds this
        // arm's misses once: `fp` stays as it is until the next `arm`
        // rewrites it, which cannot run while a reader holds the registry
        // lock.
        let nmissed = self.nmissed();
        let _ = self
            .missed
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |m| {
                Some((m & !LIVE).wrapping_add(nmissed))
            });
        // INVARIANT: unregistered just now.
        self.armed.store(false, Ordering::Relaxed);
        true
    }

    /// Gives back this side's place among the return sides, once it is
    /// unregistered for good.
    fn release(&self) {
        if self.counted.swap(false, Ordering::Relaxed) {
            anchor::uncount_return_side();
        }
    }

    /// The fprobe's own miss count since it was last registered.
    fn nmissed(&self) -> u64 {
        // SAFETY: `fp` is live. The kernel's handlers update `nmissed`
        // concurrently (a plain C counter, as in every fprobe): read it
        // once, volatile (`READ_ONCE`). This module writes `fp` only in
        // `prepare`, before the set is published, and in `arm`, under the
        // registry lock; a caller here holds that lock (`sets`, `stats`),
        // or is a disarm (serialised with `arm`), or the teardown (after
        // which nothing arms the set): no write of ours overlaps the read.
        unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*self.fp.get()).nmissed)) as u64 }
    }

    /// Every miss of this side: earlier arms' and the current one's.
    /// Called with the registry lock held (`sets`, `stats`) or from the
    /// teardown: never while `arm` rewrites `fp`.
    fn missed(&self) -> u64 {
        let m = self.missed.load(Ordering::Acquire);
        let live = if m & LIVE != 0 { self.nmissed() } else { 0 };
        (m & !LIVE).wrapping_add(live)
    }
}

/// The bytes of return-instance pool a return side would keep with
/// `maxactive` and `defaults` as its instances.
fn pool_bytes(maxactive: usize, defaults: usize, m: Machine) -> usize {
    let n = retpool::fprobe_instances(maxactive, defaults, m.cpus);
    kcompat::fprobe_return_pool_bytes(n, m)
}

/// A set's fprobes: entry probes and return probes.
pub(crate) struct FprobeSet {
    /// The entry side, in its [`EntryHome`] (a page of vmalloc memory).
    entry: Pin<VBox<EntryHome>>,
    /// Made with the first return probe (a page of vmalloc memory: sets
    /// without `r:` do not pay it).
    exit: Option<Pin<VBox<Side>>>,
    /// `--bare` handlers (for the return side, when it is made).
    bare: bool,
    /// kprobes' blacklist, read for the set's first explicit line and
    /// dropped once the set is built ([`blacklist`]).
    blacklist: Option<Result<Blacklist>>,
    /// The modules of its `MOD:GLOB` members, held from `create` until the
    /// set's teardown unregistered its fprobes.
    modules: HeldModules,
}

// SAFETY: The fprobes are only handed to the kernel's own locked API,
// counters are atomic, and slots point to their set's gate, which outlives
// them; the blacklist is a vmalloc'ed buffer it owns, only read.
unsafe impl Send for FprobeSet {}
// SAFETY: See `Send`.
unsafe impl Sync for FprobeSet {}

impl FprobeSet {
    /// No probes yet.
    pub(crate) fn new(options: &CreateOptions) -> Result<Self, AllocError> {
        Ok(Self {
            entry: Side::entry(options.bare)?,
            exit: None,
            bare: options.bare,
            blacklist: None,
            modules: HeldModules::new(),
        })
    }

    /// The entry side, then the return side if made.
    fn sides(&self) -> impl Iterator<Item = &Side> {
        Iterator::chain(core::iter::once(&self.entry.side), self.exit.as_deref())
    }

    /// Calls `f` with the name of each module it holds loaded (its
    /// fprobes are on their text).
    pub(crate) fn for_each_module(&self, f: impl FnMut(&[u8])) {
        self.modules.for_each_name(f);
    }

    /// Whether the return side holds a probe.
    fn has_returns(&self) -> bool {
        self.exit.as_ref().is_some_and(|s| !s.slots.is_empty())
    }

    /// The return side, made on first use.
    fn exit_side(&mut self) -> Result<Pin<&mut Side>, AllocError> {
        let side = match &mut self.exit {
            Some(side) => side,
            none => none.insert(Side::exit(self.bare)?),
        };
        Ok(side.as_mut())
    }
}

impl SetBackend for FprobeSet {
    fn name(&self) -> &'static str {
        "fprobe"
    }

    /// Asks ftrace whether the function is traceable, and hands its call
    /// site on to `add`.
    fn fit(&self, ctx: &Ctx<'_>, t: &Target<'_>) -> (Fit, Found) {
        let no = (Fit::No, Found::default());
        let kind_fits = match t.kind {
            ProbeKind::Kprobe => t.offset == 0,
            // On fgraph an fprobe has no instance pool for `rN:` to size, and
            // a set past the return-data limit would miss every return: a
            // kretprobe serves those (see the module documentation).
            ProbeKind::Kretprobe { maxactive } => {
                !(kcompat::FPROBE_FGRAPH && maxactive.is_some())
                    && (self.has_returns() || anchor::return_side_free())
            }
            ProbeKind::Direct => false,
        };
        // Only functions a walk found (`text`): of the core kernel's text,
        // or a `MOD:GLOB` member (its address is its function's). An
        // explicit `MOD:SYM` line, which the kernel resolves, stays on a
        // kprobe: it waits for its module, and comes back with it.
        let member = |start| t.addr == start && split_module(t.symbol).is_some();
        let Some((addr, _)) = t
            .text
            .filter(|&(start, _)| kind_fits && !t.int3 && (t.addr == 0 || member(start)))
        else {
            return no;
        };
        match ftrace::traceable(ctx.locked, addr, t.site) {
            Ok(fentry) => (
                Fit::Best,
                Found {
                    call_site: Some(fentry),
                },
            ),
            Err(_) => no,
        }
    }

    fn add(&mut self, ctx: &Ctx<'_>, t: &Target<'_>, found: Found) -> Result<Added, Failed> {
        let Some((addr, _)) = t.text else {
            return Ok(Added::refused(ENOENT, ftrace::NOT_IN_TEXT));
        };
        // `fit` found the call site (it serves nothing else).
        let fentry = match found
            .call_site
            .map_or_else(|| ftrace::traceable(ctx.locked, addr, t.site), Ok)
        {
            Ok(f) => f,
            Err(e) => return Ok(Added::refused(e, refusal(Site::Ftrace, e))),
        };
        // What kprobe_events refuses on a named function, a control line
        // may not have either (a glob member may, as with kprobe_multi).
        if t.explicit && t.line.is_some() {
            if let Err(r) = blacklist::judge(&mut self.blacklist, addr, t.symbol) {
                return Ok(Added::Refused(r));
            }
        }
        // A module's function, taken: its module held from now on.
        if let Some((m, _)) = split_module(t.symbol) {
            match self.modules.hold(m) {
                Ok(()) => {}
                Err(e) if e == ENOENT => return Ok(Added::refused(e, kallsyms::GONE)),
                Err(e) => return Err(e.into()),
            }
        }
        let meta = Meta::new(ctx.gate, t)?;
        let (side, instances) = match t.kind {
            ProbeKind::Kretprobe { maxactive } => (self.exit_side()?, maxactive),
            _ => (self.entry.as_mut().side(), None),
        };
        side.add(FSlot { fentry, meta }, instances)?;
        Ok(Added::Yes)
    }

    fn attach(&mut self, _skip: &mut dyn FnMut(&[u8], Error)) -> Result<(), Failed> {
        self.blacklist = None;
        self.entry.as_mut().side().prepare()?;
        if let Some(exit) = &mut self.exit {
            exit.as_mut().prepare()?;
        }
        Ok(())
    }

    fn return_pool_cost(&self, t: &Target<'_>, m: Machine) -> usize {
        let ProbeKind::Kretprobe { maxactive } = t.kind else {
            return 0;
        };
        let (now_ma, now_d) = self
            .exit
            .as_ref()
            .map_or((0, 0), |s| (s.maxactive, s.default_instances));
        let (ma, d) = match maxactive {
            Some(n) => (now_ma.saturating_add(n as usize), now_d),
            None => (now_ma, now_d.saturating_add(1)),
        };
        retpool::growth(pool_bytes(now_ma, now_d, m), pool_bytes(ma, d, m))
    }

    fn arm(&self) -> Result<(), Failed> {
        self.entry.side.arm()?;
        let Some(exit) = &self.exit else {
            return Ok(());
        };
        exit.arm().inspect_err(|_| {
            self.entry.side.disarm();
        })
    }

    fn disarm(&self) {
        for s in self.sides() {
            s.disarm();
        }
    }

    fn retire(&self, _one_by_one: bool) -> bool {
        // On fgraph each unregister waits one plain RCU grace period, which
        // expediting shortens (through 6.13 it waits for RCU-tasks, which
        // it does not: there the teardown runs unexpedited, as the other
        // ftrace-based backends do).
        let _fast = kcompat::FPROBE_FGRAPH.then(rcu::expedite);
        let mut gone = true;
        for s in self.sides() {
            let ok = s.disarm();
            if ok {
                s.release();
            }
            gone &= ok;
        }
        // No fprobe is left on a module's text: it may unload.
        if gone {
            self.modules.release();
        }
        gone
    }

    fn ftrace_based(&self) -> bool {
        true
    }

    fn tally(&self, f: &mut dyn FnMut(&'static str, usize)) {
        // Both fields, whether or not the return side was made.
        f(ENTRY_FIELD, self.entry.side.slots.len());
        f(EXIT_FIELD, self.exit.as_ref().map_or(0, |s| s.slots.len()));
    }

    fn each_from(&self, from: usize, f: &mut dyn FnMut(&ProbeView<'_>) -> bool) {
        // The entry side's probes, then the return side's.
        let mut from = from;
        for side in self.sides() {
            let Some(slots) = side.slots.get(from..) else {
                from -= side.slots.len();
                continue;
            };
            for s in slots {
                if !f(&s.meta.view(side.name, 0)) {
                    return;
                }
            }
            from = 0;
        }
    }

    fn missed_unattributed(&self) -> u64 {
        self.sides().map(|s| s.missed()).sum()
    }

    fn write_extra(&self, w: &mut dyn core::fmt::Write) -> core::fmt::Result {
        for s in self.sides().filter(|s| !s.slots.is_empty()) {
            writeln!(
                w,
                "  {} functions={} armed={} missed={}",
                s.field,
                s.ips.len(),
                u8::from(s.armed.load(Ordering::Relaxed)),
                s.missed()
            )?;
        }
        Ok(())
    }
}
