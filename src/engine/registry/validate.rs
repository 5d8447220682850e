// SPDX-License-Identifier: GPL-2.0

//! Checking a whole batch before any of it runs: a simulation of the
//! registry (each named set's state and staged lines, the totals), that
//! every command of the write is applied to in order. The first command
//! that would fail fails the write, naming its line, and nothing runs.
//!
//! What it looks up is sorted first (set names, and the events of staged
//! and new lines: `SET/EVENT`, which a probe name must not repeat and
//! `-:SET/EVENT` drops), so a write of n lines costs O(n log n); it
//! reschedules as it goes, and gives up with `EINTR` once the writer is
//! killed.

// Pure, and compiled by the host tests too (tests/src/lib.rs): its items
// are `pub` for them.
#[allow(unreachable_pub)]
mod batchkeys;

use kernel::alloc::AllocError;
use kernel::prelude::*;

use super::{spec_event, ProbeEventName, Registry, MAX_SETS, MAX_STAGED};
use crate::command::{Command, ProbeSpec};
use crate::error::Failed;
use crate::lifecycle::{self, Op, SetState};
use crate::sched::Pacer;
use crate::sort;

/// The simulated state of one set while a batch is validated.
#[derive(Clone, Copy)]
struct Sim {
    state: Option<SetState>,
    staged: usize,
    /// How many times the batch took all its lines (`create`, `-:SET`).
    takes: u32,
}

/// The lines staged for one event of one set (`SET/EVENT`,
/// [`super::line_event`]) as the batch goes.
#[derive(Clone, Copy, Default)]
struct Ev {
    /// Its set's [`Sim::takes`] when these were counted: lines counted
    /// before a later take are gone.
    epoch: u32,
    /// Lines staged.
    lines: usize,
    /// Of them, lines that name the event (a probe name, which a line
    /// must not repeat).
    named: usize,
}

/// A line's event: its set's name and the event's (`SET/EVENT`).
type EventKey<'r> = (&'r [u8], ProbeEventName<'r>);

/// No event: a command that has none (an unnamed glob's line, `create`).
const NO_EV: u32 = u32::MAX;

/// The registry as the batch would leave it, command by command.
struct Simulation<'a> {
    reg: &'a Registry,
    /// The registry's sets, sorted by name ([`Registry::sets_by_name`]).
    by_name: KVVec<u32>,
    /// The set of each staged line, sorted.
    staged_sets: KVVec<&'a [u8]>,
    /// Each command's simulated set: an index into `sims`.
    ids: KVVec<u32>,
    /// One per distinct set name of the batch, made when first named.
    sims: KVVec<Option<Sim>>,
    /// Each command's event: an index into `evs`, or [`NO_EV`].
    ev_ids: KVVec<u32>,
    /// One per distinct `SET/EVENT` of the registry's lines and the batch's.
    evs: KVVec<Ev>,
    counts: Counts,
}

/// What the registry would hold in all, as the batch goes.
struct Counts {
    /// Probe lines staged.
    staged: usize,
    /// Live sets.
    live: usize,
}

/// A batch that would fail: the line that would, and why.
pub(in crate::engine) struct Invalid {
    /// Its number in the write (from 1).
    pub(in crate::engine) line: usize,
    pub(in crate::engine) failed: Failed,
}

