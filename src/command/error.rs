// SPDX-License-Identifier: GPL-2.0

//! [`ParseError`]: why the parser refused a line, with the errno the write
//! fails with and the words `last_error` shows. Pure, as its parent.

use core::fmt;

use crate::errno::{E2BIG, EINVAL};

/// Why a line was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    /// The line is longer than [`MAX_LINE`].
    LineTooLong,
    /// The line is not UTF-8 or holds control characters.
    NotText,
    /// The first word is no known command.
    UnknownCommand,
    /// A probe line's `:` is followed by nothing (`kprobe_events`: no event
    /// name).
    NoName,
    /// A probe line's `/NAME` (or `.NAME`) has nothing before it.
    NoSet,
    /// A target's `%` suffix is not `%return` (or is on a direct line).
    BadSuffix,
    /// A glob target with a probe name: its probes are named after their
    /// symbols.
    NamedGlob,
    /// A target that starts with a digit but is no address `kstrtoul()`
    /// reads (`kprobe_events`' `MEMADDR`), or is 0.
    BadAddress,
    /// A `d:` line on an address: a direct call is made on a function,
    /// named.
    DirectAddress,
    /// `MOD:SYM` with a module name that is empty, too long or not
    /// `[A-Za-z0-9_-]+`.
    BadModule,
    /// A set or probe name is empty, too long, or not `[A-Za-z_][A-Za-z0-9_]*`.
    BadName,
    /// A symbol is missing, too long, or holds characters kallsyms never uses.
    BadSymbol,
    /// An offset is not a number, or too large.
    BadOffset,
    /// A kretprobe or direct line has an offset.
    OffsetNotAllowed,
    /// A kretprobe's `maxactive` is not a number or is out of range.
    BadMaxActive,
    /// A command is missing an argument.
    MissingArgument,
    /// A command has more arguments than it takes.
    TooManyArguments,
    /// An option (`--...`) this command does not take.
    UnknownOption,
    /// `max=N` is not a positive number, or follows a plain symbol.
    BadLimit,
    /// `skip=GLOB` is not a glob or symbol, or follows a plain symbol.
    BadSkip,
    /// Options that do not go together (`--exit` with `--fprobe`).
    ConflictingOptions,
    /// `--hist` or `--errors` without `--exit` (or with `--bare`).
    NeedsExit,
}

impl ParseError {
    /// The errno (positive) a write fails with for this error.
    pub fn errno(self) -> i32 {
        match self {
            ParseError::LineTooLong => E2BIG,
            _ => EINVAL,
        }
    }

    /// A short human-readable description.
    pub fn as_str(self) -> &'static str {
        match self {
            ParseError::LineTooLong => "line too long",
            ParseError::NotText => "not a text line",
            ParseError::UnknownCommand => "unknown command",
            ParseError::NoName => {
                "no probe name after the colon (p:SET/ names it after the symbol)"
            }
            ParseError::NoSet => "no set name before the separator",
            ParseError::BadSuffix => "bad target suffix: only %return, on p: and r: lines",
            ParseError::NamedGlob => {
                "a glob's probes are named after their symbols: write p:SET/ GLOB"
            }
            ParseError::BadAddress => {
                "Invalid probed address or symbol (an address is one number: 0x hex, \
                 0 octal or decimal, no +OFFS or %return after it)"
            }
            ParseError::DirectAddress => "a d: line names its function: no address",
            ParseError::BadModule => "bad module name in MOD:SYM",
            ParseError::BadName => "bad set or probe name",
            ParseError::BadSymbol => "bad symbol",
            ParseError::BadOffset => "bad offset",
            ParseError::OffsetNotAllowed => "offset not allowed on this probe kind",
            ParseError::BadMaxActive => "bad maxactive",
            ParseError::MissingArgument => "missing argument",
            ParseError::TooManyArguments => "too many arguments",
            ParseError::UnknownOption => "unknown option",
            ParseError::BadLimit => "max=N needs a glob and a positive N",
            ParseError::BadSkip => "skip=GLOB needs a glob target and a valid pattern",
            ParseError::ConflictingOptions => "options that do not go together",
            ParseError::NeedsExit => {
                "--hist and --errors count returns: they need --exit (and not --bare)"
            }
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
