// SPDX-License-Identifier: GPL-2.0

//! The control-file command language: a pure parser.
//!
//! One command per line, in a syntax a tracefs `kprobe_events` user already
//! knows. A probe line is a `kprobe_events` line whose group is the set
//! (`p[:[SET/][NAME]] TARGET`, `SET.NAME` too), with the same meaning: a
//! line that names no set (`p SYM`, `p:NAME SYM`) joins the set
//! [`DEFAULT_SET`] (`kprobes`), and `p:SET/ ...` names the probe after its
//! symbol:
//!
//! ```text
//! p:SET/NAME SYM[+OFF]     kprobe on SYM (+OFF bytes, decimal or 0x-hex)
//! p:SET/ SYM[+OFF]         the same, the probe named after the symbol
//! p:NAME SYM | p SYM       probe NAME (or named after SYM) of set kprobes
//! p:SET/ GLOB[+OFF] [max=N] [skip=GLOB2]
//!                          every core-kernel text symbol matching GLOB
//!                          (* ? [...]) and not GLOB2, in address order; with
//!                          max=N only the first N the kernel accepts (a
//!                          glob's probes are named after their symbols)
//! r[MAXACTIVE]:SET/NAME SYM
//! p:SET/NAME SYM%return    return probe on SYM (no offset, or +0)
//! p!:... r!:... rN!:...    the same, always served by int3 kprobes and
//!                          kretprobes (see below)
//! d:SET/NAME SYM           ftrace-direct call on SYM (no offset); its
//!                          fetch arguments are an fprobe event's (entry
//!                          records, or return records in an --exit set)
//! create SET [--noopt] [--one-by-one] [--bare] [--fprobe] [--exit]
//!            [--hist] [--errors] [--events|--no-events]
//!                          register the probes staged for SET as one batch;
//!                          a probe named on a line of its own, or
//!                          whose line has fetch arguments, gets a trace
//!                          event, events/SET/EVENT/ in tracefs, that it
//!                          writes kprobe_events' records to while SET is
//!                          enabled (src/events/tracefs.rs); --events gives
//!                          a glob's members one too, --no-events none;
//!                          --noopt keeps its int3 kprobes from being
//!                          optimized (no kprobe-optimizer pass, and so no
//!                          RCU-tasks grace period, on enable, disarm or
//!                          teardown; an extra trap per hit); benchmark
//!                          baselines: --one-by-one tears kprobes
//!                          down one unregister call (and grace period) per
//!                          probe and attaches direct calls with one
//!                          ftrace_ops per function, --bare installs handlers
//!                          that count nothing, --fprobe attaches the d:
//!                          functions with register_fprobe_ips instead;
//!                          --exit attaches the d: functions with the entry
//!                          + exit trampoline (mode exit), keeping only the
//!                          functions it can call (src/direct/signature.rs): an
//!                          explicit one it cannot fails the set, a glob
//!                          member is skipped; --hist, --errors: each
//!                          function's durations, errors (src/aggregate.rs)
//! enable SET | disable SET
//! unregister SET [--sync]  retire SET; --sync waits for its teardown
//!                          (these three also take OWNER.NAME, a set that
//!                          module OWNER made through the in-kernel API)
//! direct SET count|record|empty|exit
//!                          switch SET's direct calls, live, to the counting,
//!                          the counting-and-recording, the empty (a
//!                          do-nothing baseline) or the entry + exit
//!                          trampoline (every function must pass its rule)
//! -:SET                    drop every probe line staged for SET (a set
//!                          not created yet)
//! flush                    wait for every pending teardown
//! # comment, and blank lines, are ignored
//! ```
//!
//! A `p:` at offset 0 and an `r:` on a function that ftrace can trace are
//! served by the set's fprobe (one `ftrace_ops` for all of them, patched in
//! one pass); any other target by an int3 kprobe or kretprobe. The `!`
//! forms ask for int3 probes whatever the target, for users who need kprobe
//! semantics (a `kprobes/list` entry, a probe ftrace does not see, the
//! kretprobe instance pool).
//!
//! This file has no kernel types in it: the module and the host-side tests in
//! `tests/` compile this very source, so everything here must stay `core`-only.

