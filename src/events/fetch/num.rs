// SPDX-License-Identifier: GPL-2.0

//! The kernel's number parsers (`lib/kstrtox.c`, `lib/vsprintf.c`), as the
//! fetch-argument grammar uses them: the same strings are numbers here as in
//! `kprobe_events`, with the same bases, signs and overflow rules. Pure.

/// `_parse_integer_fixup_radix`: base 0 reads `0x` (before a hex digit) as
/// hex and a leading `0` as octal; base 16 skips a `0x`.
fn fixup_radix(s: &[u8], base: u32) -> (u32, usize) {
    let hex_prefix = s.len() >= 2 && s[0] == b'0' && (s[1] | 0x20) == b'x';
    let after_prefix_is_digit = s.get(2).is_some_and(|c| c.is_ascii_hexdigit());
    match base {
        0 if s.first() == Some(&b'0') => {
            if hex_prefix && after_prefix_is_digit {
                (16, 2)
            } else {
                (8, 0)
            }
        }
        0 => (10, 0),
        16 if hex_prefix => (16, 2),
        b => (b, 0),
    }
}

fn digit(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some(u32::from(c - b'0')),
        b'a'..=b'f' => Some(u32::from(c - b'a') + 10),
        b'A'..=b'F' => Some(u32::from(c - b'A') + 10),
        _ => None,
    }
}

/// `_kstrtoull`: all of `s` (one trailing newline allowed) in `base`.
fn kstrtoull_raw(s: &str, base: u32) -> Option<u64> {
    let b = s.as_bytes();
    let (base, skip) = fixup_radix(b, base);
    let mut rest = &b[skip..];
    if rest.last() == Some(&b'\n') {
        rest = &rest[..rest.len() - 1];
    }
    if rest.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in rest {
        let d = digit(c).filter(|&d| d < base)?;
        v = v.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// `kstrtoul`/`kstrtoull`: an optional `+`, then [`kstrtoull_raw`].
pub(super) fn kstrtoul(s: &str, base: u32) -> Option<u64> {
    kstrtoull_raw(s.strip_prefix('+').unwrap_or(s), base)
}

/// `kstrtouint`: [`kstrtoul`] within `u32`.
pub(super) fn kstrtouint(s: &str, base: u32) -> Option<u32> {
    kstrtoul(s, base).and_then(|v| u32::try_from(v).ok())
}

/// `kstrtol`: a signed number within `i64`.
pub(super) fn kstrtol(s: &str, base: u32) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(abs) => negative(abs, base),
        None => kstrtoul(s, base).and_then(|v| i64::try_from(v).ok()),
    }
}

/// `kstrtol` of `-` followed by `abs`, base 0.
pub(super) fn kstrtol_negative(abs: &str) -> Option<i64> {
    negative(abs, 0)
}

fn negative(abs: &str, base: u32) -> Option<i64> {
    let v = kstrtoull_raw(abs, base)?;
    if v > i64::MAX as u64 + 1 {
        return None;
    }
    Some((v as i64).wrapping_neg())
}

/// `simple_strtoul(s, &end, base)`: the longest number at the start of `s`
/// (0 where there is none) and the bytes it took. On overflow 6.12 wraps;
/// 7.3 (`saturate`) stays at `u64::MAX`.
pub(super) fn simple_strtoul(s: &str, base: u32, saturate: bool) -> (u64, usize) {
    let b = s.as_bytes();
    let (base, skip) = fixup_radix(b, base);
    let mut v: u64 = 0;
    let mut n = skip;
    while let Some(d) = b.get(n).and_then(|&c| digit(c)).filter(|&d| d < base) {
        v = match v
            .checked_mul(u64::from(base))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => v,
            None if saturate => u64::MAX,
            None => v.wrapping_mul(u64::from(base)).wrapping_add(u64::from(d)),
        };
        n += 1;
    }
    (v, n)
}
