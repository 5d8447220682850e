// SPDX-License-Identifier: GPL-2.0

//! The int3 probe backends' common part: kprobes and kretprobes, one
//! [`Int3Set`] of each per set, and the per-probe [`Meta`] (counter, gate,
//! names) that the fprobe backend shares.
//!
//! A [`Slot`] embeds the C probe structure as its first field, so a probe
//! handler, which receives a pointer to that structure, finds its slot (and
//! its hit counter and its set's enable gate) without any lookup, lock or
//! allocation. The slots belong to the set's [`RcuBox`](crate::rcu::RcuBox)
//! and are freed only a grace period after their probes are unregistered.

mod chunk;
pub(crate) mod kprobe;
pub(crate) mod kretprobe;
mod meta;
mod modular;
pub(crate) mod notrace;
mod post;
mod retire;

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::alloc::AllocError;
use kernel::ffi::{c_char, c_int};
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::backend::{Added, Coming, Ctx, Fit, Found, ProbeView, Refused, SetBackend, Target};
use crate::bindings;
use crate::command::{CreateOptions, ProbeKind};
use crate::error::{self, BStr, Failed};
use crate::errtext;
use crate::events::tracefs::Fired;
use crate::locked::Locked;
use crate::retpool::Machine;
use chunk::{Chunk, CHUNK};
pub(crate) use meta::Meta;
use modular::{Modular, Wait};
use post::settle;
pub(crate) use post::Post;

