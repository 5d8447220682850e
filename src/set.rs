// SPDX-License-Identifier: GPL-2.0

//! A probe set: a named group of kprobes and kretprobes registered in one
//! batch, armed and disarmed together, and torn down asynchronously on the
//! module's workqueue with one batch unregistration per kind.

use core::fmt::Write;
use core::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, Ordering};

use kernel::ffi::c_void;

use kernel::alloc::AllocError;
use kernel::prelude::*;
use kernel::sync::{Arc, UniqueArc};
use kernel::workqueue::{impl_has_work, new_work, Work, WorkItem};

use crate::bindings;
use crate::command::{CreateOptions, DirectMode, ProbeKind};
use crate::direct::{self, DirectSet};
use crate::gate::{Client, Gate};
use crate::gpcount::{self, PhaseGps};
use crate::kallsyms;
use crate::kprobe::Kprobe;
use crate::kretprobe::Kretprobe;
use crate::lifecycle::{self, Op, SetState};
use crate::probe::{self, Added, Backend, How, Slots};
use crate::rcu::{self, RcuBox, RcuOption};

/// Monotonic nanoseconds, read on a path that no probe can hit (see
/// `bp_clock_ns` in `rust/helpers.c`): a timing must not include a trap
/// taken by one of the probes it times.
pub(crate) fn now_ns() -> u64 {
    // SAFETY: `bp_clock_ns` may be called from any context.
    unsafe { bindings::bp_clock_ns() }
}

/// Whether [`now_ns`] reads the TSC (else `ktime_get_ns()`), for `stats`.
pub(crate) fn clock_is_tsc() -> bool {
    // SAFETY: `bp_clock_is_tsc` only reads a flag.
    unsafe { bindings::bp_clock_is_tsc() }
}

/// What a set's handlers touch: the enable gate and the slots.
pub(crate) struct Probes {
    /// The enable gate: handlers count only while it is open.
    pub(crate) gate: Gate,
    pub(crate) kprobes: Slots<Kprobe>,
    pub(crate) kretprobes: Slots<Kretprobe>,
    pub(crate) direct: DirectSet,
    skipped: Skipped,
}

/// The most kretprobe instances (`r[MAXACTIVE]:`, summed over its probes)
/// one set preallocates: `r4096:` on a glob of thousands of functions would
/// otherwise ask for millions. Explicit lines beyond it fail with `ENOSPC`,
/// glob members are skipped.
const MAX_KRETPROBE_INSTANCES: usize = 1 << 18;

/// How many refused glob members a set remembers by name.
const SKIPPED_SHOWN: usize = 256;

/// Glob members the kernel refused: all counted, the first few named.
struct Skipped {
    total: usize,
    named: KVec<(KVec<u8>, i32)>,
}

impl Skipped {
    /// Counts a refused glob member, naming the first few.
    fn add(&mut self, symbol: &[u8], errno: i32) {
        self.total += 1;
        if self.named.len() < SKIPPED_SHOWN {
            let mut v = KVec::new();
            if v.extend_from_slice(symbol, GFP_KERNEL).is_ok() {
                let _ = self.named.push((v, errno), GFP_KERNEL);
            }
        }
    }
}

/// Registers a set's probes one by one (see [`Set::register`]).
pub(crate) struct Builder<'a> {
    options: CreateOptions,
    /// Kretprobe instances preallocated so far (`maxactive` summed).
    instances: usize,
    probes: &'a mut Probes,
    kptrs: &'a mut KVec<*mut bindings::kprobe>,
    rptrs: &'a mut KVec<*mut bindings::kretprobe>,
}

