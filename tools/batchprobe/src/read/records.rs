// SPDX-License-Identifier: GPL-2.0

//! Return records as tracefs prints them (`trace`, `trace_pipe`): an exit
//! set's record names its function after `<-` and ends with the call's
//! `duration=NS`. `batchprobe latency --pid` times calls from them, into
//! histograms shaped as the module's (`src/aggregate.rs`: 40 log2 buckets,
//! bucket 0 for 0 ns, bucket i from 2^(i-1), the last unbounded).

use super::stats::Hist;

/// The module's buckets.
const BUCKETS: usize = 40;

/// The function and duration of an exit record's text (`None`: another
/// line: a header, an entry record, a record without a duration).
pub fn exit_record(line: &str) -> Option<(&str, u64)> {
    let (_, after) = line.split_once(" <- ")?;
    let func = after.split(')').next()?.trim();
    let d = line.rsplit_once(" duration=")?.1;
    let ns = d.split_whitespace().next()?.parse().ok()?;
    (!func.is_empty()).then_some((func, ns))
}

/// Durations, counted as the module counts them.
#[derive(Debug, Clone)]
pub struct Durations {
    buckets: [u64; BUCKETS],
    sum: u128,
    count: u64,
}

impl Default for Durations {
    fn default() -> Self {
        Durations {
            buckets: [0; BUCKETS],
            sum: 0,
            count: 0,
        }
    }
}

impl Durations {
    /// Counts one call of `ns`.
    pub fn add(&mut self, ns: u64) {
        let i = ((u64::BITS - ns.leading_zeros()) as usize).min(BUCKETS - 1);
        self.buckets[i] = self.buckets[i].saturating_add(1);
        self.sum += u128::from(ns);
        self.count = self.count.saturating_add(1);
    }

    /// The end of the bucket holding the `permille`-th per mille (the
    /// module's `percentile_end`): `None` past the last bucket.
    fn percentile_end(&self, permille: u64) -> Option<u64> {
        let rank = (u128::from(self.count) * u128::from(permille))
            .div_ceil(1000)
            .max(1);
        let mut seen = 0u128;
        for (i, &b) in self.buckets.iter().enumerate() {
            seen += u128::from(b);
            if seen >= rank {
                return (i + 1 < BUCKETS).then(|| 1u64 << i);
            }
        }
        None
    }

    /// The histogram, as `stats` would show it (`None`: no call).
    pub fn hist(&self) -> Option<Hist> {
        if self.count == 0 {
            return None;
        }
        let mean = u64::try_from(self.sum / u128::from(self.count)).unwrap_or(u64::MAX);
        let buckets = self
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, &n)| n != 0)
            .map(|(i, &n)| (if i == 0 { 0 } else { 1u64 << (i - 1) }, n))
            .collect();
        Some(Hist {
            count: self.count,
            mean_ns: mean,
            p50_lt_ns: self.percentile_end(500),
            p90_lt_ns: self.percentile_end(900),
            p99_lt_ns: self.percentile_end(990),
            buckets,
        })
    }
}
