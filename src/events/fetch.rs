// SPDX-License-Identifier: GPL-2.0

//! The fetch-argument compiler: `kprobe_events`' argument grammar
//! (`Documentation/trace/kprobetrace.rst`), compiled as the kernel's
//! `kernel/trace/trace_probe.c` compiles it, into the same five-stage
//! programs (load, dereference, store, modify, loop) with the same limits
//! and the same refusals, each named by the kernel's `error_log` words and
//! the byte its caret points at.
//!
//! ```text
//! [NAME=]FETCHARG[:TYPE]     FETCHARG: %REG @ADDR @SYM[+|-OFFS] $stackN $stack
//!                            $argN $retval $comm \IMM \"STR" +|-[u]OFFS(FETCHARG)
//!                            ARG (a BTF parameter name); on 7.3 also $current,
//!                            this_cpu_read(FETCHARG), this_cpu_ptr(FETCHARG)
//! TYPE: u8..u64 s8..s64 x8..x64 char string ustring symbol symstr
//!       b<WIDTH>@<OFFSET>/<CONTAINER>   and TYPE[N] (N <= 64)
//! ```
//!
//! What the kernel's grammar differs in between 6.12 and 7.3 is a
//! [`Dialect`] (the host's oracle reads it from a tree's `Makefile` and
//! `.config`; the module will take it from `kcompat.rs`); what the probed
//! function's BTF says comes through [`Prototype`], so this file has no
//! kernel types in it. The host tests in `tests/` compile this very source;
//! the module does not use it yet (`docs/design/events.md`).
//!
//! Not here, and refused with the reason: BTF member access (`ARG->field`),
//! 7.3's BTF typecasts, `$arg*` and `%pd`/`%pD`.

use core::fmt;

// `#[path]`: the host tests compile this file by path (see `command.rs`).
#[path = "fetch/btf.rs"]
mod btf;
#[path = "fetch/error.rs"]
mod error;
#[path = "fetch/insn.rs"]
mod insn;
#[path = "fetch/num.rs"]
mod num;
#[path = "fetch/parse.rs"]
mod parse;
#[path = "fetch/store.rs"]
mod store;
#[path = "fetch/types.rs"]
mod types;

pub use btf::{BtfType, NoBtf, Prototype};
pub use error::{ErrorKind, FetchError};
pub use insn::{Fused, Insn, FETCH_INSN_MAX};
pub use types::{FetchType, TYPES};

use btf::btf_string;
use insn::Code;
use store::finalize;
use types::{split_spec, split_type};

use ErrorKind::*;

/// The most arguments a probe takes (`MAX_TRACE_ARGS`).
pub const MAX_TRACE_ARGS: usize = 128;
/// The longest argument name (`MAX_ARG_NAME_LEN`).
pub const MAX_ARG_NAME_LEN: usize = 32;
/// The most elements of an array type (`MAX_ARRAY_LEN`).
pub const MAX_ARRAY_LEN: u32 = 64;
/// The most bytes of fixed fields a record has (`MAX_PROBE_EVENT_SIZE`).
pub const MAX_PROBE_EVENT_SIZE: u32 = 3072;
/// The bytes of `$argN` words the kernel rewrites to BTF names, per probe
/// (`MAX_BTF_ARGS_LEN`).
pub const MAX_BTF_ARGS_LEN: usize = 128;
/// 7.3's deepest nesting of dereferences (`TRACEPROBE_MAX_NESTED_LEVEL`).
const MAX_NESTED_7_3: usize = 8;

/// Names an argument cannot take: the common fields and the probe's own.
const RESERVED_NAMES: [&str; 8] = [
    "common_type",
    "common_flags",
    "common_preempt_count",
    "common_pid",
    "common_tgid",
    "__probe_ip",
    "__probe_ret_ip",
    "__probe_func",
];

