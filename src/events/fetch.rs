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
//! [`Dialect`] (chosen in `kcompat.rs`); what the probed function's BTF says
//! comes through [`Prototype`], so this file has no kernel types in it: the
//! module and the host tests in `tests/` compile this very source.
//!
//! Not here, and refused with the reason: BTF member access (`ARG->field`),
//! 7.3's BTF typecasts, `$arg*` and `%pd`/`%pD`.

use core::fmt;

// `#[path]`: the host tests compile this file by path (see `command.rs`).
#[path = "fetch/error.rs"]
mod error;
#[path = "fetch/insn.rs"]
mod insn;
#[path = "fetch/num.rs"]
mod num;
#[path = "fetch/types.rs"]
mod types;

pub use error::{ErrorKind, FetchError};
pub use insn::{Insn, FETCH_INSN_MAX};
pub use types::{FetchType, TYPES};

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

/// What BTF says a parameter or return value is, as far as a fetch type goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BtfType {
    /// A scalar the kernel stores as this fetch type (`s32` for an `int` or
    /// an enum, `x64` for a pointer other than `char *`, ...).
    Scalar(&'static str),
    /// `char *`: `:string` reads the string it points to.
    CharPtr,
    /// A pointer to a structure or union: what `->` follows.
    StructPtr,
    /// Any other pointer (`x64`; `->` on it has no member to find).
    Ptr,
    /// `char[N]`: `:string` reads it in place.
    CharArray,
    /// Anything else: the default type.
    Other,
}

impl BtfType {
    /// `fetch_type_from_btf_type`: the type an argument without `:TYPE` gets.
    fn fetch_name(self) -> Option<&'static str> {
        match self {
            BtfType::Scalar(name) => Some(name),
            BtfType::CharPtr | BtfType::StructPtr | BtfType::Ptr => Some("x64"),
            BtfType::CharArray | BtfType::Other => None,
        }
    }
}

/// The probed function's BTF prototype, as the compiler asks about it; its
/// names live for `'n` (the BTF they come from).
pub trait Prototype<'n> {
    /// Whether BTF describes the function at all.
    fn found(&self) -> bool;
    /// Its return type; `None` for `void`.
    fn ret(&self) -> Option<BtfType>;
    /// How many parameters it has.
    fn nr_params(&self) -> usize;
    /// The parameter named `name`: its index and type.
    fn param(&self, name: &str) -> Option<(u32, BtfType)>;
    /// The name of the `index`th parameter (0-based).
    fn param_name(&self, index: usize) -> Option<&'n str>;
}

/// No BTF: what an address probe, or a kernel without BTF, gives.
pub struct NoBtf;

