// SPDX-License-Identifier: GPL-2.0

//! Checking a whole batch before any of it runs: a simulation of the
//! registry (each named set's state and staged lines, the totals), that
//! every command of the write is applied to in order. The first command
//! that would fail fails the write, naming its line, and nothing runs.
//!
//! What it looks up is sorted first (set names, staged and new probe
//! names), so a write of n lines costs O(n log n); it reschedules as it
//! goes, and gives up with `EINTR` once the writer is killed.

// Pure, and compiled by the host tests too (tests/src/lib.rs): its items
// are `pub` for them.
#[allow(unreachable_pub)]
mod batchkeys;

use kernel::alloc::AllocError;
use kernel::prelude::*;

use super::{Registry, MAX_SETS, MAX_STAGED};
use crate::command::{Command, ProbeSpec};
use crate::error::Failed;
use crate::lifecycle::{self, Op, SetState};
use crate::sched::Pacer;

/// The simulated state of one set while a batch is validated.
#[derive(Clone, Copy)]
struct Sim {
    state: Option<SetState>,
    staged: usize,
}

/// The registry as the batch would leave it, command by command.
struct Simulation<'a> {
    reg: &'a Registry,
    /// The index in the batch of the first probe line whose name is staged
    /// already.
    repeat: Option<usize>,
    /// The registry's sets, sorted by name ([`Registry::sets_by_name`]).
    by_name: KVVec<u32>,
    /// The set of each staged line, sorted.
    staged_sets: KVVec<&'a [u8]>,
    /// Each command's simulated set: an index into `sims`.
    ids: KVVec<u32>,
    /// One per distinct set name of the batch, made when first named.
    sims: KVVec<Option<Sim>>,
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

    /// The index in `cmds` of the first probe line whose name is staged
    /// already (in the registry, or by an earlier line of this write).
    /// Sorts instead of comparing every pair: O(n log n).
    fn first_name_repeat(&self, cmds: &[(usize, Command<'_>)]) -> Result<Option<usize>> {
        let mut keys = KVVec::new();
        for e in self.staged.iter() {
            if let Some(n) = &e.name {
                keys.push((e.set.as_slice(), n.as_slice()), GFP_KERNEL)?;
            }
        }
        let in_registry = keys.len();
        let mut line_of = KVVec::new();
        for (i, (_, cmd)) in cmds.iter().enumerate() {
            if let Command::Probe(p) = cmd {
                if let Some(n) = p.name {
                    keys.push((p.set.as_bytes(), n.as_bytes()), GFP_KERNEL)?;
                    line_of.push(i, GFP_KERNEL)?;
                }
            }
        }
        let mut order = KVVec::from_elem(0u32, keys.len(), GFP_KERNEL)?;
        Ok(batchkeys::first_repeat(&keys, &mut order)
            .and_then(|r| r.checked_sub(in_registry))
            .and_then(|r| line_of.get(r).copied()))
    }
}

impl<'a> Simulation<'a> {
    /// The registry as it is, with room for every set `cmds` names.
    fn new(reg: &'a Registry, cmds: &[(usize, Command<'a>)]) -> Result<Self, AllocError> {
        let repeat = reg.first_name_repeat(cmds).map_err(|_| AllocError)?;
        let by_name = reg.sets_by_name().map_err(|_| AllocError)?;
        let mut staged_sets = KVVec::with_capacity(reg.staged.len(), GFP_KERNEL)?;
        for e in reg.staged.iter() {
            staged_sets.push(e.set.as_slice(), GFP_KERNEL)?;
        }
        staged_sets.sort_unstable();
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
            repeat,
            by_name,
            staged_sets,
            ids,
            sims,
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
        let repeat = self.repeat == Some(i);
        let (sim, counts) = self.sim(i, set)?;
        match cmd {
            Command::Probe(spec) => sim.probe(counts, repeat, set, spec),
            Command::Create { .. } => sim.create(counts, set),
            Command::Enable(_) => sim.state_op(counts, set, Op::Enable),
            Command::Disable(_) => sim.state_op(counts, set, Op::Disable),
            Command::Retarget { .. } => sim.state_op(counts, set, Op::Retarget),
            Command::Unregister { .. } => sim.state_op(counts, set, Op::Unregister),
            Command::Unstage(_) => sim.unstage(counts, set),
            Command::Flush => Ok(()),
        }
    }

    /// The simulated set of command `i`, named `set` (made from the
    /// registry the first time the batch names it), and the totals.
    fn sim(&mut self, i: usize, set: &str) -> Result<(&mut Sim, &mut Counts), Failed> {
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
            }
        });
        Ok((sim, &mut self.counts))
    }
}

/// One method per kind of command: what it does to its set and to the
/// totals, or why it would fail.
impl Sim {
    /// A probe line (`repeat`: its name is staged already): staged, unless
    /// its set exists already, its name is taken, or too many lines are
    /// staged.
    fn probe(
        &mut self,
        counts: &mut Counts,
        repeat: bool,
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
        counts.staged = counts.staged.saturating_sub(taken);
        Ok(())
    }
}