impl Builder<'_> {
    /// Registers a probe on `symbol`. A refusal fails the set when the
    /// probe was named `explicit`ly (the error names it), else it is
    /// recorded as skipped and `Ok(false)` returned.
    ///
    /// `text` is the symbol's address and size, which direct calls need
    /// (kprobes resolve the name themselves).
    ///
    /// `at` is what the API gives: the target's index, and an address to
    /// probe instead of the symbol (0: by symbol).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add(
        &mut self,
        kind: ProbeKind,
        symbol: &[u8],
        name: Option<&[u8]>,
        offset: u32,
        explicit: bool,
        text: Option<(usize, usize)>,
        at: At,
    ) -> Result<bool, Failed> {
        let oom = |_| Failed::oom();
        if kind == ProbeKind::Direct {
            return self.add_direct(symbol, name, explicit, text, at.index);
        }
        let mut sym = KVec::with_capacity(symbol.len() + 1, GFP_KERNEL).map_err(oom)?;
        sym.extend_from_slice(symbol, GFP_KERNEL).map_err(oom)?;
        sym.push(0, GFP_KERNEL).map_err(oom)?;
        let name = match name {
            Some(n) => {
                let mut v = KVec::new();
                v.extend_from_slice(n, GFP_KERNEL).map_err(oom)?;
                Some(v)
            }
            None => None,
        };
        let gate = core::ptr::addr_of!(self.probes.gate);
        // SYM+OFF must lie inside SYM: past its end, the kernel would probe
        // whatever function follows. A glob member's size is known; an
        // explicit symbol is checked where the kernel resolved it.
        if let (ProbeKind::Kprobe, Some((_, size))) = (kind, text) {
            if offset > 0 && offset as usize >= size {
                return self.refused_past_end(symbol, offset, explicit);
            }
        }
        let past_end = core::cell::Cell::new(false);
        // Reserve first: once a probe is registered nothing may fail.
        let (added, kind_name) = match kind {
            ProbeKind::Kprobe => {
                self.kptrs.reserve(1, GFP_KERNEL).map_err(oom)?;
                let bare = self.options.bare;
                let inside = |raw: *mut bindings::kprobe| {
                    // SAFETY: `raw` is a registered kprobe; `addr` was set
                    // by the kernel when it resolved the symbol.
                    let addr = unsafe { (*raw).addr } as usize;
                    if offset == 0 || kallsyms::offset_in_symbol(addr) == Some(offset as u64) {
                        Ok(())
                    } else {
                        past_end.set(true);
                        Err(EINVAL.to_errno())
                    }
                };
                let how = How {
                    offset,
                    maxactive: 0,
                    bare,
                    noopt: self.options.noopt,
                    addr: at.addr,
                    index: at.index,
                };
                let added = self.probes.kprobes.add(gate, sym, name, how, inside);
                (added.map(|a| a.map_into(self.kptrs)), Kprobe::NAME)
            }
            ProbeKind::Kretprobe { maxactive } => {
                let max = maxactive.unwrap_or(0);
                if self.instances + max as usize > MAX_KRETPROBE_INSTANCES {
                    if explicit {
                        return Err(Failed::new(
                            ENOSPC,
                            format_args!(
                                "kretprobe {}: more than {} instances (maxactive) in the set",
                                BStr(symbol),
                                MAX_KRETPROBE_INSTANCES
                            ),
                        ));
                    }
                    let errno = ENOSPC.to_errno();
                    return self.refused(Kretprobe::NAME, symbol, 0, false, errno, "");
                }
                self.instances += max as usize;
                self.rptrs.reserve(1, GFP_KERNEL).map_err(oom)?;
                let bare = self.options.bare;
                let how = How {
                    offset: 0,
                    maxactive: max,
                    bare,
                    noopt: false,
                    addr: at.addr,
                    index: at.index,
                };
                let added = self.probes.kretprobes.add(gate, sym, name, how, |_| Ok(()));
                (added.map(|a| a.map_into(self.rptrs)), Kretprobe::NAME)
            }
            ProbeKind::Direct => return Err(oom(AllocError)),
        };
        match added.map_err(|_| Failed::oom())? {
            None => Ok(true),
            // The kernel took it, but not inside SYM (see `inside`).
            Some(_) if past_end.get() => self.refused_past_end(symbol, offset, explicit),
            Some(errno) => self.refused(kind_name, symbol, offset, explicit, errno, "register"),
        }
    }

    /// `SYM+OFF` past the end of SYM: EINVAL for an explicit probe,
    /// skipped (and counted) for a glob member.
    fn refused_past_end(
        &mut self,
        symbol: &[u8],
        offset: u32,
        explicit: bool,
    ) -> Result<bool, Failed> {
        if explicit {
            return Err(Failed::new(
                EINVAL,
                format_args!(
                    "kprobe {}+{}: offset past the end of {}",
                    BStr(symbol),
                    offset,
                    BStr(symbol)
                ),
            ));
        }
        self.refused("kprobe", symbol, offset, false, EINVAL.to_errno(), "")
    }

    /// A refusal: fails the set for an explicit probe, else is skipped.
    fn refused(
        &mut self,
        kind_name: &str,
        symbol: &[u8],
        offset: u32,
        explicit: bool,
        errno: i32,
        what: &str,
    ) -> Result<bool, Failed> {
        if explicit {
            return Err(Failed::new(
                Error::from_errno(errno),
                format_args!(
                    "{} {}+{}: {} failed, errno {}",
                    kind_name,
                    BStr(symbol),
                    offset,
                    what,
                    errno
                ),
            ));
        }
        self.probes.skipped.add(symbol, errno);
        Ok(false)
    }

    /// Adds a function to the set's direct calls (attached all at once after
    /// the build): it must be ftrace-able and not traced by another set.
    fn add_direct(
        &mut self,
        symbol: &[u8],
        name: Option<&[u8]>,
        explicit: bool,
        text: Option<(usize, usize)>,
        index: u32,
    ) -> Result<bool, Failed> {
        let Some((addr, size)) = text else {
            return self.refused("direct", symbol, 0, explicit, ENOENT.to_errno(), "lookup");
        };
        if !explicit && self.probes.direct.has(addr) {
            // Named on a line of its own too: already in, not a refusal.
            return Ok(false);
        }
        if self.probes.direct.has(addr) || direct::taken(addr) {
            return self.refused(
                "direct",
                symbol,
                0,
                explicit,
                EBUSY.to_errno(),
                "attach (already has a direct caller)",
            );
        }
        let fentry = match direct::traceable(addr) {
            Ok(fentry) => fentry,
            Err(errno) => {
                return self.refused(
                    "direct",
                    symbol,
                    0,
                    explicit,
                    errno,
                    "attach (not ftrace-able)",
                )
            }
        };
        let gate = core::ptr::addr_of!(self.probes.gate);
        self.probes
            .direct
            .push(gate, symbol, name, addr, size, fentry, index, explicit)
            .map_err(|_| Failed::oom())?;
        Ok(true)
    }
}