impl<'n> Prototype<'n> for NoBtf {
    fn found(&self) -> bool {
        false
    }
    fn ret(&self) -> Option<BtfType> {
        None
    }
    fn nr_params(&self) -> usize {
        0
    }
    fn param(&self, _name: &str) -> Option<(u32, BtfType)> {
        None
    }
    fn param_name(&self, _index: usize) -> Option<&'n str> {
        None
    }
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
    fn is(&self, name: &str) -> bool {
        match *self {
            ArgName::Given(n) => n == name,
            ArgName::Nth(i) => {
                name.strip_prefix("arg").and_then(|d| num::kstrtoul(d, 10)) == Some(i as u64 + 1)
                    && !name[3..].starts_with(['0', '+'])
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
        Some(i) => Some((&s[..i], num::kstrtol(&s[i..], 0)?)),
        None => Some((s, 0)),
    }
}

/// The program being built: `FETCH_INSN_MAX` slots, the last one
/// [`Insn::End`], and the slot being written.
struct Code<'a> {
    slots: [Insn<'a>; FETCH_INSN_MAX],
    at: usize,
}

impl<'a> Code<'a> {
    fn new() -> Self {
        let mut slots = [Insn::Nop; FETCH_INSN_MAX];
        slots[FETCH_INSN_MAX - 1] = Insn::End;
        Code { slots, at: 0 }
    }

    fn cur(&self) -> Insn<'a> {
        self.slots[self.at]
    }

    fn set(&mut self, insn: Insn<'a>) {
        self.slots[self.at] = insn;
    }

    /// `if (++code == end)`: the next slot, unless it is the last.
    fn advance(&mut self, err: FetchError) -> Result<(), FetchError> {
        if self.at + 1 >= FETCH_INSN_MAX - 1 {
            return Err(err);
        }
        self.at += 1;
        Ok(())
    }

    /// `code++; if (code->op != FETCH_OP_NOP)`: the next slot, if empty.
    fn next_empty(&mut self, err: FetchError) -> Result<(), FetchError> {
        if self.slots[self.at + 1] != Insn::Nop {
            return Err(err);
        }
        self.at += 1;
        Ok(())
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
        }
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
        if !(self.dialect.btf_args && self.btf.found() && self.btf.nr_params() > 0) {
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
                Some(i) => (Some(&word[..i]), &word[i + 1..], i + 1),
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

    /// `traceprobe_expand_meta_args` for one word `$arg...`: where BTF
    /// describes the function, `$argN[:TYPE]` is read as the Nth
    /// parameter's name (and type), as the kernel rewrites it before
    /// parsing. The word's fetch part and type part.
    fn meta_arg<'a>(&self, word: &'a str) -> Result<(&'a str, Option<&'a str>), FetchError>
    where
        'n: 'a,
    {
        if self.site == Site::Inside {
            return Err(FetchError::at(NoFentryArgs, 0));
        }
        let with_btf = self.dialect.btf_args && self.btf.found() && self.btf.nr_params() > 0;
        match word.as_bytes().get(4) {
            Some(c) if c.is_ascii_digit() => {}
            Some(b'*') if with_btf => return Err(FetchError::at(ArgStarUnsupported, 0)),
            Some(b'*') => return Err(FetchError::at(NosupBtfArg, 0)),
            _ => return Err(FetchError::at(BadVar, 0)),
        }
        if !with_btf {
            return Ok(split_spec(word));
        }
        let (name, tail) = self.btf_name_of(word)?;
        Ok((name, tail.strip_prefix(':')))
    }

    /// `$argN[:TYPE]` (N a digit) as the kernel rewrites it: the Nth
    /// parameter's BTF name, and the `:TYPE` left as it was.
    fn btf_name_of<'a>(&self, word: &'a str) -> Result<(&'n str, &'a str), FetchError> {
        let (n, digits) = num::simple_strtoul(&word[4..], 10, self.dialect.linux_7_3);
        let tail = &word[4 + digits..];
        if !(tail.is_empty() || tail.starts_with(':')) {
            return Err(FetchError::at(BadVar, 0));
        }
        // The kernel keeps N in an `int`.
        let n = n as u32 as i32;
        if n == 0 {
            return Err(FetchError::at(BadArgNum, 0));
        }
        // (A negative N makes the kernel read outside its parameter list.)
        let index = usize::try_from(n - 1).unwrap_or(usize::MAX);
        if index >= self.btf.nr_params() {
            return Err(FetchError::at(NoBtfArg, 0));
        }
        let name = self
            .btf
            .param_name(index)
            .ok_or(FetchError::at(NoBtfEntry, 0))?;
        Ok((name, tail))
    }

    /// `generate_probe_arg_name`: with BTF arguments, the body itself where it
    /// is a C identifier; else `argN`.
    fn generated_name<'a>(&self, word: &'a str, index: usize) -> ArgName<'a> {
        let end = word.find(':').unwrap_or(word.len());
        if self.dialect.btf_args && is_good_name(&word[..end]) {
            ArgName::Given(&word[..end])
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
                Some(t) if t.contains("string") => btf_string(btf, t, &mut code, at)?,
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
        Ok(ProbeArg {
            name,
            ty,
            count,
            offset,
            code: code.slots,
            needs_regs: self.regs,
        })
    }

    /// `parse_probe_arg`: `arg` at byte `at` of the word, `depth`
    /// dereferences deep. Where the kernel's caret is left: at a
    /// dereference's inner argument, else at `at`.
    fn parse<'a>(
        &mut self,
        arg: &'a str,
        code: &mut Code<'a>,
        at: usize,
        depth: usize,
    ) -> Result<usize, FetchError> {
        let d = self.dialect;
        let nests = matches!(arg.as_bytes().first(), Some(b'+' | b'-' | b'('))
            || arg.starts_with("this_cpu_ptr(")
            || arg.starts_with("this_cpu_read(");
        if d.linux_7_3 && nests && depth >= MAX_NESTED_7_3 {
            return Err(FetchError::at(TooManyNested, at));
        }
        let mut left = at;
        match arg.as_bytes().first() {
            Some(b'$') => self.var(arg, code, at)?,
            Some(b'%') => match REGISTERS.iter().find(|r| r.0 == &arg[1..]) {
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
        let rest = &arg[cast_end + 1..];
        let at_rest = at + cast_end + 1;
        let arrow_after = |i: usize| rest[i..].starts_with("->");
        // The inner argument, and where it starts.
        let (inner, inner_at) = if rest.starts_with('(') {
            match matched_close(rest) {
                None => return err(DerefOpenBrace, at_rest),
                Some(c) if !arrow_after(c + 1) => return err(TypecastReqField, at_rest + c + 1),
                Some(c) => (&rest[1..c], at_rest + 1),
            }
        } else if rest.starts_with(['+', '-'])
            || rest.starts_with("this_cpu_ptr(")
            || rest.starts_with("this_cpu_read(")
        {
            let Some(open) = rest[1..].find('(').map(|o| o + 1) else {
                return err(DerefNeedBrace, at_rest);
            };
            match matched_close(&rest[open..]) {
                None => return err(DerefOpenBrace, at_rest + rest.len()),
                Some(c) if !arrow_after(open + c + 1) => {
                    return err(TypecastReqField, at_rest + open + c + 1)
                }
                Some(c) => (&rest[..open + c + 1], at_rest),
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
                Some(i) if arrow_after(i) => (&rest[..i], at_rest),
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
        let v = &arg[1..];
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
            match &v[7..] {
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
    fn function_arg(
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

    /// `parse_btf_arg`: a parameter by its BTF name, or a BTF-typed
    /// `$retval` (or 7.3's `$current`), and what follows it: a member access
    /// is refused, in the kernel's words where the kernel refuses it too.
    fn btf_arg<'a>(
        &mut self,
        arg: &'a str,
        code: &mut Code<'a>,
        at: usize,
    ) -> Result<(), FetchError> {
        let (var, member) = match arg.find(['.', '-']) {
            Some(i) if arg[i..].starts_with("->") => (&arg[..i], Some(i + 2)),
            Some(i) if arg[i..].starts_with('.') => {
                return Err(FetchError::at(NosupDatArg, at + i + 1))
            }
            Some(i) => return Err(FetchError::at(BadHyphen, at + i)),
            None => (arg, None),
        };
        let ty = if var == "$current" {
            // 7.3 types `$current` as `struct task_struct *`.
            Some(BtfType::StructPtr)
        } else if self.site == Site::Return && var == "$retval" {
            code.set(Insn::Retval);
            if !self.btf.found() {
                return match member {
                    Some(m) => Err(FetchError::at(NoBtfEntry, at + m)),
                    None => Ok(()),
                };
            }
            self.btf_queried = true;
            Some(self.btf.ret().ok_or(FetchError::at(NoRetval, at))?)
        } else {
            if !self.btf.found() || (self.btf.nr_params() == 0 && !self.btf_queried) {
                return Err(FetchError::at(NoBtfEntry, at));
            }
            self.btf_queried = true;
            let (index, ty) = self.btf.param(var).ok_or(FetchError::at(NoBtfArg, at))?;
            self.function_arg(index, code, at)?;
            Some(ty)
        };
        if let Some(m) = member {
            let kind = match ty {
                Some(BtfType::StructPtr) => BtfFieldUnsupported,
                Some(BtfType::Ptr | BtfType::CharPtr) => BadBtfTid,
                _ => NoPtrStrct,
            };
            return Err(FetchError::at(kind, at + m));
        }
        self.last_btf = ty;
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
        let rest = if user { &arg[2..] } else { &arg[1..] };
        let paren = rest.find('(').ok_or(FetchError::at(DerefNeedBrace, at))?;
        let num = &rest[..paren];
        let offset = if negative {
            num::kstrtol_negative(num)
        } else {
            num::kstrtol(num, 0)
        };
        let offset = offset.ok_or(FetchError::at(BadDerefOffs, at))?;
        // The kernel's caret for the inner argument: a byte short after `u`,
        // and after `+-`.
        let inner_at = at + paren + 2 - usize::from(!negative && rest.starts_with('-'));
        let inner = &rest[paren + 1..];
        let close = inner
            .rfind(')')
            .ok_or(FetchError::at(DerefOpenBrace, inner_at + inner.len()))?;
        self.parse(&inner[..close], code, inner_at, depth + 1)?;
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
            None => (false, &arg["this_cpu_ptr(".len()..]),
        };
        let inner_at = at + arg.len() - inner.len();
        let close = inner
            .rfind(')')
            .ok_or(FetchError::at(DerefOpenBrace, inner_at + inner.len()))?;
        let inner = &inner[..close];
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

/// `BODY[:SPEC]`: the fetch part and the type part (at the first `:`).
fn split_spec(body: &str) -> (&str, Option<&str>) {
    match body.find(':') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    }
}

/// `parse_probe_arg_type`: the type part `TYPE[[N]]` of the fetch part
/// `fetch`: the type's name, the array count and the type.
fn split_type<'a>(
    fetch: &str,
    spec: Option<&'a str>,
    at: usize,
) -> Result<(Option<&'a str>, u32, &'static FetchType), FetchError> {
    let body_len = fetch.len() + spec.map_or(0, |t| t.len() + 1);
    let mut count = 0;
    let mut type_name = spec;
    if let Some(spec) = spec {
        let spec_at = fetch.len() + 1;
        if let Some(open) = spec.find('[') {
            let inner = &spec[open + 1..];
            let close = inner
                .find(']')
                .ok_or(FetchError::at(ArrayNoClose, at + body_len))?;
            let inner_at = spec_at + open + 1;
            if close + 1 != inner.len() {
                return Err(FetchError::at(BadArraySuffix, at + inner_at + close + 1));
            }
            count = match num::kstrtouint(&inner[..close], 0) {
                Some(n) if n > 0 => n,
                _ => return Err(FetchError::at(BadArrayNum, at + inner_at)),
            };
            if count > MAX_ARRAY_LEN {
                return Err(FetchError::at(ArrayTooBig, at + inner_at));
            }
            type_name = Some(&spec[..open]);
        }
    }
    let type_at = at + spec.map_or(0, |_| fetch.len() + 1);
    if matches!(spec, Some("%pd" | "%pD")) {
        return Err(FetchError::at(DentryUnsupported, type_at));
    }
    let ty = if fetch == "$comm" || fetch == "$COMM" || fetch.starts_with("\\\"") {
        if count != 0 || type_name.is_some_and(|t| t != "string") {
            return Err(FetchError::at(NeedStringType, type_at));
        }
        types::find(Some("string"))
    } else {
        types::find(type_name)
    };
    let ty = ty.ok_or(FetchError::at(BadType, type_at))?;
    Ok((type_name, count, ty))
}

/// `@ADDR`, `@SYM[+|-OFFS]` (`@+OFFS`, a file offset, is for uprobes).
fn memory<'a>(arg: &'a str, code: &mut Code<'a>, at: usize) -> Result<(), FetchError> {
    let rest = &arg[1..];
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
    let s = &arg[1..];
    let v = match s.as_bytes().first() {
        Some(c) if c.is_ascii_digit() => num::kstrtoul(s, 0),
        Some(b'-') => num::kstrtol(s, 0).map(|v| v as u64),
        Some(b'+') => num::kstrtol(&s[1..], 0).map(|v| v as u64),
        _ => None,
    };
    code.set(Insn::Imm(v.ok_or(FetchError::at(BadImm, at + 1))?));
    Ok(())
}

/// `check_prepare_btf_string_fetch`: `:string` on a BTF-typed value.
fn btf_string(
    btf: BtfType,
    type_name: &str,
    code: &mut Code<'_>,
    at: usize,
) -> Result<(), FetchError> {
    match btf {
        BtfType::CharArray => Ok(()),
        BtfType::CharPtr => {
            if code.slots[code.at + 1] == Insn::End {
                return Err(FetchError::at(TooManyOps, at));
            }
            code.at += 1;
            code.set(if type_name.starts_with('u') {
                Insn::UDeref(0)
            } else {
                Insn::Deref(0)
            });
            Ok(())
        }
        _ => Err(FetchError::at(BadType4Str, at)),
    }
}

/// `finalize_fetch_insn`: the store, the bitfield, the array loop and the end.
fn finalize(
    code: &mut Code<'_>,
    ty: &'static FetchType,
    type_name: Option<&str>,
    count: u32,
    at: usize,
    type_at: usize,
    saturate: bool,
) -> Result<(), FetchError> {
    let too_many = FetchError::at(TooManyOps, at);
    if ty.string {
        let symstr = ty.name == "symstr";
        let cur = code.cur();
        let fits = if symstr {
            matches!(
                cur,
                Insn::Reg(_) | Insn::Stack(_) | Insn::Retval | Insn::Arg(_) | Insn::Deref(_)
            )
        } else {
            matches!(
                cur,
                Insn::Deref(_) | Insn::UDeref(_) | Insn::Imm(_) | Insn::Comm | Insn::ImmStr(_)
            )
        };
        if !fits {
            return Err(FetchError::at(
                if symstr { BadSymString } else { BadString },
                type_at,
            ));
        }
        if symstr || matches!(cur, Insn::Imm(_) | Insn::Comm | Insn::ImmStr(_)) || count != 0 {
            code.next_empty(too_many)?;
        }
        let offset = match code.cur() {
            Insn::Deref(o) | Insn::UDeref(o) => o,
            _ => 0,
        };
        code.set(
            if ty.name == "ustring" || matches!(code.cur(), Insn::UDeref(_)) {
                Insn::StUString(offset)
            } else if symstr {
                Insn::StSymstr
            } else {
                Insn::StString(offset)
            },
        );
    } else {
        match code.cur() {
            Insn::Deref(o) => code.set(Insn::StMem(ty.size, o)),
            Insn::UDeref(o) => code.set(Insn::StUMem(ty.size, o)),
            _ => {
                code.next_empty(too_many)?;
                code.set(Insn::StRaw(ty.size));
            }
        }
    }
    let store = code.cur();
    if let Some(bf) = type_name.and_then(|t| t.strip_prefix('b')) {
        bitfield(bf, ty, code, saturate).ok_or(FetchError::at(BadBitfield, type_at))?;
    }
    if count != 0 {
        if !matches!(
            store,
            Insn::StMem(..) | Insn::StString(_) | Insn::StUString(_)
        ) {
            return Err(FetchError::at(BadString, type_at));
        }
        code.next_empty(too_many)?;
        code.set(Insn::LoopArray(count));
    }
    code.at += 1;
    code.set(Insn::End);
    Ok(())
}

/// `__parse_bitfield_probe_arg`: `<WIDTH>@<OFFSET>/...` after the `b`, in
/// the kernel's `unsigned long` (wrapping) arithmetic.
fn bitfield(bf: &str, ty: &FetchType, code: &mut Code<'_>, saturate: bool) -> Option<()> {
    let (width, n) = num::simple_strtoul(bf, 0, saturate);
    let rest = bf[n..].strip_prefix('@').filter(|_| width != 0)?;
    let (offset, n) = num::simple_strtoul(rest, 0, saturate);
    if n == 0 || !rest[n..].starts_with('/') {
        return None;
    }
    code.next_empty(FetchError::at(BadBitfield, 0)).ok()?;
    let bits = u64::from(ty.size) * 8;
    let used = width.wrapping_add(offset);
    if bits < used {
        return None;
    }
    code.set(Insn::ModBitfield {
        basesize: ty.size,
        lshift: bits.wrapping_sub(used) as u8,
        rshift: bits.wrapping_sub(width) as u8,
    });
    Some(())
}