/// A kind of int3 kernel probe that batchprobe registers in batches.
///
/// # Safety
///
/// `init` must install handlers that only treat the probe pointer they are
/// given as the first field of a live `Slot<Self>`, and the `unsafe`
/// functions must be the matching kernel API for `Self::Raw`.
pub(crate) unsafe trait Int3Kind: Sized + Send + Sync + 'static {
    /// The C probe structure (`struct kprobe`, `struct kretprobe`).
    type Raw: Default;
    /// The kind's name in listings.
    const NAME: &'static str;
    /// Its count's field in the `sets` line.
    const FIELD: &'static str;
    /// What its register call is, for the words of a refusal.
    const SITE: errtext::Site;

    /// How well this kind serves `t` (see [`crate::backend::Fit`]).
    fn fit(t: &Target<'_>) -> Fit;

    /// A refusal known before registering (say, an offset past the end of
    /// the symbol), as [`Added::Refused`] gives it.
    fn precheck(_t: &Target<'_>) -> Option<Refused> {
        None
    }

    /// The bytes of return-instance pool a probe on `t` takes on `m` (see
    /// [`crate::retpool`]): none for kinds without one.
    fn pool_bytes(_t: &Target<'_>, _m: Machine) -> usize {
        0
    }

    /// Checks a registered probe at `offset` into its symbol (say, where
    /// the kernel put it): an error unregisters it again and refuses the
    /// target.
    fn verify(_raw: *mut Self::Raw, _offset: u32) -> Result<(), Refused> {
        Ok(())
    }

    /// Whether a probe on `t` gets a post handler (see [`Post`]): none for
    /// kinds without one.
    fn post(_ctx: &Ctx<'_>, _t: &Target<'_>) -> Post {
        Post::No
    }

    /// Whether the kernel made a registered probe ftrace-based (it is at
    /// its function's ftrace call site): never, for kinds without one.
    ///
    /// # Safety
    ///
    /// `raw` is registered.
    unsafe fn ftrace_based(_raw: *const Self::Raw) -> bool {
        false
    }

    /// Fills a zeroed probe: target and handlers as `how` says, and
    /// registered disarmed.
    fn init(raw: &mut Self::Raw, symbol: *const c_char, how: How);

    /// `register_kprobe` and friends.
    ///
    /// # Safety
    ///
    /// `raw` was set up by `init`, is not registered, and stays allocated
    /// until a grace period after it is unregistered.
    unsafe fn register(raw: *mut Self::Raw) -> Result;

    /// Unregisters `n` registered probes in one batch (one grace period).
    ///
    /// # Safety
    ///
    /// `ptrs` points to `n` registered probes of this kind; the kernel only
    /// reads the array.
    unsafe fn unregister_many(ptrs: *mut *mut Self::Raw, n: c_int);

    /// Unregisters one registered probe (one grace period).
    ///
    /// # Safety
    ///
    /// `raw` is registered.
    unsafe fn unregister_one(raw: *mut Self::Raw) {
        let mut one = raw;
        // SAFETY: One registered probe (caller); the kernel only reads the
        // array.
        unsafe { Self::unregister_many(&mut one, 1) };
    }

    /// Whether the kernel let go of a probe handed to
    /// [`Int3Kind::unregister_many`]: `unregister_kprobes()` and
    /// `unregister_kretprobes()` return nothing, and when disarming a probe
    /// fails (an ftrace-based one whose `ftrace_set_filter_ip()` fails:
    /// "Failed to disarm kprobe-ftrace", a WARNING) they leave it in the
    /// kprobe table and clear its `addr`. Such a probe's memory must never
    /// be freed: the table still links through it.
    ///
    /// # Safety
    ///
    /// `raw` is live, and was handed to `unregister_many` or
    /// `unregister_one`.
    unsafe fn let_go(raw: *const Self::Raw) -> bool {
        // SAFETY: Live (caller); the kernel wrote `addr` under its mutex
        // before the unregister call returned.
        unsafe { Self::addr(raw) != 0 }
    }

    /// The probe's address: where the kernel put it once registered; 0 for
    /// one it could not unregister ([`Int3Kind::let_go`]).
    ///
    /// # Safety
    ///
    /// `raw` is live.
    unsafe fn addr(raw: *const Self::Raw) -> usize;

    /// The probe's `struct kprobe` (a kretprobe's `kp`).
    ///
    /// # Safety
    ///
    /// `raw` is live.
    unsafe fn kprobe(raw: *mut Self::Raw) -> *mut bindings::kprobe;

    /// Whether the kernel marked a registered probe gone: its module was
    /// unloaded (`KPROBE_FLAG_GONE`, set by kprobes' module notifier).
    ///
    /// # Safety
    ///
    /// `raw` is live.
    unsafe fn gone(raw: *mut Self::Raw) -> bool {
        // SAFETY: Live (caller).
        let kp = unsafe { Self::kprobe(raw) };
        // SAFETY: `kp` is live; the kernel sets its flags under its mutex,
        // which this does not hold: one volatile read.
        let flags = unsafe { core::ptr::read_volatile(&raw const (*kp).flags) };
        flags & bindings::KPROBE_FLAG_GONE != 0
    }

    /// Arms a registered probe.
    ///
    /// # Safety
    ///
    /// `raw` is registered.
    unsafe fn enable(raw: *mut Self::Raw) -> Result;

    /// Disarms a registered probe.
    ///
    /// # Safety
    ///
    /// `raw` is registered.
    unsafe fn disable(raw: *mut Self::Raw) -> Result;

    /// How many hits the kernel could not deliver to the handler.
    ///
    /// # Safety
    ///
    /// `raw` is a live probe.
    unsafe fn missed(raw: *const Self::Raw) -> u64;
}

/// One registered int3 probe: the C probe, then its counter and names.
///
/// # Invariants
///
/// `raw` is the first field, so a pointer to it is a pointer to the slot;
/// the kernel's `symbol_name` points into `meta`'s symbol.
#[repr(C)]
pub(crate) struct Slot<B: Int3Kind> {
    raw: Opaque<B::Raw>,
    meta: Meta,
    /// Not registered: a `MOD:SYM` probe whose module is not loaded (see
    /// [`modular`]).
    waiting: AtomicBool,
}

