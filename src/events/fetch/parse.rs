// SPDX-License-Identifier: GPL-2.0

//! `parse_probe_arg`: a fetch argument's load and dereferences, as the
//! kernel parses them (6.12's recursion, 7.3's nesting limit, `$` variables,
//! registers, memory, immediates, 7.3's `this_cpu_*()` and typecast syntax),
//! into a [`Code`]. Pure, as its parent.

use super::error::ErrorKind::*;
use super::{
    num, sub, Code, Compiler, FetchError, Insn, Site, MAX_NESTED_7_3, MAX_TRACE_ARGS, REGISTERS,
};

impl Compiler<'_, '_> {
    /// `parse_probe_arg`: `arg` at byte `at` of the word, `depth`
    /// dereferences deep. Where the kernel's caret is left: at a
    /// dereference's inner argument, else at `at`.
    pub(super) fn parse<'a>(
        &mut self,
        arg: &'a str,
        code: &mut Code<'a>,
        at: usize,
        depth: usize,
    ) -> Result<usize, FetchError> {
        let d = self.dialect;
        let nests = is_nested(arg);
        if d.linux_7_3 && nests && depth >= MAX_NESTED_7_3 {
            return Err(FetchError::at(TooManyNested, at));
        }
        let mut left = at;
        match arg.as_bytes().first() {
            Some(b'$') => self.var(arg, code, at)?,
            // "eprobe and fprobe do not handle registers": 7.3 returns at
            // BAD_VAR; 6.12 logs it, then BAD_FETCH_ARG at the same byte,
            // the one its `error_log` shows last.
            Some(b'%') if self.fprobe => {
                let kind = if d.linux_7_3 { BadVar } else { BadFetchArg };
                return Err(FetchError::at(kind, at));
            }
            Some(b'%') => match REGISTERS.iter().find(|r| r.0 == sub(arg, 1..)) {
                Some(&(_, off)) => {
                    code.set(Insn::Reg(off));
                    self.regs = true;
                }
                None => return Err(FetchError::at(BadRegName, at)),
            },
            Some(b'@') => memory(arg, code, at)?,
            Some(b'+' | b'-') => left = self.deref(arg, code, at, depth)?,
            Some(b'\\') => immediate(arg, code, at)?,
            Some(b'(') if d.linux_7_3 => return Err(self.typecast(arg, at, depth)),
            Some(_) if d.linux_7_3 && nests => left = self.this_cpu(arg, code, at, depth)?,
            Some(&c) if kernel_isalpha(c) || c == b'_' => {
                if self.site == Site::Inside || !d.btf_args {
                    return Err(FetchError::at(NosupBtfArg, at));
                }
                self.btf_arg(arg, code, at)?;
            }
            _ => {}
        }
        if code.cur() == Insn::Nop {
            return Err(FetchError::at(BadFetchArg, at));
        }
        Ok(left)
    }

    /// 7.3's `(STRUCT)...->MEMBER` (`handle_typecast`): refused, in the
    /// kernel's words where its syntax or its inner argument is wrong, else
    /// as batchprobe's limit.
    fn typecast(&mut self, arg: &str, at: usize, depth: usize) -> FetchError {
        let err = FetchError::at;
        if self.site == Site::Inside || !self.dialect.btf_args {
            return err(NosupBtfArg, at);
        }
        let Some(cast_end) = arg.find(')') else {
            return err(DerefOpenBrace, at + arg.len());
        };
        let rest = sub(arg, cast_end + 1..);
        let at_rest = at + cast_end + 1;
        let arrow_after = |i: usize| sub(rest, i..).starts_with("->");
        // The inner argument, and where it starts.
        let (inner, inner_at) = if rest.starts_with('(') {
            match matched_close(rest) {
                None => return err(DerefOpenBrace, at_rest),
                Some(c) if !arrow_after(c + 1) => return err(TypecastReqField, at_rest + c + 1),
                Some(c) => (sub(rest, 1..c), at_rest + 1),
            }
        } else if is_nested(rest) {
            let Some(open) = sub(rest, 1..).find('(').map(|o| o + 1) else {
                return err(DerefNeedBrace, at_rest);
            };
            match matched_close(sub(rest, open..)) {
                None => return err(DerefOpenBrace, at_rest + rest.len()),
                Some(c) if !arrow_after(open + c + 1) => {
                    return err(TypecastReqField, at_rest + open + c + 1)
                }
                Some(c) => (sub(rest, ..open + c + 1), at_rest),
            }
        } else {
            if rest.starts_with('@') {
                let digit_after =
                    |i: usize| rest.as_bytes().get(i + 1).is_some_and(u8::is_ascii_digit);
                if rest.find(['+', '-']).is_some_and(digit_after) {
                    return err(TypecastSymOffset, at_rest);
                }
            }
            match rest.find('-') {
                Some(i) if arrow_after(i) => (sub(rest, ..i), at_rest),
                _ => return err(TypecastReqField, at_rest + rest.len()),
            }
        };
        // The kernel parses the inner argument (a nesting level deeper)
        // before it looks the structure up.
        if let Err(e) = self.parse(inner, &mut Code::new(), inner_at, depth + 1) {
            return e;
        }
        err(TypecastUnsupported, at)
    }

    /// `parse_probe_vars`: `$comm`, `$retval`, `$stack[N]`, `$current`,
    /// `$argN`.
    fn var<'a>(&mut self, arg: &'a str, code: &mut Code<'a>, at: usize) -> Result<(), FetchError> {
        let bad = |kind| Err(FetchError::at(kind, at));
        let v = sub(arg, 1..);
        if v == "comm" || v == "COMM" {
            code.set(Insn::Comm);
        } else if v.starts_with("retval") {
            if self.site != Site::Return {
                return bad(RetvalOnProbe);
            }
            if !self.dialect.btf_args {
                code.set(Insn::Retval);
                return Ok(());
            }
            return self.btf_arg(arg, code, at);
        } else if let Some(n) = v.strip_prefix("stack") {
            if n.is_empty() {
                code.set(Insn::StackP);
            } else if n.as_bytes()[0].is_ascii_digit() {
                let n = match num::kstrtoul(n, 10) {
                    Some(n) => n,
                    None => return bad(BadVar),
                };
                if n > self.dialect.param_max_stack {
                    return bad(BadStackNum);
                }
                code.set(Insn::Stack(n as u32));
            } else {
                return bad(BadVar);
            }
        } else if self.dialect.linux_7_3 && v.starts_with("current") {
            match sub(v, 7..) {
                "" => code.set(Insn::Current),
                // `$current->member`: a BTF member access.
                rest if rest.starts_with('-') && self.dialect.btf_args => {
                    return self.btf_arg(arg, code, at)
                }
                _ => return bad(BadVar),
            }
        } else if let Some(n) = v.strip_prefix("arg") {
            let n = match num::kstrtoul(n, 10) {
                Some(n) => n,
                None => return bad(BadVar),
            };
            if n == 0 || n > self.dialect.param_max_stack {
                return bad(BadArgNum);
            }
            self.function_arg((n - 1) as u32, code, at)?;
        } else {
            return bad(BadVar);
        }
        Ok(())
    }

    /// The `index`th function argument: read at entry, or kept at entry for
    /// a return probe.
    pub(super) fn function_arg(
        &mut self,
        index: u32,
        code: &mut Code<'_>,
        at: usize,
    ) -> Result<(), FetchError> {
        match self.site {
            Site::Entry => code.set(Insn::Arg(index)),
            Site::Return => {
                let slot = match self.entry_args().iter().position(|&a| a == index) {
                    Some(slot) => slot,
                    None => {
                        // At most one entry argument per probe argument.
                        let slot = self.nr_entry.min(MAX_TRACE_ARGS - 1);
                        self.entry[slot] = index;
                        self.nr_entry = slot + 1;
                        slot
                    }
                };
                code.set(Insn::EntryData(slot as u32 * 8));
            }
            Site::Inside => return Err(FetchError::at(NoFentryArgs, at)),
        }
        Ok(())
    }

    /// `+|-[u]OFFS(FETCHARG)`. The caret it leaves: at its inner argument.
    fn deref<'a>(
        &mut self,
        arg: &'a str,
        code: &mut Code<'a>,
        at: usize,
        depth: usize,
    ) -> Result<usize, FetchError> {
        let user = arg.as_bytes().get(1) == Some(&b'u');
        let negative = arg.starts_with('-');
        // The kernel moves the sign over the `u`, and drops a `+`.
        let rest = if user { sub(arg, 2..) } else { sub(arg, 1..) };
        let paren = rest.find('(').ok_or(FetchError::at(DerefNeedBrace, at))?;
        let num = sub(rest, ..paren);
        let offset = if negative {
            num::kstrtol_negative(num)
        } else {
            num::kstrtol(num, 0)
        };
        let offset = offset.ok_or(FetchError::at(BadDerefOffs, at))?;
        // The kernel's caret for the inner argument: a byte short after `u`,
        // and after `+-`.
        let inner_at = at + paren + 2 - usize::from(!negative && rest.starts_with('-'));
        let inner = sub(rest, paren + 1..);
        let close = inner
            .rfind(')')
            .ok_or(FetchError::at(DerefOpenBrace, inner_at + inner.len()))?;
        self.parse(sub(inner, ..close), code, inner_at, depth + 1)?;
        if matches!(code.cur(), Insn::Comm | Insn::ImmStr(_)) {
            return Err(FetchError::at(CommCantDeref, inner_at));
        }
        code.advance(FetchError::at(TooManyOps, inner_at))?;
        code.set(if user {
            Insn::UDeref(offset)
        } else {
            Insn::Deref(offset)
        });
        self.last_btf = None;
        Ok(inner_at)
    }

    /// 7.3's `this_cpu_read(FETCHARG)` and `this_cpu_ptr(FETCHARG)`. The
    /// caret it leaves: at its inner argument.
    fn this_cpu<'a>(
        &mut self,
        arg: &'a str,
        code: &mut Code<'a>,
        at: usize,
        depth: usize,
    ) -> Result<usize, FetchError> {
        let (read, inner) = match arg.strip_prefix("this_cpu_read(") {
            Some(inner) => (true, inner),
            None => (false, sub(arg, "this_cpu_ptr(".len()..)),
        };
        let inner_at = at + arg.len() - inner.len();
        let close = inner
            .rfind(')')
            .ok_or(FetchError::at(DerefOpenBrace, inner_at + inner.len()))?;
        let inner = sub(inner, ..close);
        self.parse(inner, code, inner_at, depth + 1)?;
        if matches!(code.cur(), Insn::Comm | Insn::ImmStr(_)) {
            return Err(FetchError::at(CommCantDeref, inner_at));
        }
        // On `@SYM` the per-CPU address replaces the symbol's dereference.
        if !inner.starts_with('@') {
            code.advance(FetchError::at(TooManyOps, inner_at))?;
        }
        code.set(Insn::CpuPtr);
        if read {
            code.advance(FetchError::at(TooManyOps, inner_at))?;
            code.set(Insn::Deref(0));
        }
        self.last_btf = None;
        Ok(inner_at)
    }
}