/// What the API gives [`Builder::add`] beyond a control line: the
/// target's index in the client's array, and an address to probe instead
/// of the symbol (0: by symbol).
#[derive(Clone, Copy, Default)]
pub(crate) struct At {
    pub(crate) index: u32,
    pub(crate) addr: usize,
}

/// What a set made through the in-kernel API ([`crate::api`]) keeps
/// beyond a control-file set.
///
/// # Invariants
///
/// `module` is null or a module on which this value holds one reference,
/// put (once: the pointer is swapped out) by [`Owner::complete`] at the end
/// of the set's teardown, or on drop.
pub(crate) struct Owner {
    module: AtomicPtr<bindings::module>,
    /// `batchprobe_unregister`'s callback and its argument.
    done: AtomicPtr<c_void>,
    done_arg: AtomicPtr<c_void>,
    /// Per-target hits and misses, frozen by the teardown.
    frozen: KVVec<[AtomicU64; 2]>,
}

impl Owner {
    /// Takes a reference on `module` (null: built-in code, none taken) for
    /// a set of `targets` targets. `ENODEV` if the module is unloading.
    pub(crate) fn new(module: *mut bindings::module, targets: usize) -> Result<Self> {
        let mut frozen = KVVec::with_capacity(targets, GFP_KERNEL)?;
        for _ in 0..targets {
            frozen.push([AtomicU64::new(0), AtomicU64::new(0)], GFP_KERNEL)?;
        }
        // SAFETY: `module` is null or the caller's own live module.
        if !module.is_null() && !unsafe { bindings::bp_try_module_get(module) } {
            return Err(ENODEV);
        }
        // INVARIANT: the reference was just taken (or `module` is null).
        Ok(Self {
            module: AtomicPtr::new(module),
            done: AtomicPtr::new(core::ptr::null_mut()),
            done_arg: AtomicPtr::new(core::ptr::null_mut()),
            frozen,
        })
    }

    /// Remembers what to call when the teardown has completed.
    pub(crate) fn on_done(
        &self,
        done: Option<unsafe extern "C" fn(*mut c_void)>,
        arg: *mut c_void,
    ) {
        self.done_arg.store(arg, Ordering::Relaxed);
        let f = done.map_or(core::ptr::null_mut(), |f| f as *mut c_void);
        self.done.store(f, Ordering::Release);
    }

    /// Calls the completion callback, if any, then drops the module
    /// reference. Called once, at the end of the teardown.
    fn complete(&self) {
        let f = self.done.swap(core::ptr::null_mut(), Ordering::AcqRel);
        if !f.is_null() {
            // SAFETY: `f` came from an `Option<unsafe extern "C" fn(*mut
            // c_void)>` in `on_done`; the client's module is pinned by the
            // reference put below, so its text is there.
            let f: unsafe extern "C" fn(*mut c_void) = unsafe { core::mem::transmute(f) };
            // SAFETY: The client's callback, with the argument it gave.
            unsafe { f(self.done_arg.load(Ordering::Relaxed)) };
        }
        self.release();
    }

    /// Keeps the module reference for good, and never calls back: ftrace
    /// refused to detach the set's direct calls, so its handler may still
    /// be called.
    fn abandon(&self) {
        self.done.store(core::ptr::null_mut(), Ordering::Release);
        if !self
            .module
            .swap(core::ptr::null_mut(), Ordering::AcqRel)
            .is_null()
        {
            pr_warn!(
                "a client module stays pinned: its set's direct calls could not be detached\n"
            );
        }
    }

    /// Whether `module` is this set's client.
    pub(crate) fn is(&self, module: *mut bindings::module) -> bool {
        !module.is_null() && self.module.load(Ordering::Acquire) == module
    }