/// x86-64's register names (`regoffset_table`) and their byte offsets in
/// `struct pt_regs`.
const REGISTERS: [(&str, u16); 21] = [
    ("r15", 0),
    ("r14", 8),
    ("r13", 16),
    ("r12", 24),
    ("r11", 48),
    ("r10", 56),
    ("r9", 64),
    ("r8", 72),
    ("bx", 40),
    ("cx", 88),
    ("dx", 96),
    ("si", 104),
    ("di", 112),
    ("bp", 32),
    ("ax", 80),
    ("orig_ax", 120),
    ("ip", 128),
    ("cs", 136),
    ("flags", 144),
    ("sp", 152),
    ("ss", 160),
];

/// The grammar of one kernel release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The longest argument body (`MAX_ARGSTR_LEN`: 63 on 6.12, 255 on 7.3).
    pub max_argstr_len: usize,
    /// The largest `$stackN`/`$argN` (`PARAM_MAX_STACK`: the kernel stack's
    /// words, `THREAD_SIZE / 8`).
    pub param_max_stack: u64,
    /// 7.3: `$current`, `this_cpu_read()`/`this_cpu_ptr()`, typecasts and
    /// the nesting limit.
    pub linux_7_3: bool,
    /// `CONFIG_PROBE_EVENTS_BTF_ARGS`: parameter names, BTF-typed `$argN`
    /// and `$retval`.
    pub btf_args: bool,
}

impl Dialect {
    /// Linux 6.12's grammar, for a kernel stack of `thread_size` bytes.
    pub const fn linux_6_12(thread_size: u64, btf_args: bool) -> Self {
        Dialect {
            max_argstr_len: 63,
            param_max_stack: thread_size / 8,
            linux_7_3: false,
            btf_args,
        }
    }

    /// Linux 7.3's grammar, for a kernel stack of `thread_size` bytes.
    pub const fn linux_7_3(thread_size: u64, btf_args: bool) -> Self {
        Dialect {
            max_argstr_len: 255,
            param_max_stack: thread_size / 8,
            linux_7_3: true,
            btf_args,
        }
    }

    /// The words this release's `error_log` gives `kind` (one text changed
    /// in 7.3).
    pub fn error_text(&self, kind: ErrorKind) -> &'static str {
        match kind {
            FileOnKprobe if !self.linux_7_3 => "File offset is not available with kprobe",
            _ => kind.as_str(),
        }
    }
}

/// Where the probe sits, which decides what `$argN` and `$retval` mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// At a function's entry: `$argN` reads the arguments.
    Entry,
    /// Inside a function, or at an address: neither `$argN` nor `$retval`.
    Inside,
    /// At a function's return: `$retval`, and `$argN` kept at entry.
    Return,
}

/// An argument's field name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgName<'a> {
    /// `NAME=`, or a BTF parameter's own name.
    Given(&'a str),
    /// No name: the `i`th argument (0-based) is `arg<i+1>`.
    Nth(usize),
}

impl ArgName<'_> {
    /// Whether the field is named `name`.
    pub fn is(&self, name: &str) -> bool {
        match *self {
            ArgName::Given(n) => n == name,
            ArgName::Nth(i) => {
                name.strip_prefix("arg").and_then(|d| num::kstrtoul(d, 10)) == Some(i as u64 + 1)
                    && !sub(name, 3..).starts_with(['0', '+'])
            }
        }
    }
}

impl fmt::Display for ArgName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ArgName::Given(n) => f.write_str(n),
            ArgName::Nth(i) => write!(f, "arg{}", i + 1),
        }
    }
}

