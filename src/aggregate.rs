// SPDX-License-Identifier: GPL-2.0

//! An exit set's aggregates, per function, without a record per call
//! (`create SET --exit --hist --errors`): a log2 histogram of the calls'
//! durations, as funclatency and bpftrace's `hist()` show them, and the
//! error returns counted by errno, as `retsnoop -x` reports them.
//!
//! Each function has a block of [`WORDS`] counters per CPU
//! (`src/direct/aggregate.rs` owns the memory): only the CPU a handler
//! runs on writes its block, so no cache line is shared between CPUs on
//! the hot path; a reader sums the CPUs' blocks into a [`Summary`]. The
//! counters are atomics all the same: an NMI handler may interrupt another
//! handler on the same CPU.
//!
//! A block: [`BUCKETS`] duration buckets, the durations' sum ([`SUM`]),
//! [`ERRNO_SLOTS`] errno slots (each `errno << 52 | count`, taken by the
//! first errnos the function returns on that CPU), and [`OTHER`]: errors
//! whose errno found no free slot, counted but not named (what the set
//! lost to its bound).
//!
//! Pure: no kernel types, so the host tests (`tests/`) compile this very
//! file. Nothing here panics.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::sort;

/// Duration buckets: bucket 0 holds 0 ns, bucket `i >= 1` holds
/// `[2^(i-1), 2^i)` ns, and the last one everything from `2^38` ns (275 s)
/// on.
pub const BUCKETS: usize = 40;
/// The durations' sum (ns), for the mean.
pub const SUM: usize = BUCKETS;
/// The first errno slot.
pub const ERRNO_AT: usize = SUM + 1;
/// Distinct errnos a function keeps per CPU.
pub const ERRNO_SLOTS: usize = 4;
/// Error returns whose errno found no free slot.
pub const OTHER: usize = ERRNO_AT + ERRNO_SLOTS;
/// Counters per function and CPU: the 46 above, rounded up to six cache
/// lines (384 bytes), so that one function's block shares no line with
/// another's.
pub const WORDS: usize = 48;
/// The largest errno (`MAX_ERRNO`): a return value in `-4095..=-1` is an
/// error.
pub const MAX_ERRNO: u16 = 4095;
/// Distinct errnos a [`Summary`] names (the CPUs' slots merged).
pub const SUMMARY_ERRNOS: usize = 8;

/// The count's bits in an errno slot; the errno is above them.
const COUNT_BITS: u32 = 52;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

/// The bucket of a duration of `ns` nanoseconds.
pub fn bucket(ns: u64) -> usize {
    ((u64::BITS - ns.leading_zeros()) as usize).min(BUCKETS - 1)
}

/// The least duration bucket `i` holds.
pub fn bucket_low(i: usize) -> u64 {
    match i {
        0 => 0,
        _ => 1u64 << (i.min(BUCKETS) - 1),
    }
}

/// The first duration past bucket `i` (`None`: the last bucket, unbounded).
pub fn bucket_end(i: usize) -> Option<u64> {
    (i + 1 < BUCKETS).then(|| 1u64 << i)
}

/// How a function's return value carries an error, from its BTF return
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorReturn {
    /// It does not (void, unsigned, bool, a struct, no BTF): not counted.
    #[default]
    No,
    /// A signed 32-bit integer (`int`): only `eax` is the value, the upper
    /// half of `rax` is undefined.
    Int32,
    /// A signed 64-bit integer (`long`, the syscall wrappers' return).
    Int64,
    /// A pointer: `ERR_PTR(-errno)` (`IS_ERR_VALUE`).
    Pointer,
}

impl ErrorReturn {
    /// The errno a return value `ret` (the raw `rax`) says, if an error.
    pub fn errno(self, ret: u64) -> Option<u16> {
        let v = match self {
            ErrorReturn::No => return None,
            ErrorReturn::Int32 => i64::from(ret as u32 as i32),
            ErrorReturn::Int64 | ErrorReturn::Pointer => ret as i64,
        };
        if (-i64::from(MAX_ERRNO)..=-1).contains(&v) {
            u16::try_from(-v).ok()
        } else {
            None
        }
    }
}

