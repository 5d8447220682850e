// SPDX-License-Identifier: GPL-2.0

//! What the `sets` and `stats` files show of a set: one summary line, and
//! the full statistics (phase timings, grace periods, one line per probe
//! naming the backend that serves it, skipped glob members). The probes
//! are walked a few thousand per RCU read-side critical section
//! ([`Set::walk_probes`]).

use core::fmt::Write;
use core::sync::atomic::Ordering;

use super::build::Skipped;
use super::Set;
use crate::aggregate::{self, Summary};
use crate::backend::ProbeView;
use crate::bindings;
use crate::error::BStr;
use crate::errtext;
use crate::gpcount;
use crate::rcu;
use crate::sched;

/// How many probes a listing walks inside one RCU read-side critical
/// section (see [`Set::walk_probes`]).
const PROBES_PER_READ_SECTION: usize = 4096;

/// How a walk of a set's probes ended.
#[derive(PartialEq, Eq)]
enum Walked {
    /// Every probe was met.
    All,
    /// The teardown took the probes on the way.
    TornDown,
}

impl Set {
    /// Writes the one-line summary used by the `sets` file:
    /// `NAME STATE kprobes=K kretprobes=R fprobes=F fretprobes=X direct=D
    /// skipped=S hits=H [waiting=W] [gone=G] [holds=MOD,...]`.
    pub(crate) fn write_summary(&self, w: &mut impl Write) -> core::fmt::Result {
        let t = self.totals()?;
        write!(w, "{} {}", BStr(&self.name), self.state().as_str())?;
        for (field, n) in self.tally.iter() {
            write!(w, " {}={}", field, n)?;
        }
        write!(w, " skipped={} hits={}", self.nskipped, t.hits)?;
        t.write_states(w)?;
        self.write_holds(w)?;
        writeln!(w)
    }

    /// ` holds=MOD[,MOD...]`: the modules its direct calls and fprobes
    /// hold loaded, each once (none: nothing written; nothing once torn
    /// down).
    fn write_holds(&self, w: &mut impl Write) -> core::fmt::Result {
        let guard = rcu::read_lock();
        let Some(p) = self.probes.get(&guard) else {
            return Ok(());
        };
        let mut sep = " holds=";
        let mut res = Ok(());
        let direct = &p.backends.direct;
        let mut write = |m: &[u8]| {
            if res.is_ok() {
                res = write!(w, "{sep}{}", BStr(m));
                sep = ",";
            }
        };
        direct.for_each_module(&mut write);
        p.backends.fprobe.for_each_module(|m| {
            if !direct.holds_module(m) {
                write(m);
            }
        });
        res
    }

    /// Writes the full statistics used by the `stats` file. The probes are
    /// walked a slice at a time ([`Set::walk_probes`]): a teardown that
    /// takes them meanwhile ends the list there.
    pub(crate) fn write_stats(&self, w: &mut impl Write) -> core::fmt::Result {
        let totals = self.totals()?;
        let mode = {
            let guard = rcu::read_lock();
            let p = self.probes.get(&guard);
            p.map(|p| p.backends.direct.mode().as_str())
        };
        self.write_stats_line(w, totals, mode)?;
        self.write_timings(w)?;
        if mode.is_none() || self.walk_probes(|v| write_probe(w, v))? == Walked::TornDown {
            return Ok(());
        }
        // A few lines per backend, and at most `SKIPPED_SHOWN` skipped.
        let guard = rcu::read_lock();
        let Some(p) = self.probes.get(&guard) else {
            return Ok(());
        };
        for b in p.backends.all() {
            b.write_extra(w)?;
        }
        write_skipped(w, &p.skipped)
    }

    /// Hits and misses summed over every probe (walked as
    /// [`Set::walk_probes`] does), or, once the teardown took them, the
    /// counts it froze.
    fn totals(&self) -> Result<Totals, core::fmt::Error> {
        let frozen = || {
            let (hits, missed) = self.frozen();
            Totals {
                hits,
                missed,
                ..Totals::default()
            }
        };
        let missed = {
            let guard = rcu::read_lock();
            match self.probes.get(&guard) {
                Some(p) => p.backends.missed_unattributed(),
                None => return Ok(frozen()),
            }
        };
        let mut t = Totals {
            missed,
            ..Totals::default()
        };
        let walked = self.walk_probes(|v| {
            t.hits = t.hits.wrapping_add(v.hits);
            t.missed = t.missed.wrapping_add(v.missed);
            match v.state {
                Some("waiting") => t.waiting = t.waiting.saturating_add(1),
                Some(_) => t.gone = t.gone.saturating_add(1),
                None => {}
            }
            Ok(())
        })?;
        Ok(match walked {
            Walked::All => t,
            // Frozen before the probes were unpublished.
            Walked::TornDown => frozen(),
        })
    }

