// SPDX-License-Identifier: GPL-2.0

//! Probe lines: `KIND[:[SET/][NAME]] TARGET[%return] [OPTIONS]`, read as
//! `kprobe_events` reads them (`trace_kprobe_create()`,
//! `traceprobe_parse_event_name()`), the group being the set. Pure, as its
//! parent.

use super::{
    at, is_glob_option, next_word, set_name, Bad, FetchArgs, ParseError, ProbeKind, ProbeSpec,
    Target, MAX_ACTIVE, MAX_SYMBOL, MODULE_NAME_LEN,
};

/// The set of a probe line that names none (`p SYM`, `p:NAME SYM`), as
/// `kprobe_events` puts such an event in the group `kprobes`.
pub const DEFAULT_SET: &str = "kprobes";

/// `KIND[:[SET/][NAME]] TARGET[%return] [OPTIONS]`, with `kprobe_events`'
/// meaning: `SET/NAME` (or `SET.NAME`) names both; `NAME` alone is a probe
/// of [`DEFAULT_SET`]; `SET/` and no colon at all leave the name to the
/// symbol.
pub(super) fn probe_line<'a>(
    line: &'a str,
    head: &'a str,
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<ProbeSpec<'a>, Bad<'a>> {
    let (kind_word, group) = match head.split_once(':') {
        Some((k, g)) => (k, Some(g)),
        None => (head, None),
    };
    let (kind, int3) = probe_kind(head, kind_word)?;
    let (set, name) = match group {
        Some(g) => group_and_name(g)?,
        None => (DEFAULT_SET, None),
    };
    let written = next_word(words, end)?;
    let (kind, int3, target) = match address_target(kind, written)? {
        // The kernel probes an address with a kprobe: so does batchprobe.
        Some(t) => (kind, true, t),
        None => {
            let (kind, t) = symbol_target(kind, written, head, name.is_some())?;
            (kind, int3, t)
        }
    };
    let (limit, skip, args) = options_and_args(line, words, &target)?;
    Ok(ProbeSpec {
        kind,
        int3,
        set,
        name,
        skip,
        target,
        limit,
        args,
    })
}

/// The target `word` as an address (`kprobe_events`' `MEMADDR`): read
/// first, as `trace_kprobe_create()` tries `kstrtoul(word, 0)` first, the
/// whole word (an offset or `%return` after it is no address, as there).
/// `None`: a symbol's word (`8021q:SYM` is a module's); a word that starts
/// with a digit without being either is refused in the kernel's words. The
/// kernel probes an address with a kprobe (or a kretprobe, `r:`), never
/// through a symbol; a direct call is made on a function, by name.
fn address_target(kind: ProbeKind, word: &str) -> Result<Option<Target<'_>>, Bad<'_>> {
    let Some(addr) = parse_ulong(word.strip_prefix('+').unwrap_or(word)) else {
        if word.starts_with(|c: char| c.is_ascii_digit()) && !word.contains(':') {
            return Err(at(ParseError::BadAddress, word));
        }
        return Ok(None);
    };
    if kind == ProbeKind::Direct {
        return Err(at(ParseError::DirectAddress, word));
    }
    if addr == 0 {
        return Err(at(ParseError::BadAddress, word));
    }
    Ok(Some(Target::Address { addr }))
}