use core::fmt;

// `#[path]`: the host tests compile this file by path, where a child's
// file is looked up beside it; this path names the same file in both builds.
#[path = "command/error.rs"]
mod error;
#[path = "command/options.rs"]
mod options;

pub use error::ParseError;
pub use options::{CreateOptions, Events};
pub use probe_line::DEFAULT_SET;

#[path = "command/probe_line.rs"]
mod probe_line;

use probe_line::{probe_line, split_group};

/// The longest line the control file accepts, in bytes (without the newline).
pub const MAX_LINE: usize = 1024;
/// The longest set or probe name, in bytes.
pub const MAX_NAME: usize = 64;
/// The longest symbol (kallsyms' `KSYM_NAME_LEN` is 512, including the NUL).
pub const MAX_SYMBOL: usize = 511;
/// `MODULE_NAME_LEN` on 64-bit (`64 - sizeof(unsigned long)`): a module's
/// name, its NUL included.
pub const MODULE_NAME_LEN: usize = 56;
/// The largest kretprobe `maxactive` accepted (the kernel caps it at 4096).
pub const MAX_ACTIVE: u32 = 4096;

/// What kind of probe a probe line asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    /// A kprobe (`p:`).
    Kprobe,
    /// A kretprobe (`r:`), with an optional `maxactive`.
    Kretprobe {
        /// Concurrent instances to preallocate; `None` lets the kernel choose.
        maxactive: Option<u32>,
    },
    /// An ftrace-direct call (`d:`).
    Direct,
}

/// Where a probe line attaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// One named symbol, at a byte offset into it.
    Symbol {
        /// The kallsyms name.
        name: &'a str,
        /// Bytes past the symbol's start.
        offset: u32,
    },
    /// Every text symbol whose name matches a glob, at a byte offset into each.
    Glob {
        /// The pattern (`*`, `?` and `[...]` as in shell globs).
        pattern: &'a str,
        /// Bytes past each matching symbol's start.
        offset: u32,
    },
    /// An address (`kprobe_events`' `MEMADDR`): an int3 kprobe or
    /// kretprobe there, named `p_0x%p` (`r_0x%p`) unless the line names it.
    Address {
        /// The address, as `kstrtoul(word, 0)` reads it.
        addr: u64,
    },
}

/// One probe line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeSpec<'a> {
    /// Kprobe, kretprobe or direct.
    pub kind: ProbeKind,
    /// `p!:`/`r!:`: served by an int3 kprobe or kretprobe, never an fprobe.
    pub int3: bool,
    /// The set the probe joins.
    pub set: &'a str,
    /// The probe's name; `None` names it after each symbol it attaches to.
    pub name: Option<&'a str>,
    /// The symbol or glob it attaches to.
    pub target: Target<'a>,
    /// For a glob: keep only the first this many probes the kernel accepts.
    pub limit: Option<u32>,
    /// For a glob: leave out the symbols matching this second glob.
    pub skip: Option<&'a str>,
    /// `kprobe_events`' fetch arguments, as written.
    pub args: FetchArgs<'a>,
}

/// A probe line's fetch arguments (`kprobe_events`' `[NAME=]FETCHARG[:TYPE]`
/// words after the target), as written: compiled when the line is staged,
/// where the running kernel's grammar is known (`crate::events::fetch`).
/// On a glob's line, `max=` and `skip=` words are the glob's options
/// wherever they stand, never arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchArgs<'a> {
    /// The line from the first argument on (empty: none).
    text: &'a str,
    /// The line's target is a glob.
    glob: bool,
}

impl<'a> FetchArgs<'a> {
    /// The arguments of a line whose words after the target start at `text`.
    pub fn new(text: &'a str, glob: bool) -> Self {
        FetchArgs { text, glob }
    }

