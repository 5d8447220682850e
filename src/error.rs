// SPDX-License-Identifier: GPL-2.0

//! One error type for everything a control write or an API call can fail
//! with: an errno and a sentence naming what failed (the symbol, the set,
//! the line), which `last_error` and the log show.
//!
//! The errno numbers the pure logic uses are named in [`crate::errno`];
//! what `last_error` makes of an error is [`crate::errtext`]'s.

use core::fmt::Write;

use kernel::alloc::AllocError;
use kernel::prelude::*;

use crate::errtext;

/// An error that names what failed.
pub(crate) struct Failed {
    pub(crate) error: Error,
    /// What was wrong, in words, without the errno (`last_error` adds it,
    /// by name: see [`crate::errtext`]).
    pub(crate) what: KVec<u8>,
    /// The probe line a refusal is blamed on, when it is not the line
    /// being executed (a probe line that `create` registers).
    pub(crate) line: Option<BlamedLine>,
    /// The symbol refused, when no line is known yet (an attach or arm
    /// failure): the registry finds the line that named it.
    pub(crate) symbol: KVec<u8>,
}

/// A probe line of a control write, as a target carries it.
#[derive(Clone, Copy)]
pub(crate) struct LineRef<'a> {
    /// Its number in its write (from 1).
    pub(crate) number: usize,
    /// Staged by an earlier write.
    pub(crate) earlier: bool,
    /// The line as written.
    pub(crate) text: &'a [u8],
}

/// [`LineRef`], owned by an error.
pub(crate) struct BlamedLine {
    pub(crate) number: usize,
    pub(crate) earlier: bool,
    pub(crate) text: KVec<u8>,
}

impl BlamedLine {
    /// A copy of `l` (its text left out if memory is short).
    pub(crate) fn of(l: &LineRef<'_>) -> Self {
        let mut text = KVec::new();
        let _ = text.extend_from_slice(l.text, GFP_KERNEL);
        Self {
            number: l.number,
            earlier: l.earlier,
            text,
        }
    }
}

impl Failed {
    /// `ENOMEM`.
    pub(crate) fn oom() -> Self {
        Self::new(ENOMEM, format_args!("out of memory"))
    }

    /// `error`, described by `args`.
    pub(crate) fn new(error: Error, args: core::fmt::Arguments<'_>) -> Self {
        let mut what = Text(KVec::new());
        let _ = what.write_fmt(args);
        Self {
            error,
            what: what.0,
            line: None,
            symbol: KVec::new(),
        }
    }

    /// Blames the refusal on probe line `l`.
    pub(crate) fn on_line(mut self, l: Option<&LineRef<'_>>) -> Self {
        self.line = l.map(BlamedLine::of);
        self
    }

    /// Names the symbol refused, for the registry to find its line.
    pub(crate) fn on_symbol(mut self, symbol: &[u8]) -> Self {
        let _ = self.symbol.extend_from_slice(symbol, GFP_KERNEL);
        self
    }

    /// A positive errno from the pure logic ([`crate::errno`]), described
    /// by `args`.
    pub(crate) fn errno(errno: i32, args: core::fmt::Arguments<'_>) -> Self {
        Self::new(pure(errno), args)
    }
}

/// A positive errno as an [`Error`]: one of the pure logic's
/// ([`crate::errno`], the `errno()` of [`crate::command::ParseError`] and
/// [`crate::lifecycle::Refusal`], [`crate::signature::REFUSED_ERRNO`]), or
/// a `bindings` constant that 6.12's `kernel::error::code` lacks. The one
/// place such a code changes sign. The kernel's own codes (`ENOENT`, ...) and C return
/// values (through [`kernel::error::to_result`]) need no such step.
pub(crate) fn pure(errno: i32) -> Error {
    Error::from_errno(-errno)
}

/// Words for `e` as `site` returned it ([`errtext::refusal`]).
pub(crate) fn refusal(site: errtext::Site, e: Error) -> &'static str {
    errtext::refusal(site, e.to_errno())
}

/// Words for `e` where no site explains it better ([`errtext::generic`]).
pub(crate) fn generic(e: Error) -> &'static str {
    errtext::generic(e.to_errno())
}

impl From<AllocError> for Failed {
    fn from(_: AllocError) -> Self {
        Failed::oom()
    }
}

impl From<Error> for Failed {
    fn from(e: Error) -> Self {
        if e == ENOMEM {
            return Failed::oom();
        }
        Failed::new(e, format_args!("{}", generic(e)))
    }
}

/// A growable text buffer for `write!`; drops what it cannot allocate.
pub(crate) struct Text(pub(crate) KVec<u8>);

impl Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| core::fmt::Error)
    }
}

/// Bytes shown as text (names are ASCII by construction).
pub(crate) struct BStr<'a>(pub(crate) &'a [u8]);

impl<'a> BStr<'a> {
    /// The bytes as a `str`, or `"?"` if they are not UTF-8: what the
    /// `pr_*!` macros take on every kernel (7.3's want `kernel::fmt::Display`,
    /// which only the kernel crate's own types implement).
    pub(crate) fn as_str(&self) -> &'a str {
        core::str::from_utf8(self.0).unwrap_or("?")
    }
}

impl core::fmt::Display for BStr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match core::str::from_utf8(self.0) {
            Ok(s) => f.write_str(s),
            Err(_) => f.write_str("?"),
        }
    }
}
