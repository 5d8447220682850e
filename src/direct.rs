// SPDX-License-Identifier: GPL-2.0

//! The ftrace-direct backend: `d:SET/NAME SYM` and `d:SET/ GLOB`.
//!
//! A set's direct functions share one `ftrace_ops`: its filter is filled
//! with every function address in one `ftrace_set_filter_ips` call, and one
//! `register_ftrace_direct` patches all their fentry sites to call a
//! batchprobe trampoline ([`trampoline`]) in one text-patching pass.
//! Detach is one `unregister_ftrace_direct`; `modify_ftrace_direct` switches
//! a live set between trampolines.
//!
//! Trampolines are shared by all sets, so a handler finds the function it
//! was called for in a global, sorted index published through RCU
//! ([`index`], with the handlers themselves).

use core::pin::Pin;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crate::gate::Gate;

use kernel::alloc::AllocError;
use kernel::prelude::*;
use kernel::sync::Arc;
use kernel::types::Opaque;

use crate::backend::{Added, Ctx, Fit, Found, ProbeView, SetBackend, Target};
use crate::bindings;
use crate::command::{CreateOptions, DirectMode, Events, ProbeKind};
use crate::error::{pure, refusal, Failed};
use crate::errtext::Site;
use crate::ftrace::{self, FtraceOps, Switch};
use crate::kallsyms;
use crate::kcompat;
use crate::probe::Meta;
use crate::rcu;
use crate::symname::split_module;

// Pure, and compiled by the host tests too (tests/src/lib.rs): its items
// are `pub` for them.
#[allow(unreachable_pub)]
pub(crate) mod addrset;
mod aggregate;
mod attach;
pub(crate) mod btf;
pub(crate) mod exit;
mod index;
mod modules;
// Pure, and host-tested as `addrset` is.
#[allow(unreachable_pub)]
pub(crate) mod signature;
mod slot;
pub(crate) mod trampoline;

use aggregate::Aggregates;
use btf::Prototypes;
use modules::Modules;
use signature::Refusal;
pub(crate) use slot::DirectSlot;

use exit::{exit_attached, exit_detached, exit_quiesce, exit_watchable};

pub(crate) use index::missed;
use index::{count, taken};

/// Why attaching a direct set failed, and the function it is about (its
/// index in the order the set took them) when that is known.
pub(crate) struct AttachError {
    pub(crate) error: Error,
    pub(crate) slot: Option<usize>,
}

impl From<Error> for AttachError {
    fn from(error: Error) -> Self {
        Self { error, slot: None }
    }
}

impl From<AllocError> for AttachError {
    fn from(_: AllocError) -> Self {
        ENOMEM.into()
    }
}

/// The direct part of a set: its `ftrace_ops` and its functions.
///
/// # Invariants
///
/// `slots` never grows once `attach` has run; while `attached`, every ops
/// [`DirectSet::registered`] yields (the per-function ops, else the
/// groups, else `ops`) is registered, with the trampoline of `mode`
/// unless `partly_exit` (then some are on the exit trampoline). While
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
    /// The kernel's prototypes, which an exit set's `add` checks each
    /// function against (handed over by the set's builder, from the
    /// engine's caches; `None` for the other modes).
    prototypes: Option<Arc<Prototypes>>,
    /// The modules whose functions it calls into, held loaded until its
    /// detach.
    modules: Modules,
    /// A failed attach's rollback left an ops that ftrace would not let
    /// go of (kept in `groups` or `per_function`): [`DirectSet::detach`]
    /// says so, and the set is kept for good.
    stuck: AtomicBool,
    /// `create --hist` (or an API exit set): the functions' call
    /// durations are timed.
    timed: bool,
    /// `create --hist`: and kept in a histogram.
    hist: bool,
    /// An exit set whose return records read the call's arguments: how
    /// many argument registers its mode `exit`'s trampoline keeps (the
    /// highest `$argN` of any of its return records, at most six; 0:
    /// none, the 24-byte frame) ([`trampoline::addr`]). Set by `add`,
    /// before `attach`.
    keep_args: usize,
    /// `create --errors`: their error returns are counted.
    errors: bool,
    /// Their aggregate counters (`--hist` or `--errors`), made by
    /// `prepare`; the slots point into them.
    aggregates: Option<Aggregates>,
    /// A switch to the exit trampoline failed half way and could not move
    /// every ops back: some are on it while `mode` says otherwise. That
    /// switch counted the set among the exit trampoline's users; the
    /// detach, which unregisters each ops from the trampoline it is on,
    /// counts it out.
    partly_exit: AtomicBool,
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
    count(&section, entry_ip, arg0, false, core::ptr::null(), false);
    0
}

impl DirectSet {
    /// No functions yet, attached as `options` say: one ops for all, or
    /// a benchmark baseline (`--fprobe`, `--one-by-one`).
    pub(crate) fn for_options(options: &CreateOptions) -> Result<Self, AllocError> {
        let mut set = Self::new(if options.fprobe {
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
        set.timed = options.hist || options.timed;
        set.hist = options.hist;
        set.errors = options.errors;
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
            prototypes: None,
            modules: Modules::new(),
            stuck: AtomicBool::new(false),
            partly_exit: AtomicBool::new(false),
            timed: false,
            hist: false,
            keep_args: 0,
            errors: false,
            aggregates: None,
        })
    }