    /// Calls `f` for every probe of the set, [`PROBES_PER_READ_SECTION`]
    /// at a time, each slice inside an RCU read-side critical section of
    /// its own, rescheduling between slices. Stops at `f`'s first error,
    /// and with an error once the reader is killed (the listing then fails
    /// with `EINTR`).
    ///
    /// Not one read-side section for the whole walk: a set holds up to
    /// millions of probes, and on a kernel without preemptible RCU that
    /// section is a preempt-disabled loop of seconds (RCU stall and
    /// soft-lockup reports). Nor a reference to the set (`Arc<Set>`) in
    /// place of the section: the teardown runs on the module workqueue,
    /// without the registry lock that listings hold, and unpublishes the
    /// probes ([`crate::rcu::RcuOption::take`]) and frees them with
    /// `call_rcu` ([`crate::rcu::RcuBox`]) whatever references to the set
    /// exist; only a read-side section keeps them. So each slice looks the
    /// probes up anew, under a fresh section: `None` means the teardown
    /// took them (the walk ends, [`Walked::TornDown`]); `Some` is the same
    /// `Probes` as before (published once, when the set was made, never
    /// replaced), whose probes never change after the build, so the next
    /// slice starts where the last one stopped.
    fn walk_probes(
        &self,
        mut f: impl FnMut(&ProbeView<'_>) -> core::fmt::Result,
    ) -> Result<Walked, core::fmt::Error> {
        let mut done = 0usize;
        loop {
            let mut n = 0usize;
            let mut res = Ok(());
            {
                let guard = rcu::read_lock();
                let Some(p) = self.probes.get(&guard) else {
                    return Ok(Walked::TornDown);
                };
                p.backends.each_from(done, &mut |v| {
                    res = f(v);
                    n += 1;
                    res.is_ok() && n < PROBES_PER_READ_SECTION
                });
            }
            res?;
            if n < PROBES_PER_READ_SECTION {
                return Ok(Walked::All);
            }
            done = done.saturating_add(n);
            sched::resched_unless_killed().map_err(|_| core::fmt::Error)?;
        }
    }

    /// The `stats` file's first line: the set, its state, its fields and
    /// totals; `mode`: its direct calls' (`None`: torn down).
    fn write_stats_line(
        &self,
        w: &mut impl Write,
        t: Totals,
        mode: Option<&str>,
    ) -> core::fmt::Result {
        write!(
            w,
            "set {} state={}",
            BStr(&self.name),
            self.state().as_str()
        )?;
        for (field, n) in self.tally.iter() {
            write!(w, " {}={}", field, n)?;
        }
        write!(
            w,
            " mode={} skipped={} hits={} missed={} return_pool_bytes={}",
            mode.unwrap_or("-"),
            self.nskipped,
            t.hits,
            t.missed,
            self.return_pool
        )?;
        t.write_states(w)?;
        self.write_holds(w)?;
        writeln!(w)
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

/// A set's counts over its probes ([`Set::totals`]): hits and misses, and
/// how many probes wait for their module or went with it (the probes'
/// `state=`; 0 once torn down).
#[derive(Default, Clone, Copy)]
struct Totals {
    hits: u64,
    missed: u64,
    waiting: usize,
    gone: usize,
}

impl Totals {
    /// ` waiting=N` and ` gone=N`, each where it is not 0.
    fn write_states(&self, w: &mut impl Write) -> core::fmt::Result {
        if self.waiting > 0 {
            write!(w, " waiting={}", self.waiting)?;
        }
        if self.gone > 0 {
            write!(w, " gone={}", self.gone)?;
        }
        Ok(())
    }
}

/// A probe's `stats` line, naming the backend that serves it.
fn write_probe(w: &mut impl Write, v: &ProbeView<'_>) -> core::fmt::Result {
    write!(
        w,
        "  {} {} {}+{} hits={} missed={}",
        v.kind,
        BStr(v.name),
        BStr(v.symbol),
        v.offset,
        v.hits,
        v.missed
    )?;
    if let Some(state) = v.state {
        write!(w, " state={state}")?;
    }
    if let Some(a) = v.last_arg {
        write!(w, " last_arg={}", Kptr(a))?;
    }
    match v.exit {
        Some((exits, ret)) => writeln!(w, " exits={} last_ret={}", exits, Kptr(ret))?,
        None => writeln!(w)?,
    }
    match v.aggregate {
        Some(a) => write_aggregate(w, v.name, &a.summary()),
        None => Ok(()),
    }
}

/// A direct function's aggregates (`create --hist`, `--errors`), a line
/// each once there is something to show:
/// `    hist NAME count=N mean_ns=M p50_lt_ns=A p90_lt_ns=B p99_lt_ns=C
/// log2_ns=LOW:N,...` (the timed returns; a percentile is below the end
/// of its power-of-two bucket, `inf` past the last; each bucket named by
/// its least duration) and `    errors NAME total=N ENAME=N ... other=N`
/// (the error returns by errno, most frequent first; `other`: not named,
/// past the slots a function keeps per CPU).
fn write_aggregate(w: &mut impl Write, name: &[u8], a: &Summary) -> core::fmt::Result {
    if let Some(mean) = a.mean() {
        write!(
            w,
            "    hist {} count={} mean_ns={}",
            BStr(name),
            a.count(),
            mean
        )?;
        for (label, permille) in [("p50", 500), ("p90", 900), ("p99", 990)] {
            match a.percentile_end(permille) {
                Some(Some(end)) => write!(w, " {label}_lt_ns={end}")?,
                _ => write!(w, " {label}_lt_ns=inf")?,
            }
        }
        let mut sep = " log2_ns=";
        for (i, &n) in a.buckets.iter().enumerate().filter(|(_, &n)| n != 0) {
            write!(w, "{sep}{}:{}", aggregate::bucket_low(i), n)?;
            sep = ",";
        }
        writeln!(w)?;
    }
    if a.errors() != 0 {
        write!(w, "    errors {} total={}", BStr(name), a.errors())?;
        for &(errno, n) in a.errnos.iter().filter(|e| e.1 != 0) {
            match errtext::name(i32::from(errno)) {
                Some(e) => write!(w, " {e}={n}")?,
                None => write!(w, " errno{errno}={n}")?,
            }
        }
        writeln!(w, " other={}", a.other)?;
    }
    Ok(())
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
    let (past_cap, cap) = skipped.past_cap;
    if past_cap > 0 {
        writeln!(w, "  skipped {} past the cap of {}", past_cap, cap)?;
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