    /// Drops the module reference, if not dropped yet.
    fn release(&self) {
        let module = self.module.swap(core::ptr::null_mut(), Ordering::AcqRel);
        if !module.is_null() {
            // SAFETY: By the type invariant this puts the one reference
            // taken in `new`, once (the swap above).
            unsafe { bindings::bp_module_put(module) };
        }
    }

    /// Freezes the per-target counts of `p`.
    fn freeze(&self, p: &Probes) {
        let put = |i: u32, h: u64, m: u64| {
            if let Some(c) = self.frozen.get(i as usize) {
                c[0].store(h, Ordering::Relaxed);
                c[1].store(m, Ordering::Relaxed);
            }
        };
        per_target(p, put);
    }
}

/// Calls `f(index, hits, missed)` for every probe of `p`, whatever its kind.
fn per_target(p: &Probes, mut f: impl FnMut(u32, u64, u64)) {
    for s in p.kprobes.iter() {
        f(s.index(), s.hits(), s.missed());
    }
    for s in p.kretprobes.iter() {
        f(s.index(), s.hits(), s.missed());
    }
    for s in p.direct.iter() {
        f(s.index(), s.hits(), s.missed());
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        self.release();
    }
}

// SAFETY: `module` is only passed to `module_put`; the callback is the
// client's, callable from any process context; the rest is atomic.
unsafe impl Send for Owner {}
// SAFETY: See `Send`.
unsafe impl Sync for Owner {}

impl<R> Added<R> {
    /// Records a registered probe's pointer in `ptrs` (capacity reserved by
    /// the caller); gives back the errno of a refused one.
    fn map_into(self, ptrs: &mut KVec<*mut R>) -> Option<i32> {
        match self {
            Added::Registered(raw) => {
                // Capacity was reserved: this does not allocate.
                let _ = ptrs.push(raw, GFP_ATOMIC);
                None
            }
            Added::Refused(errno) => Some(errno),
        }
    }
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

/// An error that names what failed.
pub(crate) struct Failed {
    pub(crate) error: Error,
    pub(crate) what: KVec<u8>,
}

impl Failed {
    /// `ENOMEM`.
    pub(crate) fn oom() -> Self {
        Self::new(ENOMEM, format_args!("out of memory"))
    }

    /// `error`, described by `args`.
    pub(crate) fn new(error: Error, args: core::fmt::Arguments<'_>) -> Self {
        let mut what = Text(KVec::new());
        let _ = what.write_fmt(args);
        Self {
            error,
            what: what.0,
        }
    }
}

impl From<AllocError> for Failed {
    fn from(_: AllocError) -> Self {
        Failed::oom()
    }
}

/// A growable text buffer for `write!`; drops what it cannot allocate.
pub(crate) struct Text(pub(crate) KVec<u8>);

impl Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| core::fmt::Error)
    }
}

/// A registered set of probes.
///
/// # Invariants
///
/// Every pointer in `kptrs`/`rptrs` is a probe in `probes` that was
/// registered and stays registered until [`Set::teardown`] runs (once: only
/// the transition to `Retiring` queues it).
#[pin_data(PinnedDrop)]
pub(crate) struct Set {
    name: KVec<u8>,
    options: CreateOptions,
    state: AtomicU8,
    /// Published to readers until the teardown takes it.
    probes: RcuOption<Probes>,
    /// Hit and miss totals, frozen by the teardown.
    final_counts: (AtomicU64, AtomicU64),
    kptrs: KVec<*mut bindings::kprobe>,
    rptrs: KVec<*mut bindings::kretprobe>,
    /// Number of direct-call functions.
    ndirect: usize,
    /// Number of glob members the kernel refused (kept after teardown).
    nskipped: usize,
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

// SAFETY: The raw pointers are registered probes inside `probes`, used only
// through the kernel's thread-safe kprobe API; everything else is atomic or
// immutable after construction.
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
                BStr(&self.name),
                self.state().as_str()
            );
            self.set_state(SetState::Retiring);
            if self.teardown() {
                self.complete();
            }
        }
    }
}

impl_has_work! {
    impl HasWork<Self> for Set { self.work }
    impl HasWork<Self, 2> for Set { self.disarm_work }
    impl HasWork<Self, 3> for Set { self.done_work }
}

/// An API client's completion, on the completion queue.
impl WorkItem<3> for Set {
    type Pointer = Arc<Set>;

    fn run(this: Arc<Set>) {
        this.complete();
    }
}

/// The physical disarm after a disable, off the writer's path.
impl WorkItem<2> for Set {
    type Pointer = Arc<Set>;

    fn run(this: Arc<Set>) {
        this.disarm();
    }
}

impl WorkItem for Set {
    type Pointer = Arc<Set>;

    fn run(this: Arc<Set>) {
        if this.teardown() {
            crate::api::complete_later(this);
        }
    }
}

