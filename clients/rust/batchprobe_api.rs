// SPDX-License-Identifier: GPL-2.0

//! A safe Rust wrapper over batchprobe's in-kernel API
//! (`include/batchprobe.h`): the shape a Rust client would copy.
//!
//! - [`Handler`]: what a set calls on each hit, with a [`Hit`] view.
//! - [`ProbeSet`]: an owned set. Creating it registers every target as one
//!   batch; dropping it retires the set and waits for its teardown, and only
//!   then frees the handler, so a handler never outlives its memory.
//!
//! A set pins the client's module (batchprobe holds a reference on it until
//! the set's teardown completes), so a `ProbeSet` kept in the module's own
//! state is never dropped by `rmmod` alone: drop it (or have it retired, by
//! [`ProbeSet::retire`] or an administrator's `unregister OWNER.NAME`
//! through batchprobe's debugfs) first.

// A library: a client need not use every method. (`allow`, not `expect`: a
// client that copies this file and uses every method would be warned.)
#![allow(dead_code)]

use core::ptr::NonNull;

use kernel::ffi::{c_uint, c_void};
use kernel::prelude::*;
use kernel::str::CStr;

/// The raw bindings, generated from `include/batchprobe.h`.
// `allow`, not `expect`: which of these lints the generated code trips
// depends on what bindgen makes of each kernel's headers.
#[allow(
    dead_code,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    unreachable_pub,
    improper_ctypes,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
pub(crate) mod sys {
    // `allow`, not `expect`: it fires on neither 6.12 nor 7.3 (the bindings use both).
    #[allow(unused_imports)]
    use kernel::bindings::{module, pt_regs};
    include!("batchprobe_bindings.rs");
}

/// What a target gets.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Kprobe,
    Kretprobe,
    Direct,
    /// A direct call at entry and at return (`BATCHPROBE_DIRECT_EXIT`):
    /// the handler is called twice per call ([`Hit::is_return`]).
    DirectExit,
}

impl Kind {
    fn raw(self) -> sys::batchprobe_kind {
        match self {
            Kind::Kprobe => sys::batchprobe_kind_BATCHPROBE_KPROBE,
            Kind::Kretprobe => sys::batchprobe_kind_BATCHPROBE_KRETPROBE,
            Kind::Direct => sys::batchprobe_kind_BATCHPROBE_DIRECT,
            Kind::DirectExit => sys::batchprobe_kind_BATCHPROBE_DIRECT_EXIT,
        }
    }

    fn from_raw(k: sys::batchprobe_kind) -> Option<Self> {
        match k {
            sys::batchprobe_kind_BATCHPROBE_KPROBE => Some(Kind::Kprobe),
            sys::batchprobe_kind_BATCHPROBE_KRETPROBE => Some(Kind::Kretprobe),
            sys::batchprobe_kind_BATCHPROBE_DIRECT => Some(Kind::Direct),
            sys::batchprobe_kind_BATCHPROBE_DIRECT_EXIT => Some(Kind::DirectExit),
            _ => None,
        }
    }
}

/// One target: a kernel symbol and what to put there.
#[derive(Clone, Copy)]
pub(crate) struct Target {
    pub(crate) symbol: &'static CStr,
    pub(crate) kind: Kind,
}

impl Target {
    fn raw(&self) -> sys::batchprobe_target {
        sys::batchprobe_target {
            symbol: self.symbol.as_char_ptr(),
            kind: self.kind.raw(),
            ..Default::default()
        }
    }
}

/// One hit, as the handler sees it.
pub(crate) struct Hit<'a>(&'a sys::batchprobe_hit);

impl Hit<'_> {
    /// The target's kind.
    pub(crate) fn kind(&self) -> Option<Kind> {
        Kind::from_raw(self.0.kind)
    }

    /// The probed address (kprobe) or the function's (kretprobe, direct).
    pub(crate) fn ip(&self) -> usize {
        self.0.ip
    }

    /// Kprobes: the first argument register (`di`) at the probe (the first
    /// argument at a function's entry); direct calls: the first argument.
    /// Kretprobes: `di` at the return, which no longer holds it.
    pub(crate) fn arg0(&self) -> usize {
        // SAFETY: `regs` is null or the live registers of this hit (header).
        match unsafe { self.0.regs.as_ref() } {
            Some(regs) => regs.di,
            None => self.0.args[0],
        }
    }

    /// Kretprobes, and direct exits at return: the return value (`ax`; for
    /// a function returning `int`, only its low 32 bits are the value).
    pub(crate) fn return_value(&self) -> Option<isize> {
        match self.kind() {
            // SAFETY: As in `arg0`.
            Some(Kind::Kretprobe) => unsafe { self.0.regs.as_ref() }.map(|r| r.ax as isize),
            Some(Kind::DirectExit) if self.is_return() => Some(self.0.retval as isize),
            _ => None,
        }
    }

    /// Direct exits: whether this is the call's return (else its entry).
    pub(crate) fn is_return(&self) -> bool {
        self.0.flags & sys::BATCHPROBE_HIT_RETURN != 0
    }

    /// Direct exits at return: the call's duration, in ns.
    pub(crate) fn duration_ns(&self) -> Option<u64> {
        (self.kind() == Some(Kind::DirectExit) && self.is_return()).then_some(self.0.duration_ns)
    }
}

/// What a set calls on every hit while enabled. Runs in the probed code's
/// context (int3, return trampoline, or any traced function: see the
/// header's "Contexts"): it must not sleep or allocate, and may run on many
/// CPUs at once.
pub(crate) trait Handler: Send + Sync + 'static {
    fn hit(&self, index: u32, hit: &Hit<'_>);
}