impl<B: Int3Kind> Slot<B> {
    /// A slot for `meta`'s probe, set up as `how` says, not registered.
    fn new(meta: Meta, how: How) -> Self {
        let mut raw = B::Raw::default();
        B::init(&mut raw, meta.symbol_ptr(), how);
        // INVARIANT: `raw` is the first field (`repr(C)`); its
        // `symbol_name`, if set, points into `meta`'s symbol, whose bytes
        // stay put as `meta` moves into the slot ([`meta`]'s `Symbol`).
        Self {
            raw: Opaque::new(raw),
            meta,
            waiting: AtomicBool::new(false),
        }
    }

    /// Counts a hit (see [`Meta::hit`]).
    #[inline(always)]
    pub(crate) fn hit(
        &self,
        fired: impl FnOnce() -> Fired,
        describe: impl FnOnce() -> bindings::batchprobe_hit,
    ) {
        self.meta.hit(fired, describe)
    }

    /// The symbol, without its NUL.
    pub(crate) fn symbol(&self) -> &[u8] {
        self.meta.symbol()
    }

    /// Keeps what a return probe's arguments read at entry (see
    /// [`crate::events::tracefs::EventSlot::keep_entry`]).
    ///
    /// # Safety
    ///
    /// As [`crate::events::tracefs::EventSlot::keep_entry`].
    #[inline(always)]
    pub(crate) unsafe fn keep_entry(&self, regs: *mut bindings::pt_regs, data: *mut u8) {
        // SAFETY: By the caller.
        unsafe { self.meta.event().keep_entry(regs, data) }
    }

    /// How listings see it: waiting for its module, or gone with it (the
    /// kernel's word), or neither.
    fn view(&self) -> ProbeView<'_> {
        // SAFETY: `raw` is a live probe for as long as `self` is.
        let missed = unsafe { B::missed(self.raw.get()) };
        let mut v = self.meta.view(B::NAME, missed);
        v.state = if self.waiting.load(Ordering::Acquire) {
            Some("waiting")
        // SAFETY: As above.
        } else if unsafe { B::gone(self.raw.get()) } {
            Some("gone")
        } else {
            None
        };
        v
    }
}

/// How [`Int3Set::add`] sets up a probe.
#[derive(Clone, Copy)]
pub(crate) struct How {
    /// The offset into the symbol.
    pub(crate) offset: u32,
    /// Kretprobes: instances to preallocate (0: the kernel's default).
    pub(crate) maxactive: u32,
    /// Handlers that do nothing (a benchmark baseline).
    pub(crate) bare: bool,
    /// Kprobes: the post handler that keeps the optimizer away
    /// (`--noopt`, see [`crate::command::CreateOptions`]).
    pub(crate) post: Post,
    /// An address to probe instead of the symbol (API targets; 0: none).
    pub(crate) addr: usize,
    /// Kretprobes: bytes kept at entry for the arguments (`$argN`; 0: none).
    pub(crate) entry_data: usize,
}

/// The int3 probes of one kind in a set: the [`SetBackend`] of kprobes
/// and kretprobes. Slots live in [`Chunk`]s, where they never move, so a
/// set can keep registering (a glob walks thousands of candidates) while
/// its first probes already fire; `ptrs` lists them for the kernel's batch
/// calls.
///
/// # Invariants
///
/// Only registered slots are kept, but for the `MOD:SYM` probes that wait
/// for their module; `modular` holds the `raw` fields of the `MOD:SYM`
/// probes (see [`modular`]) and `ptrs` those of the others, registered
/// until `retire` runs (once).
///
/// `chunks` and `ptrs` grow with the set (a glob repeated on one address
/// aggregates, so a set may hold millions of probes of one kind), hence
/// vmalloc-backed: a kmalloc vector's doubling past 4 MiB would be an
/// allocation beyond the page allocator's largest order, a WARNING and
/// `ENOMEM`. A chunk itself is [`CHUNK`] slots, kmalloc-backed.
pub(crate) struct Int3Set<B: Int3Kind> {
    chunks: KVVec<Chunk<B>>,
    ptrs: KVVec<*mut B::Raw>,
    /// The probes of `MOD:SYM` lines, registered or waiting for their
    /// module: none of them in `ptrs`.
    modular: Modular<B>,
}