/// Counts one return in a function's block on this CPU: its duration
/// (`None`: not timed) and its errno (`None`: no error, or not counted).
#[inline(always)]
pub fn record(block: &[AtomicU64], duration: Option<u64>, errno: Option<u16>) {
    if let Some(ns) = duration {
        if let Some(b) = block.get(bucket(ns)) {
            b.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(s) = block.get(SUM) {
            s.fetch_add(ns, Ordering::Relaxed);
        }
    }
    if let Some(e) = errno {
        count_errno(block, e);
    }
}

/// Counts an error return with `errno` in the first slot that has it or
/// is free (taken with a compare-exchange: a nested handler on this CPU
/// may take a slot meanwhile), else in [`OTHER`].
#[inline(always)]
fn count_errno(block: &[AtomicU64], errno: u16) {
    let tag = u64::from(errno) << COUNT_BITS;
    for slot in block.get(ERRNO_AT..OTHER).unwrap_or(&[]) {
        let mut w = slot.load(Ordering::Relaxed);
        if w == 0 {
            match slot.compare_exchange(0, tag | 1, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => w = now,
            }
        }
        if w & !COUNT_MASK == tag {
            slot.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    if let Some(o) = block.get(OTHER) {
        o.fetch_add(1, Ordering::Relaxed);
    }
}

/// What can sum a function's blocks into a [`Summary`] (listings ask only
/// when they show it).
pub trait Summarize {
    /// Every CPU's block summed.
    fn summary(&self) -> Summary;
}

/// A function's aggregates, its CPUs' blocks summed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Timed returns per duration bucket.
    pub buckets: [u64; BUCKETS],
    /// Their durations' sum (ns; wraps after 584 years of calls).
    pub sum: u64,
    /// `(errno, count)`, the most frequent first; `(0, 0)` unused.
    pub errnos: [(u16, u64); SUMMARY_ERRNOS],
    /// Error returns not named: no free slot on their CPU, or past
    /// [`SUMMARY_ERRNOS`] distinct errnos once merged.
    pub other: u64,
}

impl Default for Summary {
    fn default() -> Self {
        Self {
            buckets: [0; BUCKETS],
            sum: 0,
            errnos: [(0, 0); SUMMARY_ERRNOS],
            other: 0,
        }
    }
}

impl Summary {
    /// Adds one CPU's block.
    pub fn add(&mut self, block: &[AtomicU64]) {
        let word = |i: usize| block.get(i).map_or(0, |w| w.load(Ordering::Relaxed));
        for (i, b) in self.buckets.iter_mut().enumerate() {
            *b = b.wrapping_add(word(i));
        }
        self.sum = self.sum.wrapping_add(word(SUM));
        self.other = self.other.wrapping_add(word(OTHER));
        for i in ERRNO_AT..OTHER {
            let w = word(i);
            let errno = (w >> COUNT_BITS) as u16;
            if errno != 0 {
                self.add_errno(errno, w & COUNT_MASK);
            }
        }
        sort::sort_by(&mut self.errnos, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    }

    fn add_errno(&mut self, errno: u16, n: u64) {
        if let Some(e) = self.errnos.iter_mut().find(|e| e.0 == errno) {
            e.1 = e.1.wrapping_add(n);
        } else if let Some(e) = self.errnos.iter_mut().find(|e| e.1 == 0) {
            *e = (errno, n);
        } else {
            self.other = self.other.wrapping_add(n);
        }
    }

    /// Timed returns.
    pub fn count(&self) -> u64 {
        self.buckets.iter().fold(0u64, |a, &b| a.wrapping_add(b))
    }

    /// The mean duration (ns), if any return was timed.
    pub fn mean(&self) -> Option<u64> {
        self.sum.checked_div(self.count())
    }

    /// The end of the bucket that holds the `permille`-th per mille of
    /// the timed returns, ranked by duration: that percentile is below
    /// it. `None`: nothing timed; `Some(None)`: in the last, unbounded
    /// bucket.
    pub fn percentile_end(&self, permille: u64) -> Option<Option<u64>> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        // The rank, from 1: ceil(total * permille / 1000), without an
        // overflow (and without u128, whose division the kernel lacks).
        let p = permille.min(1000);
        let rank = (total / 1000)
            .saturating_mul(p)
            .saturating_add(((total % 1000) * p).div_ceil(1000))
            .max(1);
        let mut seen = 0u64;
        for (i, &b) in self.buckets.iter().enumerate() {
            seen = seen.saturating_add(b);
            if seen >= rank {
                return Some(bucket_end(i));
            }
        }
        Some(None)
    }

    /// Error returns counted, named or not.
    pub fn errors(&self) -> u64 {
        self.errnos
            .iter()
            .fold(self.other, |a, e| a.wrapping_add(e.1))
    }
}