/// Whether `arg` nests another argument (7.3's `parse_probe_arg_nested`): a
/// dereference, a typecast or a `this_cpu_*()`.
fn is_nested(arg: &str) -> bool {
    arg.starts_with(['+', '-', '('])
        || arg.starts_with("this_cpu_ptr(")
        || arg.starts_with("this_cpu_read(")
}

/// The kernel's `isalpha` (`lib/ctype.c`): ASCII letters and Latin-1's.
fn kernel_isalpha(c: u8) -> bool {
    c.is_ascii_alphabetic() || (0xc0..=0xff).contains(&c) && c != 0xd7 && c != 0xf7
}

/// `find_matched_close_paren`: the `)` that closes `s`'s first `(`.
fn matched_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `@ADDR`, `@SYM[+|-OFFS]` (`@+OFFS`, a file offset, is for uprobes).
fn memory<'a>(arg: &'a str, code: &mut Code<'a>, at: usize) -> Result<(), FetchError> {
    let rest = sub(arg, 1..);
    match rest.as_bytes().first() {
        Some(c) if c.is_ascii_digit() => match num::kstrtoul(rest, 0) {
            Some(addr) => code.set(Insn::Imm(addr)),
            None => return Err(FetchError::at(BadMemAddr, at)),
        },
        Some(b'+') => return Err(FetchError::at(FileOnKprobe, at)),
        _ => {
            // Any text: the kernel reads the symbol and its offset only when
            // it registers the probe (`record::resolve_symbols`).
            code.set(Insn::Symbol(rest));
            code.advance(FetchError::at(TooManyOps, at))?;
            code.set(Insn::Imm(0));
        }
    }
    code.advance(FetchError::at(TooManyOps, at))?;
    code.set(Insn::Deref(0));
    Ok(())
}

/// `\IMM` and `\"STRING"`.
fn immediate<'a>(arg: &'a str, code: &mut Code<'a>, at: usize) -> Result<(), FetchError> {
    if let Some(s) = arg.strip_prefix("\\\"") {
        match s.strip_suffix('"') {
            Some(text) => code.set(Insn::ImmStr(text)),
            None => return Err(FetchError::at(ImmStrNoClose, at + 2 + s.len())),
        }
        return Ok(());
    }
    let s = sub(arg, 1..);
    let v = match s.as_bytes().first() {
        Some(c) if c.is_ascii_digit() => num::kstrtoul(s, 0),
        Some(b'-') => num::kstrtol(s, 0).map(|v| v as u64),
        Some(b'+') => num::kstrtol(sub(s, 1..), 0).map(|v| v as u64),
        _ => None,
    };
    code.set(Insn::Imm(v.ok_or(FetchError::at(BadImm, at + 1))?));
    Ok(())
}
