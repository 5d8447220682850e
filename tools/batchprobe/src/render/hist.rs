// SPDX-License-Identifier: GPL-2.0

//! A log2 histogram drawn as BCC's `funclatency` draws one (its
//! `print_log2_hist`): a row per power of two, `LOW -> HIGH : COUNT
//! |****|`, the stars scaled to the largest bucket, 40 wide. The module's
//! bucket 0 (0 ns) and bucket 1 (1 ns) share BCC's first row, `0 -> 1`.
//! Rows before the first non-empty one are left out.

use crate::read::stats::Hist;

/// The widest bar, as BCC's `stars_max`.
const STARS: u64 = 40;

/// BCC's slot of the module's last bucket (`src/aggregate.rs`: 40
/// buckets, the last from 2^38 ns on, unbounded): its row ends at `inf`.
const LAST_SLOT: usize = 39;

/// The histogram's rows under a `nsecs : count distribution` header.
pub fn draw(h: &Hist) -> String {
    // BCC's slot i holds [2^(i-1), 2^i - 1]; slot 1 holds 0 and 1.
    let mut slots = [0u64; LAST_SLOT + 1];
    for &(low, n) in &h.buckets {
        let i = if low == 0 {
            1
        } else {
            ((64 - low.leading_zeros()) as usize).min(LAST_SLOT)
        };
        slots[i] = slots[i].saturating_add(n);
    }
    let Some(last) = slots.iter().rposition(|&n| n != 0) else {
        return String::new();
    };
    let first = slots.iter().position(|&n| n != 0).unwrap_or(1).max(1);
    let max = slots.iter().copied().max().unwrap_or(1).max(1);
    let wide = last > 32;
    let (w, stars) = if wide { (20, STARS / 2) } else { (10, STARS) };
    let mut out = if wide {
        format!("{:>15}{:<29} : count     distribution\n", "", "nsecs")
    } else {
        format!("{:>5}{:<19} : count     distribution\n", "", "nsecs")
    };
    for (i, &n) in slots.iter().enumerate().take(last + 1).skip(first) {
        let high = if i >= LAST_SLOT {
            "inf".to_string()
        } else {
            ((1u128 << i) - 1).to_string()
        };
        let low = if i == 1 { 0 } else { 1u128 << (i - 1) };
        let bar = "*".repeat((stars * n / max) as usize);
        out.push_str(&format!(
            "{low:>w$} -> {high:<w$} : {n:<8} |{bar:<s$}|\n",
            s = stars as usize
        ));
    }
    out
}