impl Registry {
    /// Checks a whole batch against a simulation of the registry.
    pub(in crate::engine) fn validate<'a>(
        &'a self,
        cmds: &[(usize, Command<'a>)],
    ) -> Result<(), Invalid> {
        let at = |line: usize| move |failed: Failed| Invalid { line, failed };
        let first = cmds.first().map_or(0, |c| c.0);
        let mut sim = Simulation::new(self, cmds).map_err(|_| at(first)(Failed::oom()))?;
        let mut pace = Pacer::new(1024);
        for (i, &(line, cmd)) in cmds.iter().enumerate() {
            pace.step().map_err(|e| at(line)(Failed::from(e)))?;
            sim.apply(i, cmd).map_err(at(line))?;
        }
        Ok(())
    }

    /// The event of every staged line that has one and of every command
    /// of `cmds` that names one, grouped: each command's group (or
    /// [`NO_EV`]), and each group's lines staged in the registry. Sorts
    /// instead of comparing every pair: O(n log n). A write none of whose
    /// commands names an event (a `create`, say) reads no group: none is
    /// made (a `create` of 44,000 staged lines sorted them all).
    ///
    /// An unnamed line's event (`p_SYM_OFF`) counts only for a
    /// `-:SET/EVENT` (the lines it drops): a probe name must not repeat a
    /// *named* line's ([`Sim::probe`]). So without a `-:SET/EVENT` in the
    /// write only named lines are grouped: the names of unnamed lines,
    /// staged and new, are neither made nor sorted (a staging write of
    /// 30,000 unnamed `p:` lines took 490 ms where the same `d:` lines,
    /// which have no event, took 265: Debian's image under TCG,
    /// 2026-12-07).
    fn events_of<'c>(&'c self, cmds: &[(usize, Command<'c>)]) -> Result<(KVVec<u32>, KVVec<Ev>)> {
        let drops = cmds
            .iter()
            .any(|(_, c)| matches!(c, Command::UnstageEvent { .. }));
        let spec_key = |p: &ProbeSpec<'c>| {
            if drops {
                spec_event(p)
            } else {
                p.name.map(|n| ProbeEventName::Given(n.as_bytes()))
            }
        };
        let names_one = |c: &Command<'c>| match c {
            Command::Probe(p) => spec_key(p).is_some(),
            Command::UnstageEvent { .. } => true,
            _ => false,
        };
        if !cmds.iter().any(|(_, c)| names_one(c)) {
            return Ok((
                KVVec::from_elem(NO_EV, cmds.len(), GFP_KERNEL)?,
                KVVec::new(),
            ));
        }
        let (mut keys, named) = self.staged_events(drops)?;
        let in_registry = keys.len();
        let mut item = KVVec::from_elem(NO_EV, cmds.len(), GFP_KERNEL)?;
        for (i, (_, cmd)) in cmds.iter().enumerate() {
            let key = match cmd {
                Command::Probe(p) => spec_key(p).map(|e| (p.set.as_bytes(), e)),
                Command::UnstageEvent { set, event } => {
                    Some((set.as_bytes(), ProbeEventName::Given(event.as_bytes())))
                }
                _ => None,
            };
            if let (Some(key), Some(slot)) = (key, item.get_mut(i)) {
                *slot = keys.len() as u32;
                keys.push(key, GFP_KERNEL)?;
            }
        }
        let mut order = KVVec::from_elem(0u32, keys.len(), GFP_KERNEL)?;
        let mut ids = KVVec::from_elem(0u32, keys.len(), GFP_KERNEL)?;
        let groups = batchkeys::group(&keys, &mut order, &mut ids);
        let mut evs = KVVec::from_elem(Ev::default(), groups, GFP_KERNEL)?;
        for (k, &is_named) in named.iter().enumerate().take(in_registry) {
            if let Some(ev) = ids.get(k).and_then(|&g| evs.get_mut(g as usize)) {
                ev.lines += 1;
                ev.named += usize::from(is_named);
            }
        }
        for slot in item.iter_mut() {
            if *slot != NO_EV {
                *slot = ids.get(*slot as usize).copied().unwrap_or(NO_EV);
            }
        }
        Ok((item, evs))
    }

    /// The `SET/EVENT` of each staged line [`Registry::events_of`] groups
    /// (every line's that has one where the write `drops` lines by event,
    /// else named lines' only), and whether the line is named.
    fn staged_events(&self, drops: bool) -> Result<(KVVec<EventKey<'_>>, KVVec<bool>)> {
        let mut keys = KVVec::with_capacity(self.staged.len(), GFP_KERNEL)?;
        let mut named = KVVec::with_capacity(self.staged.len(), GFP_KERNEL)?;
        for e in self.staged.iter() {
            let ev = if drops {
                e.event()
            } else {
                e.name.as_deref().map(ProbeEventName::Given)
            };
            if let Some(ev) = ev {
                keys.push((e.set.as_slice(), ev), GFP_KERNEL)?;
                named.push(e.name.is_some(), GFP_KERNEL)?;
            }
        }
        Ok((keys, named))
    }
}

