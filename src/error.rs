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
    /// being executed (a probe line that `create` registers). Boxed: a
    /// failure travels up by value through every layer.
    pub(crate) line: Option<KBox<BlamedLine>>,
    /// The target a backend refused, when no line is known yet (an attach
    /// failure): where `what` names it, for the registry to find the line
    /// that named it.
    pub(crate) subject: Option<Subject>,
    /// The set it happened in, when nothing else names it (an API client's
    /// create: no line does): [`Failed::message`] leads with it.
    pub(crate) set: Option<KVec<u8>>,
}

/// Where [`Failed::what`] names the one target of a backend a failure is
/// about: `what` starts "BACKEND SYMBOL: " ([`Failed::about`] writes it),
/// and that lead is left out once the failure is blamed on the target's
/// own line, which names the symbol already.
pub(crate) struct Subject {
    /// `what[symbol..lead - 2]` is the symbol; `what[..lead]` the lead.
    symbol: usize,
    lead: usize,
    /// Blamed on the target's own line: the lead is not shown.
    pub(crate) named_by_line: bool,
}

/// [`Failed::message`]: what was wrong, led by the set and the target when
/// those are not shown otherwise.
pub(crate) struct Message<'a>(&'a Failed);

impl core::fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if let Some(set) = &self.0.set {
            write!(f, "set {}: ", BStr(set))?;
        }
        let what = &self.0.what;
        let from = match &self.0.subject {
            Some(s) if s.named_by_line => s.lead,
            _ => 0,
        };
        BStr(what.get(from..).unwrap_or(what)).fmt(f)
    }
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
    /// A copy of `l` (its text left out if memory is short, and all of it
    /// if even the box cannot be had).
    pub(crate) fn of(l: &LineRef<'_>) -> Option<KBox<Self>> {
        let mut text = KVec::new();
        let _ = text.extend_from_slice(l.text, GFP_KERNEL);
        let line = Self {
            number: l.number,
            earlier: l.earlier,
            text,
        };
        KBox::new(line, GFP_KERNEL).ok()
    }
}

impl Failed {
    /// `ENOMEM`.
    pub(crate) fn oom() -> Self {
        Self::new(ENOMEM, format_args!("out of memory"))
    }

    /// `EINTR`: the task running a write (or an API call) was killed
    /// ([`crate::sched::resched_unless_killed`]).
    pub(crate) fn killed() -> Self {
        Self::new(EINTR, format_args!("interrupted: the task was killed"))
    }

    /// `error`, described by `args`.
    pub(crate) fn new(error: Error, args: core::fmt::Arguments<'_>) -> Self {
        let mut what = Text(KVec::new());
        let _ = what.write_fmt(args);
        Self {
            error,
            what: what.0,
            line: None,
            subject: None,
            set: None,
        }
    }

    /// Says which set it happened in (its name left out if memory is
    /// short).
    pub(crate) fn in_set(mut self, name: &[u8]) -> Self {
        let mut set = KVec::new();
        self.set = set.extend_from_slice(name, GFP_KERNEL).ok().map(|()| set);
        self
    }

    /// Blames the refusal on probe line `l`.
    pub(crate) fn on_line(mut self, l: Option<&LineRef<'_>>) -> Self {
        self.line = l.and_then(BlamedLine::of);
        self
    }

    /// `error` about `symbol`, one target of `backend`, described by
    /// `args`: "BACKEND SYMBOL: ARGS", with the target recorded
    /// ([`Subject`]) for the registry to find its line.
    pub(crate) fn about(
        error: Error,
        backend: &str,
        symbol: &[u8],
        args: core::fmt::Arguments<'_>,
    ) -> Self {
        let mut what = Text(KVec::new());
        let _ = write!(what, "{backend} ");
        let start = what.0.len();
        let _ = write!(what, "{}: ", BStr(symbol));
        let lead = what.0.len();
        let _ = what.write_fmt(args);
        // Out of memory half way: the words as far as they go, no subject.
        let whole = what.0.get(start..lead.saturating_sub(2)) == Some(symbol);
        Self {
            error,
            what: what.0,
            line: None,
            subject: whole.then_some(Subject {
                symbol: start,
                lead,
                named_by_line: false,
            }),
            set: None,
        }
    }

    /// The symbol of the target this failure is about, if one.
    pub(crate) fn subject_symbol(&self) -> Option<&[u8]> {
        let s = self.subject.as_ref()?;
        self.what.get(s.symbol..s.lead.checked_sub(2)?)
    }

    /// What was wrong, with the target it is about when that is not
    /// shown otherwise: what `last_error` and the log say before the errno.
    pub(crate) fn message(&self) -> Message<'_> {
        Message(self)
    }

    /// A positive errno from the pure logic ([`crate::errno`]), described
    /// by `args`.
    pub(crate) fn errno(errno: i32, args: core::fmt::Arguments<'_>) -> Self {
        Self::new(pure(errno), args)
    }
}

/// A positive errno as an [`Error`]: one of the pure logic's
/// ([`crate::errno`], the `errno()` of [`crate::command::ParseError`] and
/// [`crate::lifecycle::Refusal`], [`crate::direct::signature::REFUSED_ERRNO`]), or
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
        if e == EINTR {
            return Failed::killed();
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
