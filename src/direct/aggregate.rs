// SPDX-License-Identifier: GPL-2.0

//! The memory of an exit set's aggregates (`create --exit --hist
//! --errors`): one block of [`WORDS`] counters per function and CPU, the
//! layout and arithmetic of [`crate::aggregate`].
//!
//! One allocation per set, made before the set attaches, CPU by CPU: CPU
//! `c`'s blocks are `c * stride .. (c + 1) * stride`, so a handler writes
//! only into its own CPU's part (no cache line bounces between CPUs on the
//! hot path). It holds `nr_cpu_ids` parts, and is bounded by
//! [`MAX_BYTES`].

use core::sync::atomic::AtomicU64;

use kernel::prelude::*;

use crate::aggregate::{Summarize, Summary, WORDS};
use crate::bindings;
use crate::error::Failed;
use crate::sched;

/// The most one set's aggregates may take: 384 bytes per function and CPU,
/// so 1,000 functions on 512 CPUs, or every function of a distribution
/// kernel (about 48,000) on 14.
pub(crate) const MAX_BYTES: usize = 256 << 20;

/// An exit set's aggregate counters, zeroed.
///
/// # Invariants
///
/// `words.len() == stride * ncpu`, `stride == nfunc * WORDS`, and `words`
/// is never reallocated (no push after [`Aggregates::new`]).
pub(crate) struct Aggregates {
    words: KVVec<AtomicU64>,
    stride: usize,
    ncpu: usize,
}

impl Aggregates {
    /// Counters for `nfunc` functions on every possible CPU. Fails with
    /// `E2BIG` past [`MAX_BYTES`], saying what it would take.
    pub(crate) fn new(nfunc: usize) -> Result<Self, Failed> {
        // SAFETY: Reads a variable fixed at boot.
        let ncpu = unsafe { bindings::bp_nr_cpu_ids() } as usize;
        let stride = nfunc.saturating_mul(WORDS);
        let len = stride.saturating_mul(ncpu);
        let bytes = len.saturating_mul(core::mem::size_of::<AtomicU64>());
        if bytes > MAX_BYTES {
            return Err(Failed::new(
                E2BIG,
                format_args!(
                    "--hist/--errors: {} functions on {} CPUs take {} MiB of counters, \
                     more than the {} MiB a set may have",
                    nfunc,
                    ncpu,
                    bytes >> 20,
                    MAX_BYTES >> 20
                ),
            ));
        }
        let mut words = KVVec::with_capacity(len, GFP_KERNEL)?;
        for i in 0..len {
            if i % 65536 == 65535 {
                sched::cond_resched();
            }
            words.push(AtomicU64::new(0), GFP_KERNEL)?;
        }
        // INVARIANT: `len` words, allocated once.
        Ok(Self {
            words,
            stride,
            ncpu,
        })
    }

    /// Function `func`'s blocks, for its slot.
    pub(crate) fn of(&self, func: usize) -> Option<AggRef> {
        let at = func.checked_mul(WORDS)?;
        if at.checked_add(WORDS)? > self.stride {
            return None;
        }
        // INVARIANT: `at + WORDS <= stride`, so CPU c's block, at
        // `at + c * stride`, is inside `words` for every c < ncpu.
        Some(AggRef {
            base: self.words.as_ptr().wrapping_add(at),
            stride: self.stride,
            ncpu: self.ncpu,
        })
    }
}

/// One function's blocks in its set's [`Aggregates`]: CPU `c`'s is the
/// [`WORDS`] counters at `base + c * stride`.
///
/// # Invariants
///
/// The [`Aggregates`] `base` points into outlives the [`AggRef`] (both
/// belong to the same `DirectSet`: the slot that holds this, and the
/// counters, are dropped together), and `base + c * stride + WORDS` is
/// within it for every `c < ncpu`.
pub(crate) struct AggRef {
    base: *const AtomicU64,
    stride: usize,
    ncpu: usize,
}

impl AggRef {
    /// CPU `cpu`'s block.
    #[inline(always)]
    pub(crate) fn block(&self, cpu: usize) -> Option<&[AtomicU64]> {
        if cpu >= self.ncpu {
            return None;
        }
        // SAFETY: In bounds and alive (type invariant); atomics may be
        // shared.
        Some(unsafe {
            core::slice::from_raw_parts(self.base.add(cpu.wrapping_mul(self.stride)), WORDS)
        })
    }

    /// The CPU the handler runs on (preemption is disabled: the handlers
    /// hold ftrace's recursion lock).
    #[inline(always)]
    pub(crate) fn this_cpu() -> usize {
        // SAFETY: A notrace read of the CPU number.
        unsafe { bindings::bp_this_cpu() as usize }
    }
}

impl Summarize for AggRef {
    fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for cpu in 0..self.ncpu {
            if let Some(b) = self.block(cpu) {
                s.add(b);
            }
        }
        s
    }
}