    /// The argument words, in order.
    pub fn words(&self) -> impl Iterator<Item = &'a str> + Clone {
        let glob = self.glob;
        self.text
            .split_ascii_whitespace()
            .filter(move |w| !(glob && is_glob_option(w)))
    }

    /// The line from the first argument on (the glob's options included).
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The same arguments, read from `text`, a copy of [`FetchArgs::text`].
    pub fn with_text<'b>(&self, text: &'b str) -> FetchArgs<'b> {
        FetchArgs {
            text,
            glob: self.glob,
        }
    }

    /// No argument.
    pub fn is_empty(&self) -> bool {
        self.words().next().is_none()
    }
}

/// Equal when the argument words are.
impl PartialEq for FetchArgs<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.words().eq(other.words())
    }
}

impl Eq for FetchArgs<'_> {}

/// A glob line's option word (`max=N`, `skip=GLOB`).
fn is_glob_option(w: &str) -> bool {
    w.starts_with("max=") || w.starts_with("skip=")
}

/// What a direct set's trampoline does. Stored as its `u8` (a set's mode
/// changes while handlers read it): [`DirectMode::from_u8`] decodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum DirectMode {
    /// Count calls per function.
    Count = 0,
    /// Count, and record each function's last first argument.
    Record = 1,
    /// Nothing at all (the cost of a direct call alone).
    Empty = 2,
    /// Entry and exit: the trampoline calls the function's body, counts its
    /// returns and records the last return value (and first argument).
    Exit = 3,
}

impl DirectMode {
    /// The mode stored as `v`, if any.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => DirectMode::Count,
            1 => DirectMode::Record,
            2 => DirectMode::Empty,
            3 => DirectMode::Exit,
            _ => return None,
        })
    }

    /// The mode's name in commands and listings.
    pub fn as_str(self) -> &'static str {
        match self {
            DirectMode::Count => "count",
            DirectMode::Record => "record",
            DirectMode::Empty => "empty",
            DirectMode::Exit => "exit",
        }
    }
}

/// One parsed control command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command<'a> {
    /// Stage a probe (or a glob of probes) into a set.
    Probe(ProbeSpec<'a>),
    /// Register everything staged for a set, as one batch.
    Create {
        /// The set.
        set: &'a str,
        /// How it is built and torn down.
        options: CreateOptions,
    },
    /// Arm every probe of a set.
    Enable(&'a str),
    /// Disarm every probe of a set.
    Disable(&'a str),
    /// Retire a set; with `sync`, wait until its teardown has completed.
    Unregister {
        /// The set.
        set: &'a str,
        /// Wait for the teardown instead of returning at once.
        sync: bool,
    },
    /// Switch a set's direct calls to another trampoline, live.
    Retarget {
        /// The set.
        set: &'a str,
        /// The trampoline.
        mode: DirectMode,
    },
    /// Drop every probe line staged for a set that was not created (`-:SET`,
    /// as `kprobe_events` removes an event with `-:`).
    Unstage(&'a str),
    /// Drop the lines staged for a set that was not created whose event is
    /// `event` (`-:SET/EVENT`, `kprobe_events`' `-:GROUP/EVENT`): the lines
    /// it names, and its unnamed lines on one symbol that `kprobe_events`
    /// would name so (`p_SYM_OFF`, `r_SYM_0`).
    UnstageEvent {
        /// The set.
        set: &'a str,
        /// The event.
        event: &'a str,
    },
    /// Wait for every pending teardown.
    Flush,
}

impl<'a> Command<'a> {
    /// The set a command is about, if any.
    pub fn set(&self) -> Option<&'a str> {
        match *self {
            Command::Probe(p) => Some(p.set),
            Command::Create { set, .. } => Some(set),
            Command::Enable(s) | Command::Disable(s) | Command::Unstage(s) => Some(s),
            Command::Unregister { set, .. }
            | Command::Retarget { set, .. }
            | Command::UnstageEvent { set, .. } => Some(set),
            Command::Flush => None,
        }
    }
}

impl fmt::Display for Command<'_> {
    /// The command as a control line (without the newline), in canonical
    /// form: parsing it gives the same command back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Command::Probe(p) => write_probe(&p, f),
            Command::Create { set, options } => {
                write!(f, "create {set}")?;
                for (on, word) in [
                    (options.noopt, " --noopt"),
                    (options.one_by_one, " --one-by-one"),
                    (options.bare, " --bare"),
                    (options.fprobe, " --fprobe"),
                    (options.exit, " --exit"),
                    (options.hist, " --hist"),
                    (options.errors, " --errors"),
                    (options.events == Events::All, " --events"),
                    (options.events == Events::Off, " --no-events"),
                ] {
                    if on {
                        f.write_str(word)?;
                    }
                }
                Ok(())
            }
            Command::Enable(s) => write!(f, "enable {s}"),
            Command::Disable(s) => write!(f, "disable {s}"),
            Command::Unregister { set, sync } => {
                write!(f, "unregister {set}{}", if sync { " --sync" } else { "" })
            }
            Command::Retarget { set, mode } => write!(f, "direct {set} {}", mode.as_str()),
            Command::Unstage(s) => write!(f, "-:{s}"),
            Command::UnstageEvent { set, event } => write!(f, "-:{set}/{event}"),
            Command::Flush => f.write_str("flush"),
        }
    }
}

