// SPDX-License-Identifier: GPL-2.0

//! Parsing `sprint_symbol()` output (`name+0xoff/0xsize [module]`).
//!
//! The kernel exports no symbol iterator to modules, but `sprint_symbol()`
//! tells, for any address, the symbol containing it, the offset into it and
//! its size (up to the next symbol). Walking `start - offset + size` from
//! `_stext` to `_etext` therefore visits every core-kernel text symbol in
//! address order, as `/proc/kallsyms` lists them. Which of them a glob
//! takes: [`glob_candidate`] (no compiler clones unless asked for) and
//! [`glob_match`]. And `/proc/kallsyms` lines ([`parse_kallsyms_line`]),
//! which `@SYM` fetch arguments are resolved from, and kprobes' debugfs
//! `blacklist` lines ([`parse_blacklist_line`]). Pure: `tests/` compiles
//! it.

/// One decoded `sprint_symbol()` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolAt<'a> {
    /// The symbol's name.
    pub name: &'a str,
    /// The address's offset into the symbol.
    pub offset: u64,
    /// The symbol's size (distance to the next symbol).
    pub size: u64,
    /// The module that holds it, if not the core kernel.
    pub module: Option<&'a str>,
}

/// Decodes `name+0xoff/0xsize` or `name+0xoff/0xsize [module]`; `None` for a
/// bare address (no symbol there) or anything else.
pub fn parse_sprint_symbol(s: &str) -> Option<SymbolAt<'_>> {
    parse_sprint_symbol_bytes(s.as_bytes())
}

/// [`parse_sprint_symbol`] on the bytes `sprint_symbol()` wrote, which a
/// walk of every text symbol decodes once per symbol: byte scans for the
/// separators, and only the name and module checked as UTF-8 (string
/// searches and a check of the whole line were a fifth of the first
/// `create`'s walk, sampled).
pub fn parse_sprint_symbol_bytes(b: &[u8]) -> Option<SymbolAt<'_>> {
    let end = b
        .iter()
        .rposition(|&c| c != b'\0' && c != b'\n')
        .map_or(0, |i| i + 1);
    let b = b.get(..end)?;
    let (head, module) = match b.windows(2).position(|w| w == b" [") {
        Some(at) => {
            let m = b.get(at + 2..)?.strip_suffix(b"]")?;
            // "[module build_id]" when build ids are printed: keep the name.
            let m = m.split(|&c| c == b' ').next().unwrap_or(m);
            (b.get(..at)?, Some(core::str::from_utf8(m).ok()?))
        }
        None => (b, None),
    };
    let plus = head.iter().rposition(|&c| c == b'+')?;
    let (name, rest) = (head.get(..plus)?, head.get(plus + 1..)?);
    let slash = rest.iter().position(|&c| c == b'/')?;
    let (off, size) = (rest.get(..slash)?, rest.get(slash + 1..)?);
    if name.is_empty() {
        return None;
    }
    Some(SymbolAt {
        name: core::str::from_utf8(name).ok()?,
        offset: hex_bytes(off)?,
        size: hex_bytes(size)?,
        module,
    })
}

/// `0x` and at least one hex digit, nothing else, within 64 bits.
fn hex_bytes(b: &[u8]) -> Option<u64> {
    let d = b.strip_prefix(b"0x")?;
    if d.is_empty() {
        return None;
    }
    d.iter().try_fold(0u64, |v, &c| {
        let digit = char::from(c).to_digit(16)?;
        v.checked_mul(16)?.checked_add(u64::from(digit))
    })
}

fn hex(s: &str) -> Option<u64> {
    let d = s.strip_prefix("0x")?;
    if d.is_empty() {
        return None;
    }
    u64::from_str_radix(d, 16).ok()
}

/// A target written `MOD:SYM` (or `MOD:GLOB`): its module and the rest,
/// split at the first colon (`None`: no colon, a core-kernel name; a
/// kallsyms name never holds one).
pub fn split_module(target: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = target.iter().position(|&c| c == b':')?;
    Some((target.get(..colon)?, target.get(colon + 1..)?))
}