impl<'a> Simulation<'a> {
    /// The registry as it is, with room for every set `cmds` names.
    fn new(reg: &'a Registry, cmds: &[(usize, Command<'a>)]) -> Result<Self, AllocError> {
        let (ev_ids, evs) = reg.events_of(cmds).map_err(|_| AllocError)?;
        let by_name = reg.sets_by_name().map_err(|_| AllocError)?;
        let mut staged_sets = KVVec::with_capacity(reg.staged.len(), GFP_KERNEL)?;
        for e in reg.staged.iter() {
            staged_sets.push(e.set.as_slice(), GFP_KERNEL)?;
        }
        sort::sort(&mut staged_sets);
        // One simulated set per distinct set name of the write.
        let mut keys = KVVec::with_capacity(cmds.len(), GFP_KERNEL)?;
        for (_, cmd) in cmds.iter() {
            keys.push(cmd.set().unwrap_or("").as_bytes(), GFP_KERNEL)?;
        }
        let mut order = KVVec::from_elem(0u32, cmds.len(), GFP_KERNEL)?;
        let mut ids = KVVec::from_elem(0u32, cmds.len(), GFP_KERNEL)?;
        let groups = batchkeys::group(&keys, &mut order, &mut ids);
        let sims = KVVec::from_elem(None, groups, GFP_KERNEL)?;
        Ok(Self {
            reg,
            by_name,
            staged_sets,
            ids,
            sims,
            ev_ids,
            evs,
            counts: Counts {
                staged: reg.staged.len(),
                live: reg.sets.iter().filter(|s| s.state().is_live()).count(),
            },
        })
    }

    /// Applies the batch's command `i`, or says why it would fail.
    fn apply(&mut self, i: usize, cmd: Command<'a>) -> Result<(), Failed> {
        let Some(set) = cmd.set() else {
            return Ok(());
        };
        let (sim, counts, ev) = self.sim(i, set)?;
        match cmd {
            Command::Probe(spec) => sim.probe(counts, ev, set, spec),
            Command::Create { .. } => sim.create(counts, set),
            Command::Enable(_) => sim.state_op(counts, set, Op::Enable),
            Command::Disable(_) => sim.state_op(counts, set, Op::Disable),
            Command::Retarget { .. } => sim.state_op(counts, set, Op::Retarget),
            Command::Unregister { .. } => sim.state_op(counts, set, Op::Unregister),
            Command::Unstage(_) => sim.unstage(counts, set),
            Command::UnstageEvent { event, .. } => sim.unstage_event(counts, ev, set, event),
            Command::Flush => Ok(()),
        }
    }

    /// The simulated set of command `i`, named `set` (made from the
    /// registry the first time the batch names it), the totals, and the
    /// command's event (its lines counted since the set's last take).
    fn sim(
        &mut self,
        i: usize,
        set: &str,
    ) -> Result<(&mut Sim, &mut Counts, Option<&mut Ev>), Failed> {
        let name = set.as_bytes();
        let id = self
            .ids
            .get(i)
            .map(|&id| id as usize)
            .ok_or_else(Failed::oom)?;
        let (reg, by_name, staged_sets) = (self.reg, &self.by_name, &self.staged_sets);
        let slot = self.sims.get_mut(id).ok_or_else(Failed::oom)?;
        let sim = slot.get_or_insert_with(|| {
            let from = staged_sets.partition_point(|s| *s < name);
            let to = staged_sets.partition_point(|s| *s <= name);
            Sim {
                state: reg.find_in(by_name, name).map(|s| s.state()),
                staged: to - from,
                takes: 0,
            }
        });
        let ev = match self.ev_ids.get(i) {
            Some(&g) if g != NO_EV => {
                let ev = self.evs.get_mut(g as usize).ok_or_else(Failed::oom)?;
                if ev.epoch != sim.takes {
                    *ev = Ev {
                        epoch: sim.takes,
                        ..Ev::default()
                    };
                }
                Some(ev)
            }
            _ => None,
        };
        Ok((sim, &mut self.counts, ev))
    }
}