/// A probe line in canonical form (`Command`'s `Display`).
fn write_probe(p: &ProbeSpec<'_>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match p.kind {
        ProbeKind::Kprobe => f.write_str("p")?,
        ProbeKind::Direct => f.write_str("d")?,
        ProbeKind::Kretprobe { maxactive: None } => f.write_str("r")?,
        ProbeKind::Kretprobe { maxactive: Some(n) } => write!(f, "r{n}")?,
    }
    let bang = if p.int3 { "!" } else { "" };
    write!(f, "{bang}:{}/{}", p.set, p.name.unwrap_or(""))?;
    let (t, off) = match p.target {
        Target::Symbol { name, offset } => (name, offset),
        Target::Glob { pattern, offset } => (pattern, offset),
        Target::Address { addr } => {
            write!(f, " {addr:#x}")?;
            ("", 0)
        }
    };
    if !t.is_empty() {
        write!(f, " {t}")?;
    }
    if off != 0 {
        write!(f, "+{off}")?;
    }
    if let Some(n) = p.limit {
        write!(f, " max={n}")?;
    }
    if let Some(g) = p.skip {
        write!(f, " skip={g}")?;
    }
    for w in p.args.words() {
        write!(f, " {w}")?;
    }
    Ok(())
}

/// Parses one line (without its newline). Blank and comment lines give `Ok(None)`.
pub fn parse_line(line: &[u8]) -> Result<Option<Command<'_>>, ParseError> {
    parse(line).map_err(|(e, _)| e)
}

/// Where in `line` (a line [`parse_line`] refused) the refusal is: the
/// error, and the byte offset of the word at fault into the line with its
/// surrounding blanks trimmed (`None`: the line as a whole, or a line that
/// parses).
pub fn parse_error_at(line: &[u8]) -> Option<(ParseError, Option<usize>)> {
    let (e, word) = parse(line).err()?;
    let trimmed = core::str::from_utf8(line).ok().map(str::trim);
    let col = match (trimmed, word) {
        (Some(t), Some(w)) => (w.as_ptr() as usize).checked_sub(t.as_ptr() as usize),
        _ => None,
    };
    Some((e, col.filter(|&c| trimmed.is_some_and(|t| c <= t.len()))))
}

/// Where a probe line's address word (its second: `SYM[+OFFS]`, an
/// address, `MOD:SYM`) starts in the trimmed `line`, which the kernel's
/// caret points at for a refusal at registration (`None`: no such word).
pub fn address_word(line: &str) -> Option<usize> {
    let first = line.find([' ', '\t'])?;
    let rest = line.get(first..)?;
    let skip = rest.find(|c: char| c != ' ' && c != '\t')?;
    Some(first + skip)
}