/// One compiled argument: a record field and the program that fills it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeArg<'a> {
    /// The field's name.
    pub name: ArgName<'a>,
    /// How it is stored and printed.
    pub ty: &'static FetchType,
    /// Array elements (`TYPE[N]`); 0 for a single value.
    pub count: u32,
    /// Its offset among the probe's fields (after the probe's own).
    pub offset: u32,
    /// The program; [`Insn::End`] ends it.
    pub code: [Insn<'a>; FETCH_INSN_MAX],
    /// The program in one step, where it has a usual form ([`Fused::of`]).
    pub fused: Fused<'a>,
    /// Reads a register other than through `$argN`/`$stack` (`%REG`): an
    /// fprobe cannot give it (fprobe events refuse it), an int3 kprobe can.
    pub needs_regs: bool,
}

impl<'a> ProbeArg<'a> {
    /// The instructions up to [`Insn::End`].
    pub fn program(&self) -> &[Insn<'a>] {
        let end = self
            .code
            .iter()
            .position(|i| *i == Insn::End)
            .unwrap_or(FETCH_INSN_MAX);
        &self.code[..end]
    }

    /// Bytes of fixed field (a string's `__data_loc` word, each element of an
    /// array).
    pub fn size(&self) -> u32 {
        u32::from(self.ty.size) * self.count.max(1)
    }
}

/// `&s[r]` without a panic: every index the compiler slices at is one it
/// found at an ASCII byte, so `get` always gives the slice (were it not,
/// the slice would be empty, and the argument refused). A module cannot
/// panic, and `str`'s slicing has a failure path objtool cannot follow.
pub(crate) fn sub<I: core::slice::SliceIndex<str, Output = str>>(s: &str, r: I) -> &str {
    s.get(r).unwrap_or("")
}

/// `s.contains(pat)` by bytes (core's substring searcher has the same
/// failure paths as `str` slicing).
pub(crate) fn has(s: &str, pat: &str) -> bool {
    pat.is_empty() || s.as_bytes().windows(pat.len()).any(|w| w == pat.as_bytes())
}