/// The target `written` as a symbol or glob, and the kind its `%return`
/// makes of `kind`; a named glob (`named`: the line's `head` names its
/// probe) and an offset on other than a `p:` line are refused.
fn symbol_target<'a>(
    kind: ProbeKind,
    written: &'a str,
    head: &'a str,
    named: bool,
) -> Result<(ProbeKind, Target<'a>), Bad<'a>> {
    let (kind, word) = return_kind(kind, written)?;
    let target = target(word)?;
    let offset = match target {
        Target::Symbol { offset, .. } => offset,
        Target::Glob { offset, .. } => {
            if named {
                return Err(at(ParseError::NamedGlob, head));
            }
            offset
        }
        Target::Address { .. } => 0,
    };
    if offset != 0 && kind != ProbeKind::Kprobe {
        let plus = word.split_once('+').map_or(word, |(_, o)| o);
        return Err(at(ParseError::OffsetNotAllowed, plus));
    }
    Ok((kind, target))
}

/// `kstrtoul(s, 0)`: `0x` (or `0X`) and a hex digit: hex; else a leading
/// `0`: octal; else decimal. The whole of `s`, no sign, no overflow.
fn parse_ulong(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let (digits, radix) = match b {
        [b'0', x, h, ..] if x.eq_ignore_ascii_case(&b'x') && h.is_ascii_hexdigit() => {
            (s.get(2..)?, 16)
        }
        [b'0', ..] => (s, 8),
        _ => (s, 10),
    };
    if digits.is_empty() || !digits.bytes().all(|c| (c as char).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// A probe line's `[SET/][NAME]` (after the colon), split by
/// [`split_group`]; an empty `NAME` after the separator names the probe
/// after its symbol.
fn group_and_name(g: &str) -> Result<(&str, Option<&str>), Bad<'_>> {
    let Some((s, n)) = split_group(g) else {
        if g.is_empty() {
            return Err(at(ParseError::NoName, g));
        }
        return Ok((DEFAULT_SET, Some(set_name(g).map_err(|e| at(e, g))?)));
    };
    if s.is_empty() {
        return Err(at(ParseError::NoSet, g));
    }
    let set = set_name(s).map_err(|e| at(e, s))?;
    if n.is_empty() {
        return Ok((set, None));
    }
    Ok((set, Some(set_name(n).map_err(|e| at(e, n))?)))
}

/// `GROUP/EVENT` (or `GROUP.EVENT`) split as
/// `traceprobe_parse_event_name()` splits it: at the first `/`, else at the
/// first `.`. `None`: no separator.
pub(super) fn split_group(word: &str) -> Option<(&str, &str)> {
    word.split_once('/').or_else(|| word.split_once('.'))
}

/// The target word `written` without `%return`, and the kind that makes
/// of the line's `kind`: a return probe (`kprobe_events`' `SYM%return` on
/// a `p:` line); on a `d:` line it is refused.
fn return_kind(kind: ProbeKind, written: &str) -> Result<(ProbeKind, &str), Bad<'_>> {
    let (word, ret) = return_suffix(written)?;
    let kind = match (ret, kind) {
        (false, k) | (true, k @ ProbeKind::Kretprobe { .. }) => k,
        (true, ProbeKind::Kprobe) => ProbeKind::Kretprobe { maxactive: None },
        (true, ProbeKind::Direct) => return Err(at(ParseError::BadSuffix, written)),
    };
    Ok((kind, word))
}

/// A target word without its `%return` suffix (a return probe, as in
/// `kprobe_events`), and whether it had one; any other `%` suffix is
/// refused.
fn return_suffix(word: &str) -> Result<(&str, bool), Bad<'_>> {
    match word.split_once('%') {
        None => Ok((word, false)),
        Some((w, "return")) => Ok((w, true)),
        Some((w, _)) => Err(at(
            ParseError::BadSuffix,
            word.get(w.len()..).unwrap_or(word),
        )),
    }
}

/// The kind of a probe line's first word `head` (`kind_word`, its part
/// before the colon), and whether it says `!` (int3 only).
fn probe_kind<'a>(head: &'a str, kind_word: &'a str) -> Result<(ProbeKind, bool), Bad<'a>> {
    let unknown = at(ParseError::UnknownCommand, head);
    let (kind_word, int3) = match kind_word.strip_suffix('!') {
        Some(k) if k != "d" => (k, true),
        Some(_) => return Err(unknown),
        None => (kind_word, false),
    };
    let kind = match kind_word {
        "p" => ProbeKind::Kprobe,
        "d" => ProbeKind::Direct,
        _ if kind_word.starts_with('r') => {
            let digits = kind_word.trim_start_matches('r');
            if kind_word.len() - digits.len() != 1 {
                return Err(unknown);
            }
            let maxactive = if digits.is_empty() {
                None
            } else {
                match parse_u32(digits) {
                    Some(n) if (1..=MAX_ACTIVE).contains(&n) => Some(n),
                    _ => return Err(at(ParseError::BadMaxActive, digits)),
                }
            };
            ProbeKind::Kretprobe { maxactive }
        }
        _ => return Err(unknown),
    };
    Ok((kind, int3))
}