// SAFETY: `gate` points into memory owned by the same set, the C probe is
// only handed to the kernel's own thread-safe API, and counters are atomic.
unsafe impl<B: Int3Kind> Send for Int3Set<B> {}
// SAFETY: See `Send`; shared access is through atomics or the kernel API,
// but for `modular`'s batch, which only `unsafe` callers use, one at a time
// by their contracts (the registry lock on a live set, or the one retire).
unsafe impl<B: Int3Kind> Sync for Int3Set<B> {}

impl<B: Int3Kind> Int3Set<B> {
    /// An empty table.
    pub(crate) fn new(_options: &CreateOptions) -> Result<Self, AllocError> {
        Ok(Self {
            chunks: KVVec::new(),
            ptrs: KVVec::new(),
            modular: Modular::new(),
        })
    }

    /// Every registered probe from the `from`-th on. Every chunk but the
    /// last is full (`register` fills them in order and drops only the
    /// slot it just pushed), so the `from`-th is in chunk `from / CHUNK`.
    fn iter_from(&self, from: usize) -> impl Iterator<Item = &Slot<B>> {
        self.chunks
            .get(from / CHUNK..)
            .unwrap_or(&[])
            .iter()
            .flat_map(|c| c.iter())
            .skip(from % CHUNK)
    }

    /// Sets up a probe as `how` says and registers it (no grace period).
    /// A probe the kernel refuses is dropped again at once, refused as
    /// `first` says of it if it says anything (a refusal `kprobe_events`
    /// makes before registering), else with the kernel's errno. `verify`
    /// then checks the registered probe: an error from it unregisters the
    /// probe again (one grace period, on this failure path only) and
    /// refuses it. A `MOD:SYM` line's probe (`wait`) is kept in
    /// [`Modular`], and kept unregistered, waiting, where the kernel knows
    /// no such symbol because its module is not loaded.
    fn register(
        &mut self,
        meta: Meta,
        how: How,
        first: impl FnOnce(*mut B::Raw) -> Option<Refused>,
        verify: impl FnOnce(*mut B::Raw) -> Result<(), Refused>,
        wait: Option<Wait>,
    ) -> Result<Added, AllocError> {
        self.ptrs.reserve(1, GFP_KERNEL)?;
        if wait.is_some() {
            self.modular.reserve()?;
        }
        let chunk = Self::open_chunk(&mut self.chunks)?;
        let slot = chunk.push(Slot::new(meta, how)).ok_or(AllocError)?;
        let raw = slot.raw.get();
        // SAFETY: Set up by `init`, not registered yet, and pinned in its
        // chunk; the set frees it a grace period after unregistering.
        if let Err(e) = unsafe { B::register(raw) } {
            if let Some(w) = wait.filter(|w| w.waits(e, slot.symbol())) {
                // INVARIANT: kept unregistered, and said so.
                slot.waiting.store(true, Ordering::Release);
                self.modular.keep(raw, how, w);
                return Ok(Added::Yes);
            }
            let first = first(raw);
            // Never registered: the kernel holds no pointer into it.
            chunk.drop_last();
            return Ok(first.map_or_else(
                || Added::refused(e, error::refusal(B::SITE, e)),
                Added::Refused,
            ));
        }
        // SAFETY: `raw` was just registered, disarmed, and nothing else
        // knows it.
        if let Err(r) = unsafe { settle::<B>(raw, how, verify) } {
            // Unregistered, and its grace period has passed: the kernel
            // holds no pointer into it any more.
            chunk.drop_last();
            return Ok(Added::Refused(r));
        }
        match wait {
            // INVARIANT: registered, in `modular` (room was reserved).
            Some(w) => self.modular.keep(raw, how, w),
            // INVARIANT: registered; capacity was reserved, so this does
            // not allocate.
            None => {
                let _ = self.ptrs.push(raw, GFP_ATOMIC);
            }
        }
        Ok(Added::Yes)
    }