/// The C handler: forwards to the `H` behind `ctx`.
///
/// # Safety
///
/// `ctx` is the `H` a [`ProbeSet<H>`] passed to `batchprobe_create`, alive
/// until the set's teardown completed; `hit` is live for the call.
unsafe extern "C" fn trampoline<H: Handler>(
    ctx: *mut c_void,
    index: c_uint,
    hit: *const sys::batchprobe_hit,
) {
    // SAFETY: See the function's safety section.
    let (h, hit) = unsafe { (&*ctx.cast::<H>(), &*hit) };
    h.hit(index, &Hit(hit));
}

/// An owned set of probes.
///
/// # Invariants
///
/// `raw` is a handle from `batchprobe_create` whose reference this value
/// owns; `handler` is the context given to it, freed only after the set's
/// teardown completed (in `drop`).
pub(crate) struct ProbeSet<H: Handler> {
    raw: NonNull<sys::batchprobe_set>,
    handler: Pin<KBox<H>>,
}

// SAFETY: The handle may be used from any thread (the API locks inside);
// `H` is `Send + Sync`.
unsafe impl<H: Handler> Send for ProbeSet<H> {}
// SAFETY: See `Send`.
unsafe impl<H: Handler> Sync for ProbeSet<H> {}

impl<H: Handler> ProbeSet<H> {
    /// Registers `targets` as one batch, disarmed: the set `OWNER.name`.
    pub(crate) fn new(
        module: &'static ThisModule,
        name: &CStr,
        targets: &[Target],
        handler: H,
    ) -> Result<Self> {
        let handler = KBox::pin(handler, GFP_KERNEL)?;
        let mut raw = KVVec::with_capacity(targets.len(), GFP_KERNEL)?;
        for t in targets {
            raw.push(t.raw(), GFP_KERNEL)?;
        }
        let desc = sys::batchprobe_set_desc {
            owner: module.as_ptr(),
            name: name.as_char_ptr(),
            targets: raw.as_ptr(),
            count: u32::try_from(raw.len()).map_err(|_| E2BIG)?,
            handler: Some(trampoline::<H>),
            ctx: core::ptr::from_ref::<H>(&handler).cast_mut().cast(),
            flags: 0,
        };
        // SAFETY: `desc` is valid and its strings NUL-terminated; the
        // context stays alive until the teardown completed (`drop`).
        let set = unsafe { sys::batchprobe_create(&desc) };
        let addr = set as isize;
        if (-4095..0).contains(&addr) {
            return Err(Error::from_errno(addr as i32));
        }
        let raw = NonNull::new(set).ok_or(EINVAL)?;
        // INVARIANT: a fresh handle; `handler` is its context.
        Ok(Self { raw, handler })
    }

    /// Arms the set.
    pub(crate) fn enable(&self) -> Result {
        // SAFETY: A live handle (type invariant).
        kernel::error::to_result(unsafe { sys::batchprobe_enable(self.raw.as_ptr()) })
    }

    /// Stops delivering hits; disarms in the background.
    pub(crate) fn disable(&self) -> Result {
        // SAFETY: A live handle (type invariant).
        kernel::error::to_result(unsafe { sys::batchprobe_disable(self.raw.as_ptr()) })
    }

    /// Per-target hits and misses, `(hits, missed)` for target `i` in
    /// `out[i]`. Returns how many were filled.
    pub(crate) fn counts(&self, out: &mut [(u64, u64)]) -> Result<usize> {
        let mut raw = KVVec::from_elem(sys::batchprobe_counts::default(), out.len(), GFP_KERNEL)?;
        let n = u32::try_from(raw.len()).map_err(|_| E2BIG)?;
        // SAFETY: A live handle; `raw` has room for `n` entries.
        let got = unsafe { sys::batchprobe_read_counts(self.raw.as_ptr(), raw.as_mut_ptr(), n) };
        let got = usize::try_from(got).map_err(|_| Error::from_errno(got))?;
        for (o, c) in out.iter_mut().zip(raw.iter()).take(got) {
            *o = (c.hits, c.missed);
        }
        Ok(got)
    }

    /// The handler, to read what it gathered.
    pub(crate) fn handler(&self) -> &H {
        &self.handler
    }

    /// Retires the set and waits for its teardown: dropping, with the
    /// error visible (`EALREADY`, `ENOENT`: it was retired already).
    pub(crate) fn retire(mut self) -> Result {
        let ret = self.retire_and_wait();
        self.raw_put();
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; the handler box is
        // moved out once and freed here, after the teardown completed.
        drop(unsafe { core::ptr::read(&this.handler) });
        kernel::error::to_result(ret)
    }

    /// Retires the set and waits for its teardown (and, if it was retiring
    /// already, by an administrator say, waits all the same).
    fn retire_and_wait(&mut self) -> i32 {
        // SAFETY: A live handle (type invariant); waits even on -EALREADY.
        unsafe { sys::batchprobe_unregister_sync(self.raw.as_ptr()) }
    }

    /// Gives the handle's reference back.
    fn raw_put(&mut self) {
        // SAFETY: The handle's reference is given back once: by `retire`
        // (which then skips `drop`) or by `drop`.
        unsafe { sys::batchprobe_put(self.raw.as_ptr()) };
    }
}

impl<H: Handler> Drop for ProbeSet<H> {
    fn drop(&mut self) {
        // -ENOENT: retired and torn down already; -EALREADY: waited for.
        let _ = self.retire_and_wait();
        self.raw_put();
        // The handler box is freed after this, when no handler can run.
    }
}