/// A refusal, and the word at fault (a slice of the trimmed line; an empty
/// one at its end for a missing word).
type Bad<'a> = (ParseError, Option<&'a str>);

fn at(e: ParseError, word: &str) -> Bad<'_> {
    (e, Some(word))
}

fn parse(line: &[u8]) -> Result<Option<Command<'_>>, Bad<'_>> {
    let line = text(line)?.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    // An empty word at the end of the line, for what is missing.
    let end = line.get(line.len()..).unwrap_or("");
    let missing = (ParseError::MissingArgument, Some(end));
    let mut words = line.split_ascii_whitespace();
    let head = words.next().ok_or(missing)?;
    let cmd = match head {
        "create" => create(&mut words, end)?,
        "enable" => Command::Enable(any_set(&mut words, end)?),
        "disable" => Command::Disable(any_set(&mut words, end)?),
        "unregister" => unregister(&mut words, end)?,
        "direct" => retarget(&mut words, end)?,
        "flush" => Command::Flush,
        _ => match head.strip_prefix("-:") {
            Some(word) => unstage(word)?,
            None => Command::Probe(probe_line(line, head, &mut words, end)?),
        },
    };
    if let Some(w) = words.next() {
        return Err(at(ParseError::TooManyArguments, w));
    }
    Ok(Some(cmd))
}

/// `-:SET`: every line staged for SET; `-:SET/EVENT` (or `SET.EVENT`, as
/// `kprobe_events` splits a group from its event): the lines whose event
/// is EVENT.
fn unstage(word: &str) -> Result<Command<'_>, Bad<'_>> {
    let name = |w| set_name(w).map_err(|e| at(e, w));
    Ok(match split_group(word) {
        Some((set, event)) => Command::UnstageEvent {
            set: name(set)?,
            event: name(event)?,
        },
        None => Command::Unstage(name(word)?),
    })
}

/// The line as text: at most [`MAX_LINE`] bytes of UTF-8, no control
/// characters but tabs.
fn text(line: &[u8]) -> Result<&str, Bad<'_>> {
    if line.len() > MAX_LINE {
        return Err((ParseError::LineTooLong, None));
    }
    let line = core::str::from_utf8(line).map_err(|_| (ParseError::NotText, None))?;
    if line.chars().any(|c| c.is_control() && c != '\t') {
        return Err((ParseError::NotText, None));
    }
    Ok(line)
}

/// `create SET [--OPTION]...`, after its first word.
fn create<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<Command<'a>, Bad<'a>> {
    let set = one_set(words, end)?;
    let mut options = CreateOptions::default();
    let mut conflict = None;
    for w in words.by_ref() {
        match w {
            "--noopt" => options.noopt = true,
            "--one-by-one" => options.one_by_one = true,
            "--bare" => options.bare = true,
            "--fprobe" => options.fprobe = true,
            "--exit" => options.exit = true,
            "--hist" => options.hist = true,
            "--errors" => options.errors = true,
            "--events" | "--no-events" => {
                let want = if w == "--events" {
                    Events::All
                } else {
                    Events::Off
                };
                // Not both.
                if ![Events::Lines, want].contains(&options.events) && conflict.is_none() {
                    conflict = Some(w);
                }
                options.events = want;
            }
            _ if w.starts_with("--") => return Err(at(ParseError::UnknownOption, w)),
            _ => return Err(at(ParseError::TooManyArguments, w)),
        }
        // `--bare` handlers do nothing, so they write no record either.
        let clash =
            (options.exit && options.fprobe) || (options.events == Events::All && options.bare);
        if clash && conflict.is_none() {
            conflict = Some(w);
        }
    }
    if conflict.is_some() {
        return Err((ParseError::ConflictingOptions, conflict));
    }
    // Returns: only the exit trampoline sees them; `--bare` counts nothing.
    if (options.hist || options.errors) && (!options.exit || options.bare) {
        let word = if options.hist { "--hist" } else { "--errors" };
        return Err(at(ParseError::NeedsExit, word));
    }
    Ok(Command::Create { set, options })
}

