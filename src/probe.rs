// SPDX-License-Identifier: GPL-2.0

//! Preallocated probe slots shared by the kprobe and kretprobe backends.
//!
//! A [`Slot`] embeds the C probe structure as its first field, so a probe
//! handler, which receives a pointer to that structure, finds its slot (and
//! its hit counter and its set's enable gate) without any lookup, lock or
//! allocation. Slots live in fixed-capacity chunks that never move once a
//! probe in them is registered, so a set can keep registering (a glob walks
//! thousands of candidates) while its first probes already fire. The chunks
//! belong to the set's [`RcuBox`](crate::rcu::RcuBox) and are freed only a
//! grace period after their probes are unregistered.

use core::sync::atomic::{AtomicU64, Ordering};

use kernel::ffi::{c_char, c_int};
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::bindings;
use crate::gate::Gate;
use crate::kvec;

/// A kind of kernel probe that batchprobe can register in batches.
///
/// # Safety
///
/// `init` must install handlers that only treat the probe pointer they are
/// given as the first field of a live `Slot<Self>`, and the `unsafe`
/// functions must be the matching kernel API for `Self::Raw`.
pub(crate) unsafe trait Backend: Sized + 'static {
    /// The C probe structure (`struct kprobe`, `struct kretprobe`).
    type Raw: Default;
    /// The kind's name in listings.
    const NAME: &'static str;

    /// Fills a zeroed probe: target and handlers as `how` says, and
    /// registered disarmed.
    fn init(raw: &mut Self::Raw, symbol: *const c_char, how: How);

    /// `register_kprobe` and friends: 0 or a negative errno.
    ///
    /// # Safety
    ///
    /// `raw` was set up by `init`, is not registered, and stays allocated
    /// until a grace period after it is unregistered.
    unsafe fn register(raw: *mut Self::Raw) -> c_int;

    /// Unregisters `n` registered probes in one batch (one grace period).
    ///
    /// # Safety
    ///
    /// `ptrs` points to `n` registered probes of this kind; the kernel only
    /// reads the array.
    unsafe fn unregister_many(ptrs: *mut *mut Self::Raw, n: c_int);

    /// Arms a registered probe: 0 or a negative errno.
    ///
    /// # Safety
    ///
    /// `raw` is registered.
    unsafe fn enable(raw: *mut Self::Raw) -> c_int;

    /// Disarms a registered probe: 0 or a negative errno.
    ///
    /// # Safety
    ///
    /// `raw` is registered.
    unsafe fn disable(raw: *mut Self::Raw) -> c_int;

    /// How many hits the kernel could not deliver to the handler.
    ///
    /// # Safety
    ///
    /// `raw` is a live probe.
    unsafe fn missed(raw: *const Self::Raw) -> u64;
}

/// One registered probe and its counter.
///
/// # Invariants
///
/// `gate` points to the enable gate of the set that owns this slot, which
/// outlives it. `raw` is the first field, so a pointer to it is a pointer to
/// the slot. `symbol` is NUL-terminated and its buffer never moves (the
/// kernel keeps `symbol_name` pointing into it).
#[repr(C)]
pub(crate) struct Slot<B: Backend> {
    raw: Opaque<B::Raw>,
    hits: AtomicU64,
    gate: *const Gate,
    symbol: KVec<u8>,
    name: Option<KVec<u8>>,
    offset: u32,
    /// The target's index in an API client's array (0 in control-file sets).
    index: u32,
}

impl<B: Backend> Slot<B> {
    /// Counts a hit if the set is enabled, and hands it, as `describe`
    /// says, to the set's API client if there is one. Called from probe
    /// handlers: no locks, no allocation.
    #[inline(always)]
    pub(crate) fn hit(&self, describe: impl FnOnce() -> bindings::batchprobe_hit) {
        // SAFETY: By the type invariant `gate` outlives `self`.
        let gate = unsafe { &*self.gate };
        if gate.is_open() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            if gate.has_client() {
                gate.deliver(self.index, &describe());
            }
        }
    }

    /// The target's index (see [`crate::api`]).
    pub(crate) fn index(&self) -> u32 {
        self.index
    }

    /// Hits counted so far.
    pub(crate) fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Hits the kernel missed (recursion, no free kretprobe instance).
    pub(crate) fn missed(&self) -> u64 {
        // SAFETY: `raw` is a live probe for as long as `self` is.
        unsafe { B::missed(self.raw.get()) }
    }

    /// The symbol, without its NUL.
    pub(crate) fn symbol(&self) -> &[u8] {
        self.symbol.split_last().map(|(_, s)| s).unwrap_or(&[])
    }

    /// The probe's name: the one given, else the symbol.
    pub(crate) fn name(&self) -> &[u8] {
        self.name.as_deref().unwrap_or(self.symbol())
    }

    /// The offset into the symbol.
    pub(crate) fn offset(&self) -> u32 {
        self.offset
    }
}

/// Slots per chunk; a chunk is allocated whole and never grows.
const CHUNK: usize = 64;

/// The registered probes of one kind in a set.
///
/// # Invariants
///
/// Every chunk was allocated with capacity [`CHUNK`] and never holds more,
/// so its buffer never moves; only registered slots are kept.
pub(crate) struct Slots<B: Backend> {
    chunks: KVec<KVec<Slot<B>>>,
}

