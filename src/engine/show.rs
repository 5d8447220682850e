// SPDX-License-Identifier: GPL-2.0

//! The read-only files' contents: `sets`, `stats` (its module-wide first
//! line, then each set's) and `last_error`, read under the registry lock.

use core::fmt::Write;

use kernel::prelude::*;

use super::{Engine, Show};
use crate::sched;

impl Engine {
    /// Fills a read-only file: `EINTR` if the reader was killed while a
    /// listing walked millions of probes. (A full buffer stops the walk
    /// early too, but is no error: `seq_file` calls again with a bigger
    /// one.)
    pub(crate) fn show(&self, what: Show, w: &mut impl Write) -> Result {
        if self.write_listing(what, w).is_err() && sched::fatal_signal_pending() {
            return Err(EINTR);
        }
        Ok(())
    }

    /// [`Engine::show`]'s listing, under the registry lock.
    fn write_listing(&self, what: Show, w: &mut impl Write) -> core::fmt::Result {
        let reg = self.registry.lock();
        match what {
            Show::Sets => {
                for s in reg.sets.iter() {
                    s.write_summary(w)?;
                }
                let staged = reg.staged.len();
                if staged > 0 {
                    writeln!(w, "# {} probe(s) staged, not created", staged)?;
                }
                Ok(())
            }
            Show::Stats => {
                write!(
                    w,
                    "# clock={} direct_missed={} exit_inside={} exit_gone={} text_symbols={} grace_periods",
                    if crate::set::clock_is_tsc() {
                        "tsc"
                    } else {
                        "ktime"
                    },
                    crate::direct::missed(),
                    crate::direct::exit::tasks::inside(),
                    crate::direct::exit::tasks::gone(),
                    self.text.symbols()
                )?;
                crate::gpcount::write_totals(w)?;
                writeln!(w)?;
                for s in reg.sets.iter() {
                    s.write_stats(w)?;
                }
                Ok(())
            }
            Show::LastError => w.write_str(core::str::from_utf8(&reg.last_error).unwrap_or("")),
        }
    }
}