/// `unregister SET [--sync]`, after its first word.
fn unregister<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<Command<'a>, Bad<'a>> {
    let set = any_set(words, end)?;
    let mut sync = false;
    for w in words.by_ref() {
        match w {
            "--sync" => sync = true,
            _ if w.starts_with("--") => return Err(at(ParseError::UnknownOption, w)),
            _ => return Err(at(ParseError::TooManyArguments, w)),
        }
    }
    Ok(Command::Unregister { set, sync })
}

/// `direct SET MODE`, after its first word.
fn retarget<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<Command<'a>, Bad<'a>> {
    let set = one_set(words, end)?;
    let mode = match words.next() {
        Some("count") => DirectMode::Count,
        Some("record") => DirectMode::Record,
        Some("empty") => DirectMode::Empty,
        Some("exit") => DirectMode::Exit,
        Some(w) => return Err(at(ParseError::UnknownOption, w)),
        None => return Err((ParseError::MissingArgument, Some(end))),
    };
    Ok(Command::Retarget { set, mode })
}

/// Splits a write into lines and parses each, yielding `(line_number, result)`
/// for every line that holds a command or an error (numbered from 1).
pub fn parse_batch(buf: &[u8]) -> impl Iterator<Item = (usize, Result<Command<'_>, ParseError>)> {
    parse_batch_lines(buf).map(|(n, _, r)| (n, r))
}

/// [`parse_batch`], with each line as written (without its newline).
pub fn parse_batch_lines(
    buf: &[u8],
) -> impl Iterator<Item = (usize, &[u8], Result<Command<'_>, ParseError>)> {
    buf.split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, line)| match parse_line(line) {
            Ok(None) => None,
            Ok(Some(c)) => Some((i + 1, line, Ok(c))),
            Err(e) => Some((i + 1, line, Err(e))),
        })
}

/// The next word, or a missing argument reported at `end` (the line's end).
fn next_word<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<&'a str, Bad<'a>> {
    words.next().ok_or((ParseError::MissingArgument, Some(end)))
}

fn one_set<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<&'a str, Bad<'a>> {
    let s = next_word(words, end)?;
    set_name(s).map_err(|e| at(e, s))
}

/// A set name, or the `OWNER.NAME` of a set an in-kernel client created.
fn any_set<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    end: &'a str,
) -> Result<&'a str, Bad<'a>> {
    let s = next_word(words, end)?;
    match s.split_once('.') {
        Some((owner, name)) => owned_set_name(owner, name).map(|_| s),
        None => set_name(s),
    }
    .map_err(|e| at(e, s))
}

/// The longest module name (the kernel's `MODULE_NAME_LEN` less the NUL
/// and padding).
pub const MAX_MODULE_NAME: usize = 55;

/// `OWNER.NAME`, the name of a set made through the in-kernel API: a
/// module name (`[A-Za-z0-9_]`, at most [`MAX_MODULE_NAME`] bytes) and a
/// set name. Only `enable`, `disable` and `unregister` accept it: probe
/// lines and `create` cannot make such a name, so a control-file set and an
/// API set never share one.
pub fn owned_set_name<'a>(owner: &str, name: &'a str) -> Result<&'a str, ParseError> {
    let o = owner.as_bytes();
    if o.is_empty()
        || o.len() > MAX_MODULE_NAME
        || !o.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return Err(ParseError::BadName);
    }
    set_name(name)
}

/// A set or probe name: `[A-Za-z_][A-Za-z0-9_]*`, at most [`MAX_NAME`] bytes.
pub fn set_name(s: &str) -> Result<&str, ParseError> {
    let b = s.as_bytes();
    let ok = b.len() <= MAX_NAME
        && b.first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    if ok {
        Ok(s)
    } else {
        Err(ParseError::BadName)
    }
}