/// Whether a symbol found by walking text should be offered to a glob: no
/// compiler-generated clones (`foo.cold`, `foo.isra.0`) unless the pattern
/// asks for them by containing a dot itself, as the seed script filters them.
pub fn glob_candidate(name: &str, pattern: &str) -> bool {
    !name.contains('.') || pattern.contains('.')
}

/// Shell-style glob match of `name` against `pattern`: `*`, `?`, and `[...]`
/// classes with ranges and `!` negation. Iterative, no allocation, linear
/// backtracking on the last `*` only.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while let Some(&c) = n.get(ni) {
        let matched = match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some(b'?') => true,
            Some(b'[') => match class_match(p.get(pi..).unwrap_or(&[]), c) {
                Some((true, len)) => {
                    pi += len;
                    ni += 1;
                    continue;
                }
                Some((false, _)) => false,
                // An unterminated class matches a literal '['.
                None => c == b'[',
            },
            Some(&pc) => pc == c,
            None => false,
        };
        if matched {
            pi += 1;
            ni += 1;
            continue;
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p.get(pi..).unwrap_or(&[]).iter().all(|&c| c == b'*')
}

/// Matches `c` against the class at the start of `p` (which begins with `[`).
/// Returns whether it matched and the class's length, or `None` when the
/// class is not terminated.
fn class_match(p: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let lo = *p.get(i)?;
        if lo == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&b'-') && p.get(i + 2).is_some_and(|&h| h != b']') {
            let hi = *p.get(i + 2)?;
            matched |= lo <= c && c <= hi;
            i += 3;
        } else {
            matched |= lo == c;
            i += 1;
        }
    }
}

/// One `/proc/kallsyms` line: `ADDRESS TYPE NAME`, or `ADDRESS TYPE
/// NAME\t[MODULE]` for a module's symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KallsymsLine<'a> {
    /// The address, as the reader may see it (zero when hidden).
    pub addr: u64,
    /// The symbol's name.
    pub name: &'a str,
    /// The module that holds it, if not the core kernel.
    pub module: Option<&'a str>,
}

/// Decodes one `/proc/kallsyms` line (without its newline); `None` for
/// anything else.
pub fn parse_kallsyms_line(line: &str) -> Option<KallsymsLine<'_>> {
    let (addr, rest) = line.split_once(' ')?;
    let (kind, rest) = rest.split_once(' ')?;
    if addr.is_empty() || addr.len() > 16 || kind.len() != 1 {
        return None;
    }
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let (name, module) = named(rest, '\t')?;
    Some(KallsymsLine { addr, name, module })
}

/// `NAME`, or `NAME` + `sep` + `[MODULE]` (`[MODULE BUILD_ID]` where build
/// ids are shown): the name, without blanks, and the module's.
fn named(s: &str, sep: char) -> Option<(&str, Option<&str>)> {
    let (name, module) = match s.split_once(sep) {
        Some((n, m)) => {
            let m = m.strip_prefix('[')?.strip_suffix(']')?;
            (n, Some(m.split(' ').next().unwrap_or(m)))
        }
        None => (s, None),
    };
    if name.is_empty() || name.contains([' ', '\t']) {
        return None;
    }
    Some((name, module))
}

/// One line of kprobes' debugfs `blacklist` (`kernel/kprobes.c`,
/// `kprobe_blacklist_seq_show()`: `0x%px-0x%px\t%ps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlacklistLine<'a> {
    /// Where the blacklisted range starts (zero where the reader may not
    /// see addresses).
    pub start: u64,
    /// Where it ends, past its last byte (zero as `start`).
    pub end: u64,
    /// The symbol at `start`.
    pub name: &'a str,
    /// The module that holds it, if not the core kernel.
    pub module: Option<&'a str>,
}

/// Decodes one `blacklist` line (without its newline); `None` for anything
/// else (an end below its start included).
pub fn parse_blacklist_line(line: &str) -> Option<BlacklistLine<'_>> {
    let (range, sym) = line.split_once('\t')?;
    let (start, end) = range.split_once('-')?;
    let (start, end) = (hex(start)?, hex(end)?);
    if end < start {
        return None;
    }
    let (name, module) = named(sym, ' ')?;
    Some(BlacklistLine {
        start,
        end,
        name,
        module,
    })
}
