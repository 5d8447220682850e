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
        Some(ns) => format!("<{}", duration_up(ns)),
        None => "inf".into(),
    }
}

/// As [`duration`], rounded up at the precision shown: a bound stays a
/// bound (2^18 ns is `262.2us`, not `262.1us`).
pub fn duration_up(ns: u64) -> String {
    let up = |unit: u64, decimals: u32| {
        let step = unit / 10u64.pow(decimals);
        ns.div_ceil(step) * step
    };
    match ns {
        0..=999 => format!("{ns}ns"),
        1_000..=999_999 => duration(up(1_000, 1)),
        1_000_000..=999_999_999 => duration(up(1_000_000, 2)),
        _ => duration(up(1_000_000_000, 2)),
    }
}

/// The local time as `HH:MM:SS`, for interval headers.
pub fn clock() -> String {
    // SAFETY: time(NULL) only returns the time; localtime_r() writes the
    // `tm` it is given, a local of the right type, and reads `now`.
    let tm = unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&now, &mut tm);
        tm
    };
    format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
}