/// One method per kind of command: what it does to its set and to the
/// totals, or why it would fail.
impl Sim {
    /// A probe line (`ev`: its event's lines): staged, unless its set
    /// exists already, its name is staged already, or too many lines are.
    fn probe(
        &mut self,
        counts: &mut Counts,
        ev: Option<&mut Ev>,
        set: &str,
        spec: ProbeSpec<'_>,
    ) -> Result<(), Failed> {
        let total = counts.staged + 1;
        if self.state.is_some_and(|s| s.is_live()) {
            return Err(Failed::new(
                EEXIST,
                format_args!("set {} exists: probes are added before create", set),
            ));
        }
        let repeat = ev.as_ref().is_some_and(|e| e.named > 0);
        if let (Some(name), true) = (spec.name, repeat) {
            return Err(Failed::new(
                EEXIST,
                format_args!("probe {}/{} is already staged", set, name),
            ));
        }
        if total > MAX_STAGED {
            return Err(Failed::new(
                ENOSPC,
                format_args!("more than {} probe lines staged", MAX_STAGED),
            ));
        }
        self.staged += 1;
        counts.staged = total;
        if let Some(ev) = ev {
            ev.lines += 1;
            ev.named += usize::from(spec.name.is_some());
        }
        Ok(())
    }

    /// `create`: the set takes its staged lines, unless it exists already,
    /// has none, or too many sets are live.
    fn create(&mut self, counts: &mut Counts, set: &str) -> Result<(), Failed> {
        let live = counts.live + 1;
        if self.state.is_some_and(|s| s.is_live()) {
            return Err(Failed::new(
                EEXIST,
                format_args!("set {} already exists", set),
            ));
        }
        if self.staged == 0 {
            return Err(Failed::new(
                ENOENT,
                format_args!("no probe staged for set {}", set),
            ));
        }
        if live > MAX_SETS {
            return Err(Failed::new(
                ENOSPC,
                format_args!("more than {} live sets", MAX_SETS),
            ));
        }
        self.state = Some(SetState::Registered);
        self.takes = self.takes.wrapping_add(1);
        let taken = core::mem::take(&mut self.staged);
        counts.live = live;
        counts.staged = counts.staged.saturating_sub(taken);
        Ok(())
    }

    /// `enable`, `disable`, `direct` (retarget) and `unregister`: as the
    /// life cycle allows ([`lifecycle::next`]).
    fn state_op(&mut self, counts: &mut Counts, set: &str, op: Op) -> Result<(), Failed> {
        let Some(state) = self.state else {
            return Err(Failed::new(ENOENT, format_args!("no set {}", set)));
        };
        let to = lifecycle::next(state, op)
            .map_err(|r| Failed::errno(r.errno(), format_args!("set {}: {}", set, r.as_str())))?;
        self.state = Some(to.unwrap_or(state));
        if state.is_live() && to.is_some_and(|t| !t.is_live()) {
            counts.live = counts.live.saturating_sub(1);
        }
        Ok(())
    }

    /// `-:SET`: drops the set's staged lines, if it has any.
    fn unstage(&mut self, counts: &mut Counts, set: &str) -> Result<(), Failed> {
        if self.staged == 0 {
            return Err(Failed::new(
                ENOENT,
                format_args!("nothing staged for set {}", set),
            ));
        }
        let taken = core::mem::take(&mut self.staged);
        self.takes = self.takes.wrapping_add(1);
        counts.staged = counts.staged.saturating_sub(taken);
        Ok(())
    }

    /// `-:SET/EVENT`: drops the lines staged for the event (`ev`), if it
    /// has any (as `-:SET` drops them whatever the set's state: an API
    /// client's `create` of the name leaves them staged); else a created
    /// set's probes are refused as staying until the set retires whole.
    fn unstage_event(
        &mut self,
        counts: &mut Counts,
        ev: Option<&mut Ev>,
        set: &str,
        event: &str,
    ) -> Result<(), Failed> {
        let Some(ev) = ev.filter(|e| e.lines > 0) else {
            if self.state.is_some_and(|s| s.is_live()) {
                return Err(Failed::new(
                    EBUSY,
                    format_args!(
                        "set {} is created: its probes go with the set (unregister {})",
                        set, set
                    ),
                ));
            }
            return Err(Failed::new(
                ENOENT,
                format_args!("no line staged for {}/{}", set, event),
            ));
        };
        self.staged = self.staged.saturating_sub(ev.lines);
        counts.staged = counts.staged.saturating_sub(ev.lines);
        *ev = Ev {
            epoch: ev.epoch,
            ..Ev::default()
        };
        Ok(())
    }
}