impl Set {
    /// Registers a new set named `name`, whose probes `build` adds through
    /// a [`Builder`]: one `register_*probe` call each, no grace period. All
    /// or nothing: if `build` fails, every probe it registered is
    /// unregistered again (one batch per kind) and its error is returned.
    ///
    /// `client` is an API client's handler (see [`crate::gate`]); `owner`
    /// its module and bookkeeping (dropped on failure, which puts the
    /// module reference).
    pub(crate) fn register(
        name: &[u8],
        options: CreateOptions,
        client: Option<Client>,
        owner: Option<Owner>,
        build: impl FnOnce(&mut Builder<'_>) -> Result<(), Failed>,
    ) -> Result<Arc<Set>, Failed> {
        let t0 = now_ns();
        let gp0 = gpcount::snapshot();
        let oom = |_: AllocError| Failed::oom();
        // Allocate the set first: once a probe is registered, nothing may
        // fail but registration itself, whose failure is undone below.
        let uninit = UniqueArc::<Set>::new_uninit(GFP_KERNEL).map_err(oom)?;
        let mut owned_name = KVec::new();
        owned_name
            .extend_from_slice(name, GFP_KERNEL)
            .map_err(oom)?;
        let probes = Probes {
            gate: Gate::new(client),
            kprobes: Slots::new(),
            kretprobes: Slots::new(),
            direct: DirectSet::new(if options.fprobe {
                direct::Strategy::Fprobe
            } else if options.one_by_one {
                direct::Strategy::OpsPerFunction
            } else {
                direct::Strategy::OneOps
            }),
            skipped: Skipped {
                total: 0,
                named: KVec::new(),
            },
        };
        let mut probes = RcuBox::new(probes, GFP_KERNEL).map_err(|_| oom(AllocError))?;
        let mut kptrs = KVec::new();
        let mut rptrs = KVec::new();
        let res = build(&mut Builder {
            options,
            instances: 0,
            probes: probes.get_mut(),
            kptrs: &mut kptrs,
            rptrs: &mut rptrs,
        });
        let res = res.and_then(|()| {
            if kptrs.is_empty() && rptrs.is_empty() && probes.direct.len() == 0 {
                Err(Failed::new(
                    ENOENT,
                    format_args!("no probe of set {} could be registered", BStr(name)),
                ))
            } else {
                Ok(())
            }
        });
        // Last: one filter update and one text-patching pass for all direct calls.
        let mut attach_ns = 0;
        let res = res.and_then(|()| {
            probes
                .get_mut()
                .direct
                .prepare()
                .map_err(|_| Failed::oom())?;
            let t = now_ns();
            let attached = probes.get_mut().direct.attach();
            attach_ns = now_ns() - t;
            attached.map_err(|(e, which)| {
                let sym = which
                    .and_then(|i| probes.direct.get(i))
                    .map_or(&b"(one of them)"[..], |s| s.symbol());
                let why = if e == EBUSY {
                    " (another tracer holds it: a direct caller or an IPMODIFY ftrace user)"
                } else {
                    ""
                };
                Failed::new(
                    e,
                    format_args!(
                        "direct {}: attach failed, errno {}{}",
                        BStr(sym),
                        e.to_errno(),
                        why
                    ),
                )
            })?;
            // Glob members another tracer holds: skipped, as any refusal.
            let p = probes.get_mut();
            for s in p.direct.refused() {
                p.skipped.add(s.symbol(), EBUSY.to_errno());
            }
            Ok(())
        });
        if let Err(e) = res {
            let _fast = rcu::expedite();
            // SAFETY: The builder put exactly the registered probes there.
            unsafe {
                probe::unregister_all::<Kprobe>(&kptrs);
                probe::unregister_all::<Kretprobe>(&rptrs);
            }
            return Err(e);
        }
        let timings = Timings::default();
        timings.register.store(now_ns() - t0, Ordering::Relaxed);
        timings.gp_register.record(gp0);
        timings.attach.store(attach_ns, Ordering::Relaxed);
        // INVARIANT: `kptrs`/`rptrs` hold exactly the probes registered above.
        let init = pin_init!(Set {
            name: owned_name,
            options,
            state: AtomicU8::new(SetState::Registered as u8),
            ndirect: probes.direct.len(),
            nskipped: probes.skipped.total,
            owner,
            probes: RcuOption::new(probes),
            final_counts: (AtomicU64::new(0), AtomicU64::new(0)),
            kptrs,
            rptrs,
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

    /// The set's name.
    pub(crate) fn name(&self) -> &[u8] {
        &self.name
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
        let n = out.len().min(owner.frozen.len());
        let guard = rcu::read_lock();
        if let Some(p) = self.probes.get(&guard) {
            let put = |i: u32, hits: u64, missed: u64| {
                if let Some(c) = out.get_mut(i as usize).filter(|_| (i as usize) < n) {
                    *c = bindings::batchprobe_counts { hits, missed };
                }
            };
            per_target(p, put);
        } else {
            for (c, f) in out.iter_mut().zip(owner.frozen.iter()) {
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
    fn gate(&self, open: bool) {
        // SAFETY: Only `teardown` takes the probes, and it runs after every
        // caller of this function is done with the set (state machine).
        if let Some(p) = unsafe { self.probes.get_unguarded() } {
            p.gate.set(open);
        }
    }

    fn set_state(&self, s: SetState) {
        self.state.store(s as u8, Ordering::Release);
    }

    /// Arms every probe, back to back, then opens the gate. All or nothing.
    /// Callers serialise enable, disable and unregister (the registry lock).
    pub(crate) fn enable(&self) -> Result<(), Failed> {
        let Some(to) = self.step(Op::Enable)? else {
            return Ok(());
        };
        let t0 = now_ns();
        let gp0 = gpcount::snapshot();
        // A disarm queued by an earlier disable must not run after this.
        self.flush_disarm();
        let _fast = rcu::expedite();
        let res = arm_all::<Kprobe>(&self.kptrs).and_then(|()| {
            arm_all::<Kretprobe>(&self.rptrs).inspect_err(|_| {
                disarm_all::<Kprobe>(&self.kptrs);
            })
        });
        res?;
        self.gate(true);
        self.timings.enable.store(now_ns() - t0, Ordering::Relaxed);
        self.timings.gp_enable.record(gp0);
        self.set_state(to);
        Ok(())
    }

    /// Closes the gate: from here on no hit is counted, in O(1). Returns
    /// whether the caller must queue the physical disarm ([`Set::disarm`])
    /// on the module workqueue.
    pub(crate) fn disable(&self) -> Result<bool, Failed> {
        let Some(to) = self.step(Op::Disable)? else {
            return Ok(false);
        };
        let t0 = now_ns();
        self.gate(false);
        self.set_state(to);
        self.timings.disable.store(now_ns() - t0, Ordering::Relaxed);
        Ok(true)
    }

    /// Disarms every probe back to back (on the workqueue), unless the set
    /// was enabled again or retired meanwhile.
    fn disarm(&self) {
        if self.state() != SetState::Disabled {
            return;
        }
        let t0 = now_ns();
        let gp0 = gpcount::snapshot();
        let _fast = rcu::expedite();
        // Runs to the end even if an unregister arrives meanwhile (its
        // teardown, queued behind, waits): stopping half way, so that the
        // teardown met half-disarmed optimized probes, left a stray int3 in
        // kernel text twice in TCG benchmark runs at N = 4096 ("Oops: int3"
        // at a former probe site after the teardown).
        disarm_all::<Kprobe>(&self.kptrs);
        disarm_all::<Kretprobe>(&self.rptrs);
        self.timings.disarm.store(now_ns() - t0, Ordering::Relaxed);
        self.timings.gp_disarm.record(gp0);
    }

    /// Switches the set's direct calls to the counting (`record == false`)
    /// or the counting-and-recording trampoline, without detaching.
    pub(crate) fn retarget(&self, mode: DirectMode) -> Result<(), Failed> {
        self.step(Op::Retarget)?;
        // SAFETY: Only `teardown` takes the probes, and the state machine
        // keeps it from running while a command is being executed.
        let Some(p) = (unsafe { self.probes.get_unguarded() }) else {
            return Ok(());
        };
        let gp0 = gpcount::snapshot();
        let res = p.direct.retarget(mode);
        self.timings.gp_retarget.record(gp0);
        res.map_err(|e| {
            Failed::new(
                e,
                format_args!(
                    "set {}: modify_ftrace_direct failed, errno {}",
                    BStr(&self.name),
                    e.to_errno()
                ),
            )
        })
    }

    /// Moves the set to `Retiring`; the caller then queues its teardown.
    pub(crate) fn begin_unregister(&self) -> Result<(), Failed> {
        let to = self.step(Op::Unregister)?.unwrap_or(SetState::Retiring);
        self.timings
            .unregister_started
            .store(now_ns(), Ordering::Relaxed);
        self.gate(false);
        self.set_state(to);
        Ok(())
    }

    /// Records how long the unregister call took to return (it started in
    /// [`Set::begin_unregister`]).
    pub(crate) fn unregister_returned(&self) {
        let started = self.timings.unregister_started.load(Ordering::Relaxed);
        self.timings
            .unregister_call
            .store(now_ns().saturating_sub(started), Ordering::Relaxed);
    }

    /// Unregisters every probe: one batch call per kind, one grace period
    /// each. Runs on the module workqueue, once. Returns whether an API
    /// client's completion is due ([`Set::complete`]).
    fn teardown(&self) -> bool {
        if self.state() != SetState::Retiring {
            return false;
        }
        let t0 = now_ns();
        let gp0 = gpcount::snapshot();
        let mut detached = true;
        if self.options.one_by_one {
            // SAFETY: As below.
            unsafe {
                probe::unregister_one_by_one::<Kprobe>(&self.kptrs);
                probe::unregister_one_by_one::<Kretprobe>(&self.rptrs);
            }
        } else {
            let _fast = rcu::expedite();
            // SAFETY: By the type invariant the pointers are registered
            // probes; the state check above and the single queueing make
            // this run once.
            unsafe {
                probe::unregister_all::<Kprobe>(&self.kptrs);
                probe::unregister_all::<Kretprobe>(&self.rptrs);
            }
        }
        // SAFETY: Only this function takes the probes, and it runs once.
        if let Some(p) = unsafe { self.probes.get_unguarded() } {
            let t = now_ns();
            let gp = gpcount::snapshot();
            detached = p.direct.detach();
            self.timings.detach.store(now_ns() - t, Ordering::Relaxed);
            self.timings.gp_detach.record(gp);
            // No handler runs any more: freeze the counts before the slots
            // are unpublished, so that a reader never sees neither.
            let (hits, missed) = totals(p);
            self.final_counts.0.store(hits, Ordering::Relaxed);
            self.final_counts.1.store(missed, Ordering::Relaxed);
            if let Some(o) = &self.owner {
                o.freeze(p);
            }
        }
        // Unpublish the slots; readers still looking at them are safe until
        // a grace period has passed, when `call_rcu` frees them.
        let probes = self.probes.take();
        if detached {
            drop(probes);
        } else if let Some(p) = probes {
            // ftrace still holds the ops (in the slots' box) and may call
            // the module's trampolines: keep both for good.
            core::mem::forget(p);
            // SAFETY: Takes a reference on this module, which is live (its
            // code is running); it is never put, so the module stays.
            unsafe { bindings::bp_pin_module() };
        }
        let now = now_ns();
        self.timings.teardown.store(now - t0, Ordering::Relaxed);
        self.timings.gp_teardown.record(gp0);
        let started = self.timings.unregister_started.load(Ordering::Relaxed);
        self.timings
            .unregister_complete
            .store(now.saturating_sub(started), Ordering::Relaxed);
        self.set_state(SetState::Freed);
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

    /// Unregisters synchronously a set that was never published (rollback).
    pub(crate) fn discard(&self) {
        // The same write may have disabled the set before a later line
        // failed: its queued disarm must not run on probes freed here.
        self.flush_disarm();
        if self.state().is_live() {
            self.set_state(SetState::Retiring);
            if self.teardown() {
                self.complete();
            }
        }
    }

    fn step(&self, op: Op) -> Result<Option<SetState>, Failed> {
        lifecycle::next(self.state(), op).map_err(|r| {
            Failed::new(
                Error::from_errno(-r.errno()),
                format_args!("set {}: {}", BStr(&self.name), r.as_str()),
            )
        })
    }

    /// Writes the one-line summary used by the `sets` file.
    pub(crate) fn write_summary(&self, w: &mut impl Write) -> core::fmt::Result {
        let guard = rcu::read_lock();
        let p = self.probes.get(&guard);
        let (hits, _) = p.map_or_else(|| self.frozen(), totals);
        writeln!(
            w,
            "{} {} kprobes={} kretprobes={} direct={} skipped={} hits={}",
            BStr(&self.name),
            self.state().as_str(),
            self.kptrs.len(),
            self.rptrs.len(),
            self.ndirect,
            self.nskipped,
            hits
        )
    }

    fn frozen(&self) -> (u64, u64) {
        (
            self.final_counts.0.load(Ordering::Relaxed),
            self.final_counts.1.load(Ordering::Relaxed),
        )
    }

    /// Writes the full statistics used by the `stats` file.
    pub(crate) fn write_stats(&self, w: &mut impl Write) -> core::fmt::Result {
        let guard = rcu::read_lock();
        let p = self.probes.get(&guard);
        let t = &self.timings;
        let (hits, missed) = p.map_or_else(|| self.frozen(), totals);
        writeln!(
            w,
            "set {} state={} kprobes={} kretprobes={} direct={} mode={} skipped={} hits={} missed={}",
            BStr(&self.name),
            self.state().as_str(),
            self.kptrs.len(),
            self.rptrs.len(),
            self.ndirect,
            p.map_or("-", |p| p.direct.mode().as_str()),
            self.nskipped,
            hits,
            missed
        )?;
        writeln!(
            w,
            "  register_ns={} attach_ns={} enable_ns={} disable_ns={} disarm_ns={} unregister_call_ns={} detach_ns={} teardown_ns={} unregister_complete_ns={}",
            t.register.load(Ordering::Relaxed),
            t.attach.load(Ordering::Relaxed),
            t.enable.load(Ordering::Relaxed),
            t.disable.load(Ordering::Relaxed),
            t.disarm.load(Ordering::Relaxed),
            t.unregister_call.load(Ordering::Relaxed),
            t.detach.load(Ordering::Relaxed),
            t.teardown.load(Ordering::Relaxed),
            t.unregister_complete.load(Ordering::Relaxed)
        )?;
        writeln!(
            w,
            "  grace_periods {} register={} enable={} disarm={} retarget={} teardown={} detach={}",
            gpcount::NAMES,
            t.gp_register,
            t.gp_enable,
            t.gp_disarm,
            t.gp_retarget,
            t.gp_teardown,
            t.gp_detach
        )?;
        let Some(p) = p else { return Ok(()) };
        write_slots(w, &p.kprobes)?;
        write_slots(w, &p.kretprobes)?;
        for s in p.direct.iter() {
            writeln!(
                w,
                "  direct {} {}+0 hits={} missed={} last_arg={}",
                BStr(s.name()),
                BStr(s.symbol()),
                s.hits(),
                s.missed(),
                Kptr(s.last_arg())
            )?;
        }
        for (sym, errno) in p.skipped.named.iter() {
            writeln!(w, "  skipped {} errno={}", BStr(sym), errno)?;
        }
        if p.skipped.total > p.skipped.named.len() {
            writeln!(
                w,
                "  skipped ... {} more",
                p.skipped.total - p.skipped.named.len()
            )?;
        }
        Ok(())
    }
}

fn totals(p: &Probes) -> (u64, u64) {
    let mut hits = 0u64;
    let mut missed = 0u64;
    let k = p.kprobes.iter().map(|s| (s.hits(), s.missed()));
    let r = p.kretprobes.iter().map(|s| (s.hits(), s.missed()));
    let d = p.direct.iter().map(|s| (s.hits(), s.missed()));
    for (h, m) in Iterator::chain(Iterator::chain(k, r), d) {
        hits = hits.wrapping_add(h);
        missed = missed.wrapping_add(m);
    }
    (hits, missed)
}

fn write_slots<B: Backend>(w: &mut impl Write, slots: &Slots<B>) -> core::fmt::Result {
    for s in slots.iter() {
        writeln!(
            w,
            "  {} {} {}+{} hits={} missed={}",
            B::NAME,
            BStr(s.name()),
            BStr(s.symbol()),
            s.offset(),
            s.hits(),
            s.missed()
        )?;
    }
    Ok(())
}

/// Arms all of `ptrs`; on a failure disarms those armed and names the probe.
fn arm_all<B: Backend>(ptrs: &[*mut B::Raw]) -> Result<(), Failed> {
    for (i, &raw) in ptrs.iter().enumerate() {
        // SAFETY: The set's invariant: `raw` is registered.
        let ret = unsafe { B::enable(raw) };
        if ret < 0 {
            disarm_all::<B>(ptrs.get(..i).unwrap_or(&[]));
            // SAFETY: The set's pointers are the `raw` fields of live slots.
            let slot = unsafe { probe::slot_of::<B>(raw) };
            return Err(Failed::new(
                Error::from_errno(ret),
                format_args!(
                    "{} {}: enable failed, errno {}",
                    B::NAME,
                    BStr(slot.symbol()),
                    ret
                ),
            ));
        }
    }
    Ok(())
}

fn disarm_all<B: Backend>(ptrs: &[*mut B::Raw]) {
    for &raw in ptrs {
        // SAFETY: The set's invariant: `raw` is registered. Disabling a
        // disabled probe is a no-op for the kernel.
        unsafe { B::disable(raw) };
    }
}

/// Bytes shown as text (names are ASCII by construction).
pub(crate) struct BStr<'a>(pub(crate) &'a [u8]);

/// A recorded raw value (a traced function's first argument, often a
/// kernel pointer), shown as `%pK` shows it to the reader: hashed, raw or
/// zeros as `kptr_restrict` and the reader's capabilities allow.
struct Kptr(u64);

impl core::fmt::Display for Kptr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut buf = [0u8; 32];
        // SAFETY: `buf` is writable for its length; `%pK` only reads the
        // reader's credentials (process context: a `stats` read).
        let n =
            unsafe { bindings::bp_format_kptr(buf.as_mut_ptr().cast(), buf.len(), self.0 as _) };
        let n = usize::try_from(n).unwrap_or(0).min(buf.len());
        f.write_str(core::str::from_utf8(buf.get(..n).unwrap_or(&[])).unwrap_or("?"))
    }
}

impl core::fmt::Display for BStr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match core::str::from_utf8(self.0) {
            Ok(s) => f.write_str(s),
            Err(_) => f.write_str("?"),
        }
    }
}
