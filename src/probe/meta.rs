// SPDX-License-Identifier: GPL-2.0

//! [`Meta`]: what a probe's handler touches besides the C probe (its
//! counter, its set's gate, its names, its trace event), shared by the int3
//! probes' slots, the fprobe backend and the direct calls.

use core::sync::atomic::{AtomicU64, Ordering};

use kernel::alloc::AllocError;
use kernel::ffi::c_char;
use kernel::prelude::*;

use crate::backend::{ProbeView, Target};
use crate::bindings;
use crate::events::tracefs::{EventSlot, Fired};
use crate::gate::Gate;

mod symbol {
    //! [`Symbol`]: a name whose bytes stay put for the kernel's pointer.

    use kernel::alloc::AllocError;
    use kernel::ffi::c_char;
    use kernel::prelude::*;

    /// A NUL-terminated copy of a symbol name that the kernel may point
    /// into (`kprobe.symbol_name`).
    ///
    /// # Invariants
    ///
    /// The vector ends with a NUL and is never changed after `new`
    /// (nothing outside this module reaches it), so its buffer, and
    /// [`Symbol::as_ptr`], stay the same for as long as the value lives,
    /// wherever the value itself moves.
    pub(crate) struct Symbol(KVec<u8>);

    impl Symbol {
        /// Copies `name` (no NUL in it) and appends the NUL.
        pub(crate) fn new(name: &[u8]) -> Result<Self, AllocError> {
            let mut v = KVec::with_capacity(name.len() + 1, GFP_KERNEL)?;
            v.extend_from_slice(name, GFP_KERNEL)?;
            v.push(0, GFP_KERNEL)?;
            // INVARIANT: NUL-terminated, and never changed from now on.
            Ok(Self(v))
        }

        /// The name, NUL-terminated, for the kernel: valid while `self` is.
        pub(crate) fn as_ptr(&self) -> *const c_char {
            self.0.as_ptr().cast()
        }

        /// The name, without its NUL.
        pub(crate) fn bytes(&self) -> &[u8] {
            self.0.split_last().map(|(_, s)| s).unwrap_or(&[])
        }
    }
}

use symbol::Symbol;

/// What a probe's handler touches besides the C probe: its counter, its
/// set's gate, and what listings show.
///
/// # Invariants
///
/// `gate` points to the enable gate of the set that owns this probe, which
/// outlives it.
pub(crate) struct Meta {
    hits: AtomicU64,
    gate: *const Gate,
    /// The kernel may keep a pointer into it ([`Symbol`]'s never moves).
    symbol: Symbol,
    name: Option<KVec<u8>>,
    offset: u32,
    /// The target's index in an API client's array (0 in control-file sets).
    index: u32,
    /// Its trace event, in a set created with `--events`.
    event: EventSlot,
}

impl Meta {
    /// The counters and names of a probe on `t`, of the set whose gate is
    /// `gate`.
    pub(crate) fn new(gate: *const Gate, t: &Target<'_>) -> Result<Self, AllocError> {
        let symbol = Symbol::new(t.symbol)?;
        let name = match t.name {
            Some(n) => {
                let mut v = KVec::new();
                v.extend_from_slice(n, GFP_KERNEL)?;
                Some(v)
            }
            None => None,
        };
        // INVARIANT: the caller's `gate` is the owning set's.
        Ok(Self {
            hits: AtomicU64::new(0),
            gate,
            symbol,
            name,
            offset: t.offset,
            index: t.index,
            event: EventSlot::new(
                (t.kind, t.exit),
                t.name.is_some(),
                t.explicit,
                t.args.cloned(),
            ),
        })
    }

    /// Counts a hit if the set is enabled, writes its record (as `fired`
    /// says) if its event is on, and hands it, as `describe` says, to the
    /// set's API client if there is one. Called from probe handlers: no
    /// locks, no allocation.
    #[inline(always)]
    pub(crate) fn hit(
        &self,
        fired: impl FnOnce() -> Fired,
        describe: impl FnOnce() -> bindings::batchprobe_hit,
    ) {
        if let Some(gate) = self.count() {
            self.event.fire(fired);
            if gate.has_client() {
                gate.deliver(self.index, &describe());
            }
        }
    }

    /// Counts a hit if the set is enabled, and returns its gate then, for
    /// the caller to hand the hit on (as [`Meta::hit`] does). Called from
    /// probe handlers: no locks, no allocation.
    #[inline(always)]
    pub(crate) fn count(&self) -> Option<&Gate> {
        // SAFETY: By the type invariant `gate` outlives `self`.
        let gate = unsafe { &*self.gate };
        if !gate.is_open() {
            return None;
        }
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(gate)
    }

    /// The set's gate if the set is enabled, without counting a hit (a
    /// return). Called from probe handlers.
    #[inline(always)]
    pub(crate) fn open_gate(&self) -> Option<&Gate> {
        // SAFETY: By the type invariant `gate` outlives `self`.
        let gate = unsafe { &*self.gate };
        gate.is_open().then_some(gate)
    }

    /// Whether the set is enabled (its gate is open). Called from probe
    /// handlers.
    #[inline(always)]
    pub(crate) fn is_open(&self) -> bool {
        self.open_gate().is_some()
    }

    /// The target's index (see [`crate::api`]).
    #[inline(always)]
    pub(crate) fn index(&self) -> u32 {
        self.index
    }

    /// Whether the probe's records carry fetch arguments.
    pub(crate) fn has_args(&self) -> bool {
        self.event.has_args()
    }

    /// Its trace event (a direct slot writes its records itself).
    pub(crate) fn event(&self) -> &EventSlot {
        &self.event
    }

    /// The symbol, NUL-terminated, for the kernel.
    pub(crate) fn symbol_ptr(&self) -> *const c_char {
        self.symbol.as_ptr()
    }

    /// The symbol, without its NUL.
    pub(crate) fn symbol(&self) -> &[u8] {
        self.symbol.bytes()
    }

    /// The offset into the symbol.
    pub(crate) fn offset(&self) -> u32 {
        self.offset
    }

    /// How listings see this probe, served by `kind`, with `missed`.
    pub(crate) fn view(&self, kind: &'static str, missed: u64) -> ProbeView<'_> {
        ProbeView {
            kind,
            name: self.name.as_deref().unwrap_or(self.symbol()),
            symbol: self.symbol(),
            offset: self.offset,
            hits: self.hits.load(Ordering::Relaxed),
            missed,
            index: self.index,
            last_arg: None,
            exit: None,
            event: Some(&self.event),
            aggregate: None,
            state: None,
        }
    }
}
