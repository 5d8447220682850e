// SPDX-License-Identifier: GPL-2.0

//! Building a set: every target is routed to the backend that serves it
//! best ([`Backends::route`]); a refusal fails the set for a target named
//! on its own line, and is skipped (and counted) for a glob member.

use core::marker::PhantomPinned;
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use kernel::alloc::AllocError;
use kernel::prelude::*;
use kernel::sync::{Arc, UniqueArc};
use kernel::workqueue::new_work;

use super::{Backends, Owner, Parts, Probes, Set, Stamp, Timings};
use crate::backend::{Added, Ctx, Refused, Target};
use crate::bindings;
use crate::command::{CreateOptions, Events, ProbeKind};
use crate::direct::btf::Prototypes;
use crate::error::{BStr, Failed};
use crate::events::tracefs::{EventSlot, ProbeEvent, SetEvents};
use crate::ftrace::{CallSites, SiteSource};
use crate::gate::{Client, Gate};
use crate::gpcount;
use crate::kallsyms::TextTable;
use crate::lifecycle::SetState;
use crate::locked::Locked;
use crate::probe::notrace;
use crate::probecap::{Admit, Budget, Cap};
use crate::rcu::{self, RcuBox, RcuOption};
use crate::retpool::{self, Machine};
use crate::sched::Pacer;