/// `is_good_name`: a C identifier.
pub fn is_good_name(name: &str) -> bool {
    let mut b = name.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `traceprobe_split_symbol_offset` for `@SYM[+|-OFFS]`: the symbol and the
/// offset; `None` where the offset is not a number.
pub fn split_symbol_offset(s: &str) -> Option<(&str, i64)> {
    match s.find(['+', '-']) {
        Some(i) => Some((sub(s, ..i), num::kstrtol(sub(s, i..), 0)?)),
        None => Some((s, 0)),
    }
}

/// Compiles one probe's arguments, in order: the state that spans them (the
/// record's size so far, the entry arguments a return probe keeps).
pub struct Compiler<'p, 'n> {
    dialect: Dialect,
    site: Site,
    btf: &'p dyn Prototype<'n>,
    /// Bytes of `$argN` words rewritten to BTF names so far (the kernel
    /// rewrites into a buffer of `MAX_BTF_ARGS_LEN`).
    meta_used: usize,
    size: u32,
    entry: [u32; MAX_TRACE_ARGS],
    nr_entry: usize,
    /// The BTF type of the value the last load gave (`ctx->last_type`).
    last_btf: Option<BtfType>,
    /// Whether the argument being compiled reads a register.
    regs: bool,
    /// Whether the function's BTF has been looked up for this probe (the
    /// kernel's `ctx->btf`, after which a function without parameters
    /// reports a name as not found rather than as no BTF entry).
    btf_queried: bool,
    /// An fprobe event's arguments (`TPARG_FL_FPROBE`): no `%REG`.
    fprobe: bool,
}

impl<'p, 'n> Compiler<'p, 'n> {
    /// A compiler for one probe at `site`, whose function BTF describes as
    /// `btf`.
    pub fn new(dialect: Dialect, site: Site, btf: &'p dyn Prototype<'n>) -> Self {
        Compiler {
            dialect,
            site,
            btf,
            meta_used: 0,
            size: 0,
            entry: [0; MAX_TRACE_ARGS],
            nr_entry: 0,
            last_btf: None,
            regs: false,
            btf_queried: false,
            fprobe: false,
        }
    }

    /// The same, for an fprobe event's arguments (`TPARG_FL_FPROBE`), as
    /// `trace_fprobe_create()` parses them: a register (`%REG`) is refused,
    /// the rest is a function entry's (or return's) grammar. batchprobe's
    /// `d:` lines are compiled so: their records are read from the saved
    /// argument registers of an ftrace-direct trampoline.
    pub fn fprobe(mut self) -> Self {
        self.fprobe = true;
        self
    }

    /// Bytes of the probe's fixed fields so far.
    pub fn record_size(&self) -> u32 {
        self.size
    }

    /// The function arguments (0-based) a return probe keeps at entry, in
    /// the order of their slots in the entry data (8 bytes each).
    pub fn entry_args(&self) -> &[u32] {
        &self.entry[..self.nr_entry]
    }

    /// `argv_has_var_arg` and `traceprobe_expand_meta_args`: the checks the
    /// kernel makes of a probe's `$arg` words before it parses any argument,
    /// in its order. Call it with the probe's argument words, before
    /// [`Compiler::compile`] is given them one by one. The error names the
    /// word (0-based).
    pub fn check_words<'w>(
        &mut self,
        words: impl Iterator<Item = &'w str> + Clone,
    ) -> Result<(), (usize, FetchError)> {
        let mut star = None;
        let mut last = None;
        for (i, w) in words.clone().enumerate() {
            let Some(rest) = w.strip_prefix("$arg") else {
                continue;
            };
            last = Some(i);
            if self.site == Site::Inside {
                return Err((i, FetchError::at(NoFentryArgs, 0)));
            }
            match rest.as_bytes().first() {
                Some(c) if c.is_ascii_digit() => {}
                Some(b'*') if star.is_some() => return Err((i, FetchError::at(DoubleArgs, 0))),
                Some(b'*') => star = Some(i),
                _ => return Err((i, FetchError::at(BadVar, 0))),
            }
        }
        let too_many = |words: usize| match words > MAX_TRACE_ARGS {
            true => Err((0, FetchError::at(TooManyArgs, 0))),
            false => Ok(()),
        };
        let Some(last) = last else {
            return too_many(words.count());
        };
        self.btf_queried = self.btf.found();
        if !self.rewrites_args() {
            return match star {
                Some(_) => Err((last, FetchError::at(NosupBtfArg, 0))),
                None => too_many(words.count()),
            };
        }
        for (i, w) in words.clone().enumerate() {
            if star == Some(i) {
                return Err((i, FetchError::at(ArgStarUnsupported, 0)));
            }
            if w.starts_with("$arg") {
                let (name, tail) = self.btf_name_of(w).map_err(|e| (i, e))?;
                let len = name.len() + tail.len();
                if len >= MAX_BTF_ARGS_LEN.saturating_sub(self.meta_used) {
                    return Err((i, FetchError::at(ArgsTooLong, 0)));
                }
                self.meta_used += len + 1;
            }
        }
        too_many(words.count())
    }

    /// `traceprobe_parse_probe_arg`: compiles `word` (`[NAME=]BODY[:TYPE]`),
    /// the argument after `prev` (see [`Compiler::check_words`]).
    pub fn compile<'a>(
        &mut self,
        word: &'a str,
        prev: &[ProbeArg<'a>],
    ) -> Result<ProbeArg<'a>, FetchError>
    where
        'n: 'a,
    {
        let index = prev.len();
        if index >= MAX_TRACE_ARGS {
            return Err(FetchError::at(TooManyArgs, 0));
        }
        let (name, fetch, spec, body_at) = if word.starts_with("$arg") {
            // A whole word `$argN[:TYPE]` may become a BTF name; then, as for
            // any word, the kernel looks for `NAME=` in it: a name that would
            // hold `$` or `:`.
            let (fetch, spec) = self.meta_arg(word)?;
            let eq = match spec {
                Some(t) => t.find('=').map(|i| fetch.len() + 1 + i),
                None => fetch.find('='),
            };
            if let Some(n) = eq {
                let kind = if n > MAX_ARG_NAME_LEN {
                    ArgNameTooLong
                } else {
                    BadArgName
                };
                return Err(FetchError::at(kind, 0));
            }
            (self.generated_name(fetch, index), fetch, spec, 0)
        } else {
            let (name, body, body_at) = match word.find('=') {
                Some(i) if i > MAX_ARG_NAME_LEN => return Err(FetchError::at(ArgNameTooLong, 0)),
                Some(0) => return Err(FetchError::at(NoArgName, 0)),
                Some(i) => (Some(sub(word, ..i)), sub(word, i + 1..), i + 1),
                None => (None, word, 0),
            };
            let (fetch, spec) = split_spec(body);
            let name = name.map_or_else(|| self.generated_name(fetch, index), ArgName::Given);
            (name, fetch, spec, body_at)
        };
        if let ArgName::Given(n) = name {
            if !is_good_name(n) {
                return Err(FetchError::at(BadArgName, 0));
            }
            if RESERVED_NAMES.contains(&n) || prev.iter().any(|a| a.name.is(n)) {
                return Err(FetchError::at(UsedArgName, 0));
            }
        } else if prev
            .iter()
            .any(|a| matches!(a.name, ArgName::Given(n) if name.is(n)))
        {
            return Err(FetchError::at(UsedArgName, 0));
        }
        self.body(name, fetch, spec, body_at)
    }

    /// `generate_probe_arg_name`: with BTF arguments, the body itself where it
    /// is a C identifier; else `argN`.
    fn generated_name<'a>(&self, word: &'a str, index: usize) -> ArgName<'a> {
        let end = word.find(':').unwrap_or(word.len());
        if self.dialect.btf_args && is_good_name(sub(word, ..end)) {
            ArgName::Given(sub(word, ..end))
        } else {
            ArgName::Nth(index)
        }
    }

    /// `traceprobe_parse_probe_arg_body`: the body (`fetch`, then `:` and
    /// `spec` if any) at byte `at` of the word.
    fn body<'a>(
        &mut self,
        name: ArgName<'a>,
        fetch: &'a str,
        spec: Option<&'a str>,
        at: usize,
    ) -> Result<ProbeArg<'a>, FetchError> {
        let len = fetch.len() + spec.map_or(0, |t| t.len() + 1);
        if len > self.dialect.max_argstr_len {
            return Err(FetchError::at(ArgTooLong, at));
        }
        if len == 0 {
            return Err(FetchError::at(NoArgBody, at));
        }
        let (type_name, count, mut ty) = split_type(fetch, spec, at)?;
        // Where the type starts, from the caret the parse leaves (below).
        let type_off = spec.map_or(0, |_| fetch.len() + 1);
        let mut code = Code::new();
        self.last_btf = None;
        self.regs = false;
        // After a dereference the kernel's caret stays at its inner argument:
        // what is refused below is pointed at from there.
        let at = self.parse(fetch, &mut code, at, 0)?;
        if let (true, Some(btf)) = (self.dialect.btf_args, self.last_btf) {
            match type_name {
                None => ty = types::find(btf.fetch_name()).ok_or(FetchError::at(BadType, at))?,
                Some(t) if has(t, "string") => btf_string(btf, t, &mut code, at)?,
                Some(_) => {}
            }
        }
        let offset = self.size;
        self.size += u32::from(ty.size) * count.max(1);
        if self.size > MAX_PROBE_EVENT_SIZE {
            return Err(FetchError::at(EventTooBig, at));
        }
        let saturate = self.dialect.linux_7_3;
        finalize(&mut code, ty, type_name, count, at, at + type_off, saturate)?;
        let code = code.into_slots();
        Ok(ProbeArg {
            name,
            ty,
            count,
            offset,
            fused: Fused::of(&code),
            code,
            needs_regs: self.regs,
        })
    }
}