    /// The last chunk of `chunks`, with room for one more slot (a new one
    /// if it is full, or there is none).
    fn open_chunk(chunks: &mut KVVec<Chunk<B>>) -> Result<&mut Chunk<B>, AllocError> {
        if !matches!(chunks.last(), Some(c) if !c.is_full()) {
            chunks.push(Chunk::new()?, GFP_KERNEL)?;
        }
        chunks.last_mut().ok_or(AllocError)
    }

    /// Every registered probe: `ptrs`, and the `MOD:SYM` probes but those
    /// that wait.
    fn registered(&self) -> impl Iterator<Item = *mut B::Raw> + '_ {
        Iterator::chain(self.ptrs.iter().copied(), self.modular.registered())
    }

    /// Disarms `ptrs`. Disabling a disabled probe is a no-op for the kernel.
    /// Process context (`disable_kprobe` takes a mutex), so it reschedules
    /// now and then.
    fn disarm_some(ptrs: impl Iterator<Item = *mut B::Raw>) {
        for (i, raw) in ptrs.enumerate() {
            if i % 256 == 255 {
                crate::sched::cond_resched();
            }
            // SAFETY: The type invariant: `raw` is registered.
            let _ = unsafe { B::disable(raw) };
        }
    }
}

impl<B: Int3Kind> SetBackend for Int3Set<B> {
    fn name(&self) -> &'static str {
        B::NAME
    }

    fn fit(&self, _ctx: &Ctx<'_>, t: &Target<'_>) -> (Fit, Found) {
        (B::fit(t), Found::default())
    }

    fn add(&mut self, ctx: &Ctx<'_>, t: &Target<'_>, _found: Found) -> Result<Added, Failed> {
        if let Some(r) = B::precheck(t) {
            return Ok(Added::Refused(r));
        }
        let maxactive = match t.kind {
            ProbeKind::Kretprobe { maxactive } => maxactive.unwrap_or(0),
            _ => 0,
        };
        let how = How {
            offset: t.offset,
            maxactive,
            bare: ctx.options.bare,
            post: B::post(ctx, t),
            addr: t.addr,
            entry_data: t.args.map_or(0, |a| a.entry_data_size()),
        };
        let meta = Meta::new(ctx.gate, t)?;
        // A line whose function no walk met (the kernel resolves its name):
        // judged where the kernel put it (the builder judged the others).
        let judge = notrace::applies(t) && t.text.is_none();
        let locked = ctx.locked;
        // Refused by the kernel: `kprobe_events` would have refused a
        // notrace function first. `register_kprobe()` sets `addr` once it
        // resolved the target, before most of its own refusals (a
        // mid-instruction offset, say); 0: it never got that far.
        let first = |raw: *mut B::Raw| {
            // SAFETY: `raw` is live: the caller drops it after this.
            let addr = unsafe { B::addr(raw) };
            if !judge || addr == 0 {
                return None;
            }
            notrace::refusal_at(locked, t, addr).err()
        };
        let judged = judge.then_some((t.symbol, t.explicit));
        // SAFETY: `register` calls it on the probe it just registered.
        let verify = |raw| unsafe { check_registered::<B>(locked, raw, t.offset, judged) };
        let wait = Wait::of(t, judge);
        Ok(self.register(meta, how, first, verify, wait)?)
    }

    fn attach(&mut self, _skip: &mut dyn FnMut(&[u8], Error)) -> Result<(), Failed> {
        Ok(())
    }

    fn return_pool_cost(&self, t: &Target<'_>, m: Machine) -> usize {
        B::pool_bytes(t, m)
    }

    fn arm(&self) -> Result<(), Failed> {
        for (i, raw) in self.registered().enumerate() {
            // A set can hold millions of probes, armed under the registry
            // lock: let others run now and then, and give up (all or
            // nothing) once the writer is killed.
            if i % 256 == 255 && crate::sched::resched_unless_killed().is_err() {
                Self::disarm_some(self.registered().take(i));
                return Err(Failed::killed());
            }
            // SAFETY: The type invariant: `raw` is registered.
            if let Err(e) = unsafe { B::enable(raw) } {
                Self::disarm_some(self.registered().take(i));
                // SAFETY: The pointers are the `raw` fields of live slots.
                let slot = unsafe { slot_of::<B>(raw) };
                return Err(Failed::new(
                    e,
                    format_args!(
                        "{} {}: enable failed: {}",
                        B::NAME,
                        BStr(slot.symbol()),
                        error::refusal(errtext::Site::KprobeEnable, e)
                    ),
                ));
            }
        }
        Ok(())
    }

    fn disarm(&self) {
        Self::disarm_some(self.registered());
    }

    /// `ptrs` in one batch, then the `MOD:SYM` probes registered now in
    /// another (a second grace period, for sets that have them).
    fn retire(&self, one_by_one: bool) -> bool {
        let mut all = true;
        if !self.ptrs.is_empty() {
            self.unregister_all(one_by_one);
            all = Self::all_let_go(&self.ptrs);
        }
        if self.modular.len() > 0 {
            // SAFETY: `retire` runs once, when the set is not live.
            let (unregistered, none_kept) = unsafe { self.modular.retire(one_by_one) };
            all &= Self::all_let_go(unregistered) && none_kept;
        }
        all
    }

    fn on_module(&self, module: &[u8]) -> bool {
        self.modular.has_module(module)
    }

    unsafe fn module_coming(&self, c: &Coming<'_>) {
        // SAFETY: As the caller guarantees.
        unsafe { self.register_coming(c) };
    }

    fn ftrace_based(&self) -> bool {
        false
    }

    fn tally(&self, f: &mut dyn FnMut(&'static str, usize)) {
        f(B::FIELD, self.ptrs.len() + self.modular.len());
    }

    fn each_from(&self, from: usize, f: &mut dyn FnMut(&ProbeView<'_>) -> bool) {
        for s in self.iter_from(from) {
            if !f(&s.view()) {
                return;
            }
        }
    }
}

/// The checks of the probe `raw`, just registered at `offset` into its
/// symbol, that the kernel does not make: [`Int3Kind::verify`]'s, then,
/// for a target the notrace rule judges where the kernel put it (`judged`:
/// its symbol, and whether it is on a line of its own), that rule's
/// ([`notrace::refusal_of`]). At `create`, and when a `MOD:SYM` probe is
/// registered again as its module comes.
///
/// # Safety
///
/// `raw` is a registered probe.
unsafe fn check_registered<B: Int3Kind>(
    locked: Locked<'_>,
    raw: *mut B::Raw,
    offset: u32,
    judged: Option<(&[u8], bool)>,
) -> Result<(), Refused> {
    B::verify(raw, offset)?;
    if let Some(named) = judged {
        // SAFETY: `raw` is registered (caller).
        notrace::refusal_of(locked, named, unsafe { B::addr(raw) })?;
    }
    Ok(())
}

/// The slot whose C probe is `raw`.
///
/// # Safety
///
/// `raw` is the `raw` field of a live `Slot<B>`.
pub(crate) unsafe fn slot_of<'a, B: Int3Kind>(raw: *mut B::Raw) -> &'a Slot<B> {
    // SAFETY: `raw` is the first field of the `repr(C)` slot (caller).
    unsafe { &*raw.cast::<Slot<B>>() }
}
