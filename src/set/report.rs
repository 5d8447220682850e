// SPDX-License-Identifier: GPL-2.0

//! What the `sets` and `stats` files show of a set: one summary line, and
//! the full statistics (phase timings, grace periods, one line per probe
//! naming the backend that serves it, skipped glob members).

use core::fmt::Write;
use core::sync::atomic::Ordering;

use super::build::Skipped;
use super::{Probes, Set};
use crate::bindings;
use crate::error::BStr;
use crate::gpcount;
use crate::rcu;

impl Set {
    /// Writes the one-line summary used by the `sets` file:
    /// `NAME STATE kprobes=K kretprobes=R fprobes=F fretprobes=X direct=D
    /// skipped=S hits=H`.
    pub(crate) fn write_summary(&self, w: &mut impl Write) -> core::fmt::Result {
        let guard = rcu::read_lock();
        let p = self.probes.get(&guard);
        let (hits, _) = p.map_or_else(|| self.frozen(), |p| p.backends.totals());
        write!(w, "{} {}", BStr(&self.name), self.state().as_str())?;
        for (field, n) in self.tally.iter() {
            write!(w, " {}={}", field, n)?;
        }
        writeln!(w, " skipped={} hits={}", self.nskipped, hits)
    }

    /// Writes the full statistics used by the `stats` file.
    pub(crate) fn write_stats(&self, w: &mut impl Write) -> core::fmt::Result {
        let guard = rcu::read_lock();
        let p = self.probes.get(&guard);
        self.write_stats_line(w, p)?;
        self.write_timings(w)?;
        let Some(p) = p else { return Ok(()) };
        write_probes(w, p)?;
        for b in p.backends.all() {
            b.write_extra(w)?;
        }
        write_skipped(w, &p.skipped)
    }

    /// The `stats` file's first line: the set, its state, its fields and
    /// totals.
    fn write_stats_line(&self, w: &mut impl Write, p: Option<&Probes>) -> core::fmt::Result {
        let (hits, missed) = p.map_or_else(|| self.frozen(), |p| p.backends.totals());
        write!(
            w,
            "set {} state={}",
            BStr(&self.name),
            self.state().as_str()
        )?;
        for (field, n) in self.tally.iter() {
            write!(w, " {}={}", field, n)?;
        }
        writeln!(
            w,
            " mode={} skipped={} hits={} missed={} return_pool_bytes={}",
            p.map_or("-", |p| p.backends.direct.mode().as_str()),
            self.nskipped,
            hits,
            missed,
            self.return_pool
        )
    }

    /// The phase timings and grace periods, one line each.
    fn write_timings(&self, w: &mut impl Write) -> core::fmt::Result {
        let t = &self.timings;
        writeln!(
            w,
            "  register_ns={} attach_ns={} enable_ns={} disable_ns={} disarm_ns={} unregister_call_ns={} detach_ns={} teardown_ns={} unregister_complete_ns={}",
            t.register.load(Ordering::Relaxed),
            t.attach.load(Ordering::Relaxed),
            t.enable.load(Ordering::Relaxed),
            t.disable.load(Ordering::Relaxed),
            t.disarm.load(Ordering::Relaxed),
            t.unregister_call.load(Ordering::Relaxed),
            t.detach.load(Ordering::Relaxed),
            t.teardown.load(Ordering::Relaxed),
            t.unregister_complete.load(Ordering::Relaxed)
        )?;
        writeln!(
            w,
            "  grace_periods {} register={} enable={} disarm={} retarget={} teardown={} detach={}",
            gpcount::NAMES,
            t.gp_register,
            t.gp_enable,
            t.gp_disarm,
            t.gp_retarget,
            t.gp_teardown,
            t.gp_detach
        )
    }
}

/// One line per probe, naming the backend that serves it.
fn write_probes(w: &mut impl Write, p: &Probes) -> core::fmt::Result {
    let mut res = Ok(());
    p.backends.each(&mut |v| {
        if res.is_err() {
            return;
        }
        res = write!(
            w,
            "  {} {} {}+{} hits={} missed={}",
            v.kind,
            BStr(v.name),
            BStr(v.symbol),
            v.offset,
            v.hits,
            v.missed
        )
        .and_then(|()| match v.last_arg {
            Some(a) => write!(w, " last_arg={}", Kptr(a)),
            None => Ok(()),
        })
        .and_then(|()| match v.exit {
            Some((exits, ret)) => writeln!(w, " exits={} last_ret={}", exits, Kptr(ret)),
            None => writeln!(w),
        });
    });
    res
}

/// The glob members the kernel refused: the first few by name, the rest
/// counted.
fn write_skipped(w: &mut impl Write, skipped: &Skipped) -> core::fmt::Result {
    for (sym, error) in skipped.named.iter() {
        writeln!(w, "  skipped {} errno={}", BStr(sym), error.to_errno())?;
    }
    if skipped.total > skipped.named.len() {
        writeln!(
            w,
            "  skipped ... {} more",
            skipped.total - skipped.named.len()
        )?;
    }
    Ok(())
}

/// A recorded raw value (a traced function's first argument, often a
/// kernel pointer), shown as `%pK` shows it to the reader: hashed, raw or
/// zeros as `kptr_restrict` and the reader's capabilities allow.
struct Kptr(u64);

impl core::fmt::Display for Kptr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut buf = [0u8; 32];
        // SAFETY: `buf` is writable for its length; `%pK` only reads the
        // reader's credentials (process context: a `stats` read).
        let n = unsafe {
            bindings::bp_format_kptr(buf.as_mut_ptr().cast(), buf.len(), self.0 as usize)
        };
        let n = usize::try_from(n).unwrap_or(0).min(buf.len());
        f.write_str(core::str::from_utf8(buf.get(..n).unwrap_or(&[])).unwrap_or("?"))
    }
}
