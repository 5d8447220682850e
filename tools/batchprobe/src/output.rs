// SPDX-License-Identifier: GPL-2.0

//! What the commands write: tables and records to stdout, where a reader
//! that went away (`| head`) ends the command quietly; notes to stderr,
//! where a dead terminal (after a hangup) is no reason to stop cleaning up.

use std::io::{ErrorKind, Write};

use crate::error::{Error, Result};

/// Writes `text` to stdout, whole.
pub fn out(text: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(Error::quiet()),
        Err(e) => Err(Error::new(format!("stdout: {e}"))),
    }
}

/// Writes `text` and a newline to stderr; a failure is ignored.
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}