/// A probe line's words after its target: for a glob, its options
/// `max=N` and `skip=GLOB`, each at most once, wherever they stand; every
/// other word is a fetch argument (`kprobe_events`' `[NAME=]FETCHARG[:TYPE]`,
/// compiled when the line is staged). On a plain symbol's line every word is
/// a fetch argument, as in `kprobe_events` (where `max=3` names one).
fn options_and_args<'a>(
    line: &'a str,
    words: &mut impl Iterator<Item = &'a str>,
    target: &Target<'a>,
) -> Result<(Option<u32>, Option<&'a str>, FetchArgs<'a>), Bad<'a>> {
    let (mut limit, mut skip, mut first) = (None, None, None);
    let is_glob = matches!(target, Target::Glob { .. });
    for w in words.by_ref() {
        if !is_glob || !is_glob_option(w) {
            first = first.or(Some(w));
        } else if let Some(n) = w.strip_prefix("max=") {
            match parse_u32(n) {
                Some(n) if n > 0 && limit.is_none() => limit = Some(n),
                _ => return Err(at(ParseError::BadLimit, w)),
            }
        } else if let Some(g) = w.strip_prefix("skip=") {
            let valid = !g.contains(':')
                && (matches!(self::target(g), Ok(Target::Glob { offset: 0, .. }))
                    || matches!(self::target(g), Ok(Target::Symbol { offset: 0, .. })));
            if skip.is_some() || !valid {
                return Err(at(ParseError::BadSkip, w));
            }
            skip = Some(g);
        }
    }
    // The words are slices of `line`: the arguments' text starts at the
    // first one's byte.
    let text = first.map_or("", |w| {
        let from = (w.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
        line.get(from..).unwrap_or("")
    });
    Ok((limit, skip, FetchArgs::new(text, is_glob)))
}

/// A symbol or glob target (an address is read by [`address_line`]): no
/// symbol starts with a digit, a module's name may (`8021q:SYM`).
fn target(word: &str) -> Result<Target<'_>, Bad<'_>> {
    let (sym, offset) = match word.split_once('+') {
        Some((s, o)) => (s, parse_u32(o).ok_or(at(ParseError::BadOffset, o))?),
        None => (word, 0),
    };
    // `MOD:SYM`: a module's function, which the kernel resolves by both
    // names (`kallsyms_lookup_name()` reads `MOD:`); the target keeps both.
    let (module, bare) = match sym.split_once(':') {
        Some((m, s)) => (Some(m), s),
        None => (None, sym),
    };
    let bad = at(ParseError::BadSymbol, bare);
    let b = bare.as_bytes();
    if b.is_empty() || b.len() > MAX_SYMBOL || b.first().is_some_and(u8::is_ascii_digit) {
        return Err(bad);
    }
    let is_glob = b.iter().any(|c| matches!(c, b'*' | b'?' | b'['));
    // `*:GLOB`: every loaded module's functions the glob matches.
    if let Some(m) = module.filter(|&m| m != "*" || !is_glob) {
        let ok = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-');
        if m.is_empty() || m.len() >= MODULE_NAME_LEN || !m.bytes().all(ok) {
            return Err(at(ParseError::BadModule, m));
        }
    }
    let plain = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$');
    if is_glob {
        if !b
            .iter()
            .all(|c| plain(c) || matches!(c, b'*' | b'?' | b'[' | b']' | b'!' | b'-'))
        {
            return Err(bad);
        }
        Ok(Target::Glob {
            pattern: sym,
            offset,
        })
    } else {
        if !b.iter().all(plain) {
            return Err(bad);
        }
        Ok(Target::Symbol { name: sym, offset })
    }
}

/// Decimal or `0x` hex, no sign, no overflow.
fn parse_u32(s: &str) -> Option<u32> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, radix).ok()
}
