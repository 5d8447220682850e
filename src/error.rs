// SPDX-License-Identifier: GPL-2.0

//! One error type for everything a control write or an API call can fail
//! with: an errno and a sentence naming what failed (the symbol, the set,
//! the line), which `last_error` and the log show.
//!
//! The errno numbers the pure logic uses are named in [`crate::errno`].

use core::fmt::Write;

use kernel::alloc::AllocError;
use kernel::prelude::*;

/// An error that names what failed.
pub(crate) struct Failed {
    pub(crate) error: Error,
    pub(crate) what: KVec<u8>,
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
        }
    }

    /// A positive errno from the pure logic ([`crate::errno`]), described
    /// by `args`.
    pub(crate) fn errno(errno: i32, args: core::fmt::Arguments<'_>) -> Self {
        Self::new(Error::from_errno(-errno), args)
    }
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
        Failed::new(e, format_args!("errno {}", e.to_errno()))
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