// SAFETY: `gate` points into memory owned by the same set, the C probe is
// only handed to the kernel's own thread-safe API, and counters are atomic.
unsafe impl<B: Backend> Send for Slots<B> {}
// SAFETY: See `Send`; shared access is through atomics or the kernel API.
unsafe impl<B: Backend> Sync for Slots<B> {}

/// How [`Slots::add`] sets up a probe.
#[derive(Clone, Copy)]
pub(crate) struct How {
    /// The offset into the symbol.
    pub(crate) offset: u32,
    /// Kretprobes: instances to preallocate (0: the kernel's default).
    pub(crate) maxactive: u32,
    /// Handlers that do nothing (a benchmark baseline).
    pub(crate) bare: bool,
    /// Kprobes: never optimized (see [`crate::command::CreateOptions`]).
    pub(crate) noopt: bool,
    /// An address to probe instead of the symbol (API targets; 0: none).
    pub(crate) addr: usize,
    /// The target's index (see [`Slot::index`]).
    pub(crate) index: u32,
}

/// What [`Slots::add`] did.
pub(crate) enum Added<R> {
    /// Registered; the pointer is for batch unregistration.
    Registered(*mut R),
    /// The kernel refused it with this (negative) errno; nothing is kept.
    Refused(i32),
}

impl<B: Backend> Slots<B> {
    /// An empty table.
    pub(crate) fn new() -> Self {
        Self {
            chunks: KVec::new(),
        }
    }

    /// Every registered probe.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Slot<B>> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Sets up a probe on `symbol` (NUL-terminated) and registers it (no
    /// grace period). A refused probe is dropped again at once. `verify`
    /// then checks the registered probe (say, where the kernel put it): an
    /// errno from it unregisters the probe again (one grace period, on this
    /// failure path only) and refuses it.
    pub(crate) fn add(
        &mut self,
        gate: *const Gate,
        symbol: KVec<u8>,
        name: Option<KVec<u8>>,
        how: How,
        verify: impl FnOnce(*mut B::Raw) -> Result<(), i32>,
    ) -> Result<Added<B::Raw>> {
        let offset = how.offset;
        if self.chunks.last().map_or(true, |c| c.len() >= CHUNK) {
            self.chunks
                .push(KVec::with_capacity(CHUNK, GFP_KERNEL)?, GFP_KERNEL)?;
        }
        let Some(chunk) = self.chunks.last_mut() else {
            return Err(ENOMEM);
        };
        let mut raw = B::Raw::default();
        B::init(&mut raw, symbol.as_ptr().cast(), how);
        let index = chunk.len();
        // INVARIANT: `gate` is the set's gate; `symbol`'s buffer moves with
        // the `KVec` header, not with its contents; the chunk has room, so
        // this push does not reallocate it.
        chunk.push(
            Slot {
                raw: Opaque::new(raw),
                hits: AtomicU64::new(0),
                gate,
                symbol,
                name,
                offset,
                index: how.index,
            },
            GFP_KERNEL,
        )?;
        // SAFETY: `index` is the slot just pushed; only a shared reference is
        // made, and other slots (possibly live) are not touched.
        let raw = unsafe { (*chunk.as_ptr().add(index)).raw.get() };
        // SAFETY: Set up by `init`, not registered yet, and the chunk never
        // moves while the set lives (type invariant); the set frees it a
        // grace period after unregistering.
        let ret = unsafe { B::register(raw) };
        if ret < 0 {
            // Never registered: the kernel holds no pointer into it.
            kvec::truncate(chunk, index);
            return Ok(Added::Refused(ret));
        }
        if let Err(errno) = verify(raw) {
            let mut one = raw;
            // SAFETY: `raw` was just registered (disarmed) and nothing else
            // knows it; the kernel only reads the array.
            unsafe { B::unregister_many(&mut one, 1) };
            // Unregistered, and its grace period has passed: the kernel
            // holds no pointer into it any more.
            kvec::truncate(chunk, index);
            return Ok(Added::Refused(errno));
        }
        Ok(Added::Registered(raw))
    }
}

/// The slot whose C probe is `raw`.
///
/// # Safety
///
/// `raw` is the `raw` field of a live `Slot<B>`.
pub(crate) unsafe fn slot_of<'a, B: Backend>(raw: *mut B::Raw) -> &'a Slot<B> {
    // SAFETY: `raw` is the first field of the `repr(C)` slot (caller).
    unsafe { &*raw.cast::<Slot<B>>() }
}

/// Unregisters `ptrs` one call (and one grace period) per probe: the naive
/// path batchprobe exists to avoid, kept as a benchmark baseline.
///
/// # Safety
///
/// As for [`unregister_all`].
pub(crate) unsafe fn unregister_one_by_one<B: Backend>(ptrs: &[*mut B::Raw]) {
    for &raw in ptrs {
        let mut one = raw;
        // SAFETY: Guaranteed by the caller, one probe at a time.
        unsafe { B::unregister_many(&mut one, 1) };
    }
}

/// Unregisters all of `ptrs` in one call (one grace period).
///
/// # Safety
///
/// Every pointer in `ptrs` is a registered probe of kind `B`, and none is
/// unregistered again afterwards.
pub(crate) unsafe fn unregister_all<B: Backend>(ptrs: &[*mut B::Raw]) {
    if ptrs.is_empty() {
        return;
    }
    let n = c_int::try_from(ptrs.len()).unwrap_or(c_int::MAX);
    // SAFETY: Guaranteed by the caller; the kernel only reads the array.
    unsafe { B::unregister_many(ptrs.as_ptr().cast_mut(), n) };
}