impl Set {
    /// Registers a new set named `name`, whose probes `build` adds through
    /// a [`Builder`] (each routed to its backend, registered disarmed, no
    /// grace period), then attaches what attaches at create (direct calls:
    /// one patching pass). All or nothing: if anything fails, every probe
    /// is unregistered again (one batch per backend, [`retire_all`]) and
    /// the error returned.
    ///
    /// `client` is an API client's handler (see [`crate::gate`]); `owner`
    /// its module and bookkeeping (dropped on failure, which puts the
    /// module reference). `budget`: how many probes the set may take
    /// ([`crate::probecap`]), with room held for its explicit targets.
    pub(crate) fn register(
        locked: Locked<'_>,
        name: &[u8],
        options: CreateOptions,
        client: Option<Client>,
        owner: Option<Owner>,
        budget: Budget,
        build: impl FnOnce(&mut Builder<'_>) -> Result<(), Failed>,
    ) -> Result<Arc<Set>, Failed> {
        let t0 = Stamp::now();
        let gp0 = gpcount::snapshot();
        let oom = |_: AllocError| Failed::oom();
        // Allocate the set first: once a probe is registered, nothing may
        // fail but registration itself, whose failure `build_probes` undoes.
        let uninit = UniqueArc::<Set>::new_uninit(GFP_KERNEL).map_err(oom)?;
        let mut owned_name = KVec::new();
        owned_name
            .extend_from_slice(name, GFP_KERNEL)
            .map_err(oom)?;
        let (probes, built) = build_probes(locked, name, options, client, budget, build)?;
        let timings = Timings::default();
        timings.register.store(t0.elapsed(), Ordering::Relaxed);
        timings.gp_register.record(gp0);
        timings.attach.store(built.attach_ns, Ordering::Relaxed);
        let nskipped = probes.skipped.total;
        // INVARIANT: every probe the builder added is registered.
        let init = pin_init!(Set {
            name: owned_name,
            options,
            state: AtomicU8::new(SetState::Registered as u8),
            tally: built.tally,
            nskipped,
            return_pool: built.return_pool,
            owner,
            probes: RcuOption::new(probes),
            final_counts: (AtomicU64::new(0), AtomicU64::new(0)),
            timings,
            work <- new_work!("Set::work"),
            disarm_work <- new_work!("Set::disarm_work"),
            done_work <- new_work!("Set::done_work"),
        });
        // Cannot fail: the memory is allocated and the initialiser is infallible.
        match uninit.pin_init_with(init) {
            Ok(set) => Ok(set.into()),
            Err(never) => match never {},
        }
    }
}

/// What [`Set::register`] keeps of a build, besides the probes.
struct Built {
    /// Probes per backend field (see [`tally`]).
    tally: KVec<(&'static str, usize)>,
    /// The bytes the return-instance pools take (estimated).
    return_pool: usize,
    /// How long attaching took (see [`super::Timings::attach`]).
    attach_ns: u64,
}

/// Builds a set's probes in place (see [`Set::register`]). All or nothing:
/// on error, every probe registered so far is retired ([`retire_all`]),
/// and freed unless ftrace kept hold of some.
fn build_probes(
    locked: Locked<'_>,
    name: &[u8],
    options: CreateOptions,
    client: Option<Client>,
    budget: Budget,
    build: impl FnOnce(&mut Builder<'_>) -> Result<(), Failed>,
) -> Result<(RcuBox<Probes>, Built), Failed> {
    let probes = Probes {
        gate: Gate::new(client),
        backends: Backends::new(&options)?,
        skipped: Skipped::new(),
        events: SetEvents::new(),
        _pin: PhantomPinned,
    };
    // The handlers find the gate in this box, which never moves (it hands
    // the probes out pinned): build in place.
    let mut probes = RcuBox::new(probes, GFP_KERNEL).map_err(|_| Failed::oom())?;
    match fill(probes.get_mut(), locked, name, options, budget, build) {
        Ok(built) => Ok((probes, built)),
        Err(e) => {
            if !retire_all(&probes) {
                Probes::keep_for_good(probes);
            }
            Err(e)
        }
    }
}

/// Adds the probes (`build`), checks that at least one was, attaches what
/// attaches at create and tallies them. On error, the caller retires
/// whatever was registered.
fn fill(
    p: Pin<&mut Probes>,
    locked: Locked<'_>,
    name: &[u8],
    options: CreateOptions,
    budget: Budget,
    build: impl FnOnce(&mut Builder<'_>) -> Result<(), Failed>,
) -> Result<Built, Failed> {
    let Parts {
        gate,
        backends,
        skipped,
        events,
    } = p.parts();
    let ctx = Ctx {
        gate: core::ptr::from_ref(gate),
        options,
        locked,
    };
    let mut builder = Builder {
        ctx,
        name,
        instances: 0,
        pools: ReturnPools::new(),
        budget,
        pace: Pacer::new(256),
        backends: &mut *backends,
        skipped: &mut *skipped,
        sites: SiteSource::default(),
        text: None,
    };
    build(&mut builder)?;
    let return_pool = builder.pools.bytes;
    let budget = builder.budget;
    skipped.past_cap = (budget.skipped(), budget.room().cap);
    refuse_empty(backends, &budget, name)?;
    // Last: what attaches at create, one batch per backend.
    let t = Stamp::now();
    let attached = attach(backends, skipped);
    let attach_ns = t.elapsed();
    attached?;
    let tally = tally(backends)?;
    // The very last, all or nothing: once in tracefs, the events leave it
    // only through the teardown (a failure after this would leave them).
    add_events(backends, events, name, options.events())?;
    Ok(Built {
        tally,
        return_pool,
        attach_ns,
    })
}

/// Refuses a set none of whose probes could be registered (`ENOSPC` when
/// the cap left glob members out, else `ENOENT`).
fn refuse_empty(backends: &Backends, budget: &Budget, name: &[u8]) -> Result<(), Failed> {
    if backends.is_empty() && budget.skipped() > 0 {
        return Err(Failed::new(
            ENOSPC,
            format_args!(
                "no probe of set {} could be registered: {} glob members past the cap of {}",
                BStr(name),
                budget.skipped(),
                budget.room().cap
            ),
        ));
    }
    if backends.is_empty() {
        return Err(Failed::new(
            ENOENT,
            format_args!("no probe of set {} could be registered", BStr(name)),
        ));
    }
    Ok(())
}

/// Attaches what attaches at create, one batch per backend; the glob
/// members a backend refuses are counted as skipped.
fn attach(backends: &mut Backends, skipped: &mut Skipped) -> Result<(), Failed> {
    for b in backends.all_mut() {
        b.attach(&mut |sym, error| skipped.add(sym, error))?;
    }
    Ok(())
}

/// Gives the probes that `which` says their trace events, all added to
/// tracefs in one step ([`EventSlot::made_for`]).
///
/// [`EventSlot::made_for`]: crate::events::tracefs::EventSlot::made_for
fn add_events(
    backends: &Backends,
    events: &mut SetEvents,
    name: &[u8],
    which: Events,
) -> Result<(), Failed> {
    let wants = |slot: &EventSlot| slot.made_for(which);
    let mut any = false;
    backends.each(&mut |v| any |= v.event.is_some_and(wants));
    if !any {
        return Ok(());
    }
    events.add(name, &|f| {
        backends.each(&mut |v| {
            if let Some(slot) = v.event.filter(|s| wants(s)) {
                f(&ProbeEvent {
                    slot,
                    name: v.name,
                    symbol: v.symbol,
                    offset: v.offset,
                });
            }
        })
    })
}

/// The `sets` fields of `backends`, in list order.
fn tally(backends: &Backends) -> Result<KVec<(&'static str, usize)>, Failed> {
    let mut tally = KVec::new();
    let mut pushed = Ok(());
    for b in backends.all() {
        b.tally(&mut |field, n| {
            pushed = pushed.and(tally.push((field, n), GFP_KERNEL));
        });
    }
    pushed.map_err(|_: AllocError| Failed::oom())?;
    Ok(tally)
}

/// Unregisters every probe of a set whose build failed: one batch per
/// backend, in list order, with grace periods expedited. Returns whether
/// ftrace let go of everything (see
/// [`crate::backend::SetBackend::retire`]).
fn retire_all(p: &Probes) -> bool {
    let _fast = rcu::expedite();
    let mut gone = true;
    for b in p.backends.all() {
        gone &= b.retire(false);
    }
    gone
}

/// The most return-probe instances (`r[MAXACTIVE]:`, summed over its
/// probes, kretprobes and fprobe returns alike) one set preallocates:
/// `r4096:` on a glob of thousands of functions would otherwise ask for
/// millions. Explicit lines beyond it fail with `ENOSPC`, glob members are
/// skipped. What those instances take depends on the possible-CPU count:
/// [`ReturnPools`] bounds that.
const MAX_KRETPROBE_INSTANCES: usize = 1 << 18;

// The C side's default of `max_return_pool_kib` is the documented one.
const _: () = assert!(bindings::BP_RETURN_POOL_KIB_DEFAULT as usize == retpool::DEFAULT_CAP_KIB);

/// What a set's return-instance pools take (see [`crate::retpool`]), on
/// this machine, against the `max_return_pool_kib` cap: a probe whose pool
/// would take the set past it is refused like an instance past
/// [`MAX_KRETPROBE_INSTANCES`] (`ENOSPC`: an explicit line fails the set,
/// a glob member is skipped).
pub(crate) struct ReturnPools {
    /// This machine's possible CPUs and page size.
    pub(crate) machine: Machine,
    /// Bytes taken so far (estimated).
    pub(crate) bytes: usize,
    /// The cap, in bytes, as the module parameter said when the build
    /// started.
    cap: usize,
}

impl ReturnPools {
    /// None yet, on this machine, under the cap the module parameter sets
    /// now.
    pub(crate) fn new() -> Self {
        // SAFETY: Both only read: the possible-CPU mask, a module parameter.
        let (cpus, cap) = unsafe {
            (
                bindings::bp_num_possible_cpus() as usize,
                bindings::bp_max_return_pool_bytes() as usize,
            )
        };
        Self {
            machine: Machine {
                cpus,
                page: kernel::page::PAGE_SIZE,
            },
            bytes: 0,
            cap,
        }
    }

    /// The error of an explicit target on `backend` whose pool, `cost`
    /// bytes, would take set `set` past the cap.
    fn too_big(&self, backend: &str, t: &Target<'_>, set: &[u8], cost: usize) -> Failed {
        Failed::new(
            ENOSPC,
            format_args!(
                "{} {}: set {}'s return-instance pools would take {} bytes on {} possible CPUs, past the cap of {} bytes (max_return_pool_kib)",
                backend,
                BStr(t.symbol),
                BStr(set),
                self.bytes.saturating_add(cost),
                self.machine.cpus,
                self.cap
            ),
        )
    }
}

/// How many refused glob members a set remembers by name.
const SKIPPED_SHOWN: usize = 256;

/// Glob members the kernel refused (or the set had no room for): all
/// counted, the first few named.
pub(crate) struct Skipped {
    pub(super) total: usize,
    pub(super) named: KVec<(KVec<u8>, Error)>,
    /// How many of them the set's probe cap left out, and that cap.
    pub(super) past_cap: (usize, Cap),
}

impl Skipped {
    /// None yet.
    pub(super) fn new() -> Self {
        Self {
            total: 0,
            named: KVec::new(),
            past_cap: (0, Cap::Set(0)),
        }
    }

    /// Counts a refused glob member, naming the first few.
    pub(super) fn add(&mut self, symbol: &[u8], error: Error) {
        self.total = self.total.saturating_add(1);
        if self.named.len() < SKIPPED_SHOWN {
            let mut v = KVec::new();
            if v.extend_from_slice(symbol, GFP_KERNEL).is_ok() {
                let _ = self.named.push((v, error), GFP_KERNEL);
            }
        }
    }
}

/// Registers a set's probes one by one (see [`Set::register`]).
pub(crate) struct Builder<'a> {
    pub(super) ctx: Ctx<'a>,
    /// The set's name, for errors.
    pub(super) name: &'a [u8],
    /// Return instances preallocated so far (`maxactive` summed).
    pub(super) instances: usize,
    /// What the return-instance pools take so far, and the cap.
    pub(super) pools: ReturnPools,
    /// The probes taken so far, against the set's probe cap.
    pub(super) budget: Budget,
    /// Reschedules now and then, and gives up when the task is killed.
    pub(super) pace: Pacer,
    pub(super) backends: &'a mut Backends,
    pub(super) skipped: &'a mut Skipped,
    /// Where ftrace calls each core-kernel function, when the caller had
    /// them or may make them ([`Builder::use_sites`]).
    pub(super) sites: SiteSource,
    /// The kernel's text symbols, when the caller walks them
    /// ([`Builder::use_text`]): where an explicit `BASE.SUFFIX` line's
    /// `BASE` is looked up.
    pub(super) text: Option<Arc<TextTable>>,
}

impl Builder<'_> {
    /// Hands the set's direct backend the kernel's prototypes, which an
    /// exit set checks each function against: before its first `d:`.
    pub(crate) fn use_prototypes(&mut self, p: Arc<Prototypes>) {
        self.backends.direct.use_prototypes(p);
    }

    /// Takes where ftrace calls each core-kernel function, which the
    /// backends then read instead of asking ftrace per function (once the
    /// table is made, if it is only pending).
    pub(crate) fn use_sites(&mut self, s: SiteSource) {
        self.sites = s;
    }

    /// Takes the kernel's text symbols the caller walks.
    pub(crate) fn use_text(&mut self, text: Arc<TextTable>) {
        self.text = Some(text);
    }

    /// The call sites' table, if the set's targets had or made one: for
    /// the engine to keep.
    pub(crate) fn made_sites(&self) -> Option<Arc<CallSites>> {
        self.sites.made()
    }

    /// The earlier symbol of its name, if any, that the kernel, resolving
    /// a walked glob member's name, probes instead of the member (its
    /// address and size). Asked only where a `--noopt` kprobe's post
    /// handler depends on it (an offset into the function; see
    /// [`crate::probe::Post`]).
    fn shadowed_by(&self, t: &Target<'_>) -> Option<(usize, usize)> {
        let (Some((start, _)), Some(table)) = (t.text, self.text.as_deref()) else {
            return None;
        };
        if !self.ctx.options.noopt || t.explicit || t.addr != 0 || t.offset == 0 {
            return None;
        }
        table
            .first_named(t.symbol)
            .and_then(|i| table.get(i))
            .filter(|&(first, _)| first != start)
    }

    /// Adds a probe on `t` through the backend that serves it best. A
    /// refusal fails the set when `t` is explicit (the error names it),
    /// else it is recorded as skipped and `Ok(false)` returned.
    ///
    /// Every call reschedules now and then, and fails with `EINTR` once the
    /// task is killed: a set may take millions of probes.
    pub(crate) fn add(&mut self, t: &Target<'_>) -> Result<bool, Failed> {
        self.pace.step()?;
        if !self.admit(t)? || !self.reserve_instances(t)? {
            return Ok(false);
        }
        let site = match (t.text, t.site) {
            (Some((addr, _)), None) => self.sites.of(self.ctx.locked, addr),
            _ => t.site,
        };
        let shadowed_by = self.shadowed_by(t);
        let t = &Target {
            site,
            shadowed_by,
            ..*t
        };
        if self.refuses_notrace(t)? {
            return refused(self.skipped, "probe", t, EINVAL, notrace::REFUSAL);
        }
        let ctx = self.ctx;
        let (backends, skipped) = (&mut *self.backends, &mut *self.skipped);
        let Some((b, found)) = Backends::route(backends, &ctx, t) else {
            return refused(
                skipped,
                "probe",
                t,
                EINVAL,
                "no backend serves this kind of probe",
            );
        };
        // What its return-instance pool would add (most probes: nothing).
        let cost = b.return_pool_cost(t, self.pools.machine);
        if !retpool::fits(self.pools.bytes, cost, self.pools.cap) {
            if t.explicit {
                return Err(self.pools.too_big(b.name(), t, self.name, cost));
            }
            skipped.add(t.symbol, ENOSPC);
            return Ok(false);
        }
        match b.add(&ctx, t, found)? {
            Added::Yes => {
                self.pools.bytes = self.pools.bytes.saturating_add(cost);
                self.budget.added();
                Ok(true)
            }
            Added::Already => Ok(false),
            Added::Refused(Refused { error, what }) => {
                let name = b.name();
                refused(skipped, name, t, error, what)
            }
        }
    }

    /// Whether `t` is a line on a function ftrace cannot trace, which
    /// `kprobe_events` refuses ([`notrace`]), judged here when a walk met
    /// its function (the int3 backend judges the others once the kernel
    /// resolved them).
    fn refuses_notrace(&self, t: &Target<'_>) -> Result<bool, Failed> {
        let Some((start, _)) = t.text.filter(|_| notrace::applies(t)) else {
            return Ok(false);
        };
        notrace::refuses(self.ctx.locked, t, start, t.site, self.text.as_deref()).map_err(|e| {
            Failed::new(
                e,
                format_args!(
                    "{}: checking whether ftrace can trace it failed",
                    BStr(t.symbol)
                ),
            )
        })
    }

    /// Counts `t` against the set's probe cap ([`crate::probecap`]). Past
    /// it, an explicit target fails the set (`ENOSPC`, naming the set and
    /// the cap) and a glob member is skipped (`Ok(false)`).
    fn admit(&mut self, t: &Target<'_>) -> Result<bool, Failed> {
        match self.budget.admit(t.explicit) {
            Admit::Yes => Ok(true),
            Admit::Skip => {
                self.skipped.add(t.symbol, ENOSPC);
                Ok(false)
            }
            Admit::Refuse => {
                let cap = self.budget.room().cap;
                let f = match t.line {
                    Some(ref l) => Failed::new(
                        ENOSPC,
                        format_args!("set {}: more than {}", BStr(self.name), cap),
                    )
                    .on_line(Some(l)),
                    None => Failed::new(
                        ENOSPC,
                        format_args!(
                            "{}{}+{}: more than {}",
                            Subject(t),
                            BStr(t.symbol),
                            t.offset,
                            cap
                        ),
                    ),
                };
                Err(f)
            }
        }
    }

    /// Counts `t`'s return instances (`maxactive`) against
    /// [`MAX_KRETPROBE_INSTANCES`]. Past it, an explicit target fails the
    /// set and a glob member is skipped (`Ok(false)`).
    fn reserve_instances(&mut self, t: &Target<'_>) -> Result<bool, Failed> {
        if let ProbeKind::Kretprobe { maxactive } = t.kind {
            let max = maxactive.unwrap_or(0) as usize;
            if self.instances + max > MAX_KRETPROBE_INSTANCES {
                if t.explicit {
                    return Err(Failed::new(
                        ENOSPC,
                        format_args!(
                            "{}kretprobe {}: more than {} instances (maxactive) in the set",
                            Subject(t),
                            BStr(t.symbol),
                            MAX_KRETPROBE_INSTANCES
                        ),
                    )
                    .on_line(t.line.as_ref()));
                }
                self.skipped.add(t.symbol, ENOSPC);
                return Ok(false);
            }
            self.instances += max;
        }
        Ok(true)
    }
}

/// A refusal by `backend`: fails the set for an explicit target, else is
/// skipped. `what` says what was wrong, in words.
///
/// The error of a control line says only `what`: `last_error` shows the
/// line, which names the symbol. An API target's names the target, the
/// backend and the symbol.
fn refused(
    skipped: &mut Skipped,
    backend: &str,
    t: &Target<'_>,
    error: Error,
    what: &str,
) -> Result<bool, Failed> {
    if t.explicit {
        let f = match t.line {
            Some(ref l) => Failed::new(error, format_args!("{}", what)).on_line(Some(l)),
            None => Failed::new(
                error,
                format_args!(
                    "{}{} {}+{}: {}",
                    Subject(t),
                    backend,
                    BStr(t.symbol),
                    t.offset,
                    what
                ),
            ),
        };
        return Err(f);
    }
    skipped.add(t.symbol, error);
    Ok(false)
}

/// `target N: ` for an API target (its index in the client's array);
/// nothing for a control line's, which `last_error` shows instead.
struct Subject<'a, 'b>(&'a Target<'b>);

impl core::fmt::Display for Subject<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0.line {
            Some(_) => Ok(()),
            None => write!(f, "target {}: ", self.0.index),
        }
    }
}
