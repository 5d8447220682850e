// SPDX-License-Identifier: GPL-2.0

//! Building a set: every target is routed to the backend that serves it
//! best ([`Backends::route`]); a refusal fails the set for a target named
//! on its own line, and is skipped (and counted) for a glob member.

use kernel::prelude::*;

use super::Probes;
use crate::backend::{Added, Backends, Ctx, Target};
use crate::command::ProbeKind;
use crate::error::{BStr, Failed};

/// The most return-probe instances (`r[MAXACTIVE]:`, summed over its
/// probes, kretprobes and fprobe returns alike) one set preallocates:
/// `r4096:` on a glob of thousands of functions would otherwise ask for
/// millions. Explicit lines beyond it fail with `ENOSPC`, glob members are
/// skipped.
const MAX_KRETPROBE_INSTANCES: usize = 1 << 18;

/// How many refused glob members a set remembers by name.
const SKIPPED_SHOWN: usize = 256;

/// Glob members the kernel refused: all counted, the first few named.
pub(crate) struct Skipped {
    pub(super) total: usize,
    pub(super) named: KVec<(KVec<u8>, i32)>,
}

impl Skipped {
    /// None yet.
    pub(super) fn new() -> Self {
        Self {
            total: 0,
            named: KVec::new(),
        }
    }

    /// Counts a refused glob member, naming the first few.
    pub(super) fn add(&mut self, symbol: &[u8], errno: i32) {
        self.total += 1;
        if self.named.len() < SKIPPED_SHOWN {
            let mut v = KVec::new();
            if v.extend_from_slice(symbol, GFP_KERNEL).is_ok() {
                let _ = self.named.push((v, errno), GFP_KERNEL);
            }
        }
    }
}

/// Registers a set's probes one by one (see [`super::Set::register`]).
pub(crate) struct Builder<'a> {
    pub(super) ctx: Ctx<'a>,
    /// Return instances preallocated so far (`maxactive` summed).
    pub(super) instances: usize,
    pub(super) probes: &'a mut Probes,
}

impl Builder<'_> {
    /// Adds a probe on `t` through the backend that serves it best. A
    /// refusal fails the set when `t` is explicit (the error names it),
    /// else it is recorded as skipped and `Ok(false)` returned.
    pub(crate) fn add(&mut self, t: &Target<'_>) -> Result<bool, Failed> {
        if let ProbeKind::Kretprobe { maxactive } = t.kind {
            let max = maxactive.unwrap_or(0) as usize;
            if self.instances + max > MAX_KRETPROBE_INSTANCES {
                if t.explicit {
                    return Err(Failed::new(
                        ENOSPC,
                        format_args!(
                            "{}kretprobe {}: more than {} instances (maxactive) in the set",
                            Subject(t),
                            BStr(t.symbol),
                            MAX_KRETPROBE_INSTANCES
                        ),
                    )
                    .on_line(t.line.as_ref()));
                }
                self.probes.skipped.add(t.symbol, ENOSPC.to_errno());
                return Ok(false);
            }
            self.instances += max;
        }
        let ctx = self.ctx;
        let Probes {
            backends, skipped, ..
        } = &mut *self.probes;
        let Some(b) = Backends::route(backends, &ctx, t) else {
            return refused(
                skipped,
                "probe",
                t,
                EINVAL.to_errno(),
                "no backend serves this kind of probe",
            );
        };
        match b.add(&ctx, t)? {
            Added::Yes => Ok(true),
            Added::Already => Ok(false),
            Added::Refused(errno, what) => {
                let name = b.name();
                refused(skipped, name, t, errno, what)
            }
        }
    }
}

/// A refusal by `backend`: fails the set for an explicit target, else is
/// skipped. `what` says what was wrong, in words.
///
/// The error of a control line says only `what`: `last_error` shows the
/// line, which names the symbol. An API target's names the target, the
/// backend and the symbol.
fn refused(
    skipped: &mut Skipped,
    backend: &str,
    t: &Target<'_>,
    errno: i32,
    what: &str,
) -> Result<bool, Failed> {
    if t.explicit {
        let error = Error::from_errno(errno);
        let f = match t.line {
            Some(ref l) => Failed::new(error, format_args!("{}", what)).on_line(Some(l)),
            None => Failed::new(
                error,
                format_args!(
                    "{}{} {}+{}: {}",
                    Subject(t),
                    backend,
                    BStr(t.symbol),
                    t.offset,
                    what
                ),
            ),
        };
        return Err(f);
    }
    skipped.add(t.symbol, errno);
    Ok(false)
}

/// `target N: ` for an API target (its index in the client's array);
/// nothing for a control line's, which `last_error` shows instead.
struct Subject<'a, 'b>(&'a Target<'b>);

impl core::fmt::Display for Subject<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0.line {
            Some(_) => Ok(()),
            None => write!(f, "target {}: ", self.0.index),
        }
    }
}
