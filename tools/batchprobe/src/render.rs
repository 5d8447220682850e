// SPDX-License-Identifier: GPL-2.0

//! What a user reads: aligned tables and log2 histograms drawn as the BCC
//! tools draw them. Pure text out, so the host tests compare it.

pub mod hist;
pub mod table;

/// A duration in ns, short: `950ns`, `12.3us`, `4.56ms`, `1.20s`.
pub fn duration(ns: u64) -> String {
    match ns {
        0..=999 => format!("{ns}ns"),
        1_000..=999_999 => format!("{:.1}us", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.2}ms", ns as f64 / 1e6),
        _ => format!("{:.2}s", ns as f64 / 1e9),
    }
}

/// A percentile given as a bucket's end: `<16.4us`; past the last bucket
/// `inf`.
pub fn below(end: Option<u64>) -> String {
    match end {
        Some(ns) => format!("<{}", duration(ns)),
        None => "inf".into(),
    }
}