    /// Calls `f` with the name of each module it holds loaded (its
    /// functions are called into).
    pub(crate) fn for_each_module(&self, f: impl FnMut(&[u8])) {
        self.modules.for_each_name(f);
    }

    /// Whether it holds the module called `name` loaded.
    pub(crate) fn holds_module(&self, name: &[u8]) -> bool {
        self.modules.holds(name)
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
    fn prepare(&mut self) -> Result<(), Failed> {
        self.seen = KVVec::new();
        if self.hist || self.errors {
            let agg = Aggregates::new(self.slots.len())?;
            for (i, s) in self.slots.iter_mut().enumerate() {
                s.agg = agg.of(i);
            }
            self.aggregates = Some(agg);
        }
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
        (start, size): (usize, usize),
        fentry: usize,
        error_return: signature::ErrorReturn,
        events: Events,
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
        let end = start.saturating_add(size.max(1));
        // Return records carry the call's duration.
        let records = self.mode() == DirectMode::Exit && meta.event().made_for(events);
        // Return records that read the arguments: kept by the trampoline,
        // as many registers as the highest `$argN` needs.
        if records {
            let kept = t.args.map_or(0, |a| a.saved_regs_read());
            self.keep_args = self.keep_args.max(kept);
        }
        self.slots.push(
            DirectSlot {
                timed: self.timed,
                hist: self.hist,
                records,
                error_return,
                ..DirectSlot::new(start, end, fentry, meta, t.explicit)
            },
            GFP_KERNEL,
        )?;
        Ok(())
    }

    /// What the prototypes say of `symbol`, a function being added: an
    /// exit set's refusal (`Err`: what `add` returns), else how its return
    /// carries an error (`--errors`). A module's function, taken, has its
    /// module held from then on.
    fn take_function(
        &mut self,
        symbol: &[u8],
    ) -> Result<core::result::Result<signature::ErrorReturn, Added>, Failed> {
        let exit = self.mode() == DirectMode::Exit;
        // The builder hands every exit set the prototypes before its
        // first `d:` (`use_prototypes`).
        let core = match &self.prototypes {
            Some(p) => Some(p.clone()),
            None if exit => return Err(btf::unreadable(ENOENT)),
            None => None,
        };
        let module = split_module(symbol);
        let name = module.map_or(symbol, |(_, n)| n);
        let (refusal, error_return) = match (module, core) {
            (Some((m, _)), Some(p)) => match self.modules.prototypes(m, &p) {
                Ok(mp) => (mp.refusal(name), mp.error_return(name)),
                Err(e) if e == ENOENT => return Ok(Err(Added::refused(e, kallsyms::GONE))),
                Err(e) => return Err(e.into()),
            },
            (None, Some(p)) => (p.refusal(name), p.error_return(name)),
            (_, None) => (None, signature::ErrorReturn::No),
        };
        if let Some(r) = refusal.filter(|_| exit) {
            return Ok(Err(Added::refused(
                pure(signature::REFUSED_ERRNO),
                r.as_str(),
            )));
        }
        // A module's function, taken: its module held from now on.
        if let Some((m, _)) = module {
            match self.modules.hold(m) {
                Ok(()) => {}
                Err(e) if e == ENOENT => return Ok(Err(Added::refused(e, kallsyms::GONE))),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Ok(if self.errors {
            error_return
        } else {
            signature::ErrorReturn::No
        }))
    }

    /// Takes the kernel's prototypes, which `add` checks an exit set's
    /// functions against.
    pub(crate) fn use_prototypes(&mut self, p: Arc<Prototypes>) {
        self.prototypes = Some(p);
    }

    /// Before a switch to the exit trampoline: the first function it
    /// cannot call, and why (none once every function passed). The
    /// prototypes come from `prototypes`, asked only if there is a function
    /// to check.
    pub(crate) fn exit_refusal(
        &self,
        prototypes: &mut dyn FnMut() -> Result<Arc<Prototypes>>,
    ) -> Result<Option<(&[u8], Refusal)>> {
        if self.exit_checked.load(Ordering::Relaxed) || self.iter().next().is_none() {
            return Ok(None);
        }
        let p = prototypes()?;
        // A module's prototypes, read once for its run of functions.
        let mut module: Option<(&[u8], btf::ModulePrototypes)> = None;
        for s in self.iter() {
            let refusal = match split_module(s.symbol()) {
                None => p.refusal(s.symbol()),
                Some((m, name)) => {
                    if module.as_ref().map(|(held, _)| *held) != Some(m) {
                        module = Some((m, self.modules.read_prototypes(m, &p)?));
                    }
                    module.as_ref().and_then(|(_, mp)| mp.refusal(name))
                }
            };
            if let Some(r) = refusal {
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
            exit_attached()?;
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
                        // Some ops still call the exit trampoline while the
                        // set's mode is still `was`: it stays counted among
                        // the exit trampoline's users, so the pin never
                        // drops while tasks can enter through it, until
                        // the detach unregisters each ops from where it is.
                        self.partly_exit.store(true, Ordering::Relaxed);
                        pr_warn!(
                            "a set stays partly on the exit trampoline until it is unregistered\n"
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
        let from = self.trampoline(self.mode());
        // SAFETY: Every ops `registered` yields is registered (attached)
        // with the trampoline of the current mode (type invariant); both
        // trampolines are valid.
        unsafe { FtraceOps::switch_all(self.registered(), from, self.trampoline(mode)) }
    }

    /// The trampoline of `mode` for this set's functions.
    pub(super) fn trampoline(&self, mode: DirectMode) -> usize {
        trampoline::addr(mode, self.keep_args)
    }
}

/// Frees the scratch ops' filter and the index on unload.
///
/// # Safety
///
/// Module exit, in process context: every set is detached, and no command
/// runs or can start.
pub(crate) unsafe fn shutdown() {
    // SAFETY: Process context; the work is the module's static one.
    unsafe { bindings::bp_exit_release_cancel() };
    exit_quiesce();
    // SAFETY: No command runs or can start (the caller's contract), so
    // nothing uses the scratch ops any more.
    unsafe { ftrace::free_scratch() };
    index::lock_index().drop_all();
}

impl SetBackend for DirectSet {
    fn name(&self) -> &'static str {
        "direct"
    }

    fn fit(&self, _ctx: &Ctx<'_>, t: &Target<'_>) -> (Fit, Found) {
        let fit = if t.kind == ProbeKind::Direct {
            Fit::Best
        } else {
            Fit::No
        };
        (fit, Found::default())
    }

    /// Adds a function to attach after the build: it must be ftrace-able
    /// and not traced by another set.
    fn add(&mut self, ctx: &Ctx<'_>, t: &Target<'_>, _found: Found) -> Result<Added, Failed> {
        let Some((addr, size)) = t.text else {
            return Ok(Added::refused(ENOENT, ftrace::NOT_IN_TEXT));
        };
        if !t.explicit && self.has(addr) {
            // Named on a line of its own too: already in, not a refusal.
            return Ok(Added::Already);
        }
        if self.has(addr) {
            return Ok(Added::refused(
                EBUSY,
                "already has a direct call from this set: named twice",
            ));
        }
        if taken(addr) {
            return Ok(Added::refused(
                EBUSY,
                "already has a direct call from another batchprobe set",
            ));
        }
        let fentry = match ftrace::traceable(ctx.locked, addr, t.site) {
            Ok(fentry) => fentry,
            Err(e) => return Ok(Added::refused(e, refusal(Site::Ftrace, e))),
        };
        let error_return = match self.take_function(t.symbol)? {
            Ok(e) => e,
            Err(refused) => return Ok(refused),
        };
        let events = ctx.options.events();
        self.push(ctx.gate, t, (addr, size), fentry, error_return, events)?;
        Ok(Added::Yes)
    }

    /// One filter update and one text-patching pass for all the functions.
    fn attach(&mut self, skip: &mut dyn FnMut(&[u8], Error)) -> Result<(), Failed> {
        // Only `add` reads the prototypes: a set kept for good (`stuck`)
        // must not keep them from going at unload.
        self.prototypes = None;
        self.modules.built();
        if self.slots.is_empty() {
            return Ok(());
        }
        self.prepare()?;
        if self.mode() == DirectMode::Exit {
            exit_watchable().map_err(|e| {
                Failed::new(
                    e,
                    format_args!("direct exit set: {}", refusal(Site::ExitWatch, e)),
                )
            })?;
        }
        self.attach_all().map_err(
            |AttachError {
                 error: e,
                 slot: which,
             }| {
                let why = refusal(Site::Direct, e);
                match which.and_then(|i| self.get(i)) {
                    Some(s) => Failed::about(
                        e,
                        "direct",
                        s.symbol(),
                        format_args!("attach failed: {why}"),
                    ),
                    None => Failed::new(
                        e,
                        format_args!("direct (one of them): attach failed: {why}"),
                    ),
                }
            },
        )?;
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
        let detached = self.detach();
        // No direct call is left in a module's text: it may unload (a set
        // kept for good keeps its modules too).
        if detached {
            self.modules.release();
        }
        detached
    }

    fn ftrace_based(&self) -> bool {
        true
    }

    fn tally(&self, f: &mut dyn FnMut(&'static str, usize)) {
        f("direct", self.len());
    }

    fn each_from(&self, from: usize, f: &mut dyn FnMut(&ProbeView<'_>) -> bool) {
        // Direct targets have no offset (the parser and the API refuse
        // one), so the view's is 0. `None` stops the walk.
        let _ = self.iter().skip(from).try_for_each(|s| {
            f(&ProbeView {
                last_arg: Some(s.last_arg()),
                exit: (self.mode() == DirectMode::Exit || s.exits() != 0)
                    .then(|| (s.exits(), s.last_ret())),
                aggregate: s.aggregate(),
                ..s.meta.view("direct", s.missed())
            })
            .then_some(())
        });
    }
}
