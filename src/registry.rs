// SPDX-License-Identifier: GPL-2.0

//! The registry of probe sets, and the engine that runs control writes.
//!
//! A write is one batch: every line is parsed, then the whole batch is
//! validated against a simulation of the registry (names, states, what is
//! staged), and only then executed, under the registry lock. Probe lines
//! stage probes; `create` registers a set's staged probes in one batch. If
//! the kernel refuses something while executing, the sets this write created
//! are unregistered again and its staging is dropped; the error names the
//! line and the symbol. Teardown runs on the module's workqueue; `flush` and
//! `unregister --sync` wait for it after the lock is released.

use core::fmt::Write;

use kernel::alloc::AllocError;
use kernel::c_str;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

use crate::command::{self, glob_match, Command, CreateOptions, ProbeKind, Target};
use crate::kallsyms;
use crate::kvec;
use crate::lifecycle::{self, Op, SetState};
use crate::set::{BStr, Failed, Set, Text};
use crate::symname::glob_candidate;
use crate::workqueue::OwnedQueue;

/// A probe line kept until its set is created.
struct Staged {
    set: KVec<u8>,
    name: Option<KVec<u8>>,
    kind: ProbeKind,
    target: KVec<u8>,
    offset: u32,
    glob: bool,
    /// For a glob: the most probes to keep.
    limit: Option<u32>,
    /// For a glob: the symbols to leave out.
    skip: Option<KVec<u8>>,
    /// Which `create` of the write being executed took it (0: none yet).
    consumed: u32,
}

/// Sets and staged probes; protected by the engine's mutex.
pub(crate) struct Registry {
    sets: KVec<Arc<Set>>,
    staged: KVec<Staged>,
    last_error: KVec<u8>,
    /// Numbers the `create`s of a write, for [`Staged::consumed`].
    creates: u32,
}

/// The simulated state of one set while a batch is validated.
struct Sim<'a> {
    name: &'a [u8],
    state: Option<SetState>,
    staged: usize,
}

impl Registry {
    fn new() -> Self {
        Self {
            sets: KVec::new(),
            staged: KVec::new(),
            last_error: KVec::new(),
            creates: 0,
        }
    }

    /// The set called `name` that commands act on: the live one if any,
    /// else the most recent retiring one.
    fn find(&self, name: &[u8]) -> Option<&Arc<Set>> {
        let mut found = None;
        for s in self.sets.iter().filter(|s| s.name() == name) {
            if s.state().is_live() {
                return Some(s);
            }
            if s.state() == SetState::Retiring {
                found = Some(s);
            }
        }
        found
    }

    /// Forgets finished sets called `name` (their probe memory already went
    /// to `call_rcu` when their teardown finished; they stay listed, with
    /// their final counts and timings, until a new set takes their name).
    fn forget_freed(&mut self, name: &[u8]) {
        kvec::retain(&mut self.sets, |s| {
            s.state() != SetState::Freed || s.name() != name
        });
    }

    fn sim_index<'a>(&'a self, sims: &mut KVec<Sim<'a>>, name: &'a [u8]) -> Result<usize> {
        if let Some(i) = sims.iter().position(|s| s.name == name) {
            return Ok(i);
        }
        let state = self.find(name).map(|s| s.state());
        let staged = self
            .staged
            .iter()
            .filter(|e| e.set.as_slice() == name)
            .count();
        sims.push(
            Sim {
                name,
                state,
                staged,
            },
            GFP_KERNEL,
        )?;
        Ok(sims.len() - 1)
    }

    /// Checks a whole batch against a simulation of the registry.
    fn validate<'a>(&'a self, cmds: &[(usize, Command<'a>)]) -> Result<(), (usize, Failed)> {
        let oom = |line| (line, Failed::oom());
        let mut sims: KVec<Sim<'a>> = KVec::new();
        for (i, &(line, cmd)) in cmds.iter().enumerate() {
            let Some(set) = cmd.set() else { continue };
            let idx = self
                .sim_index(&mut sims, set.as_bytes())
                .map_err(|_| oom(line))?;
            let Some(sim) = sims.get_mut(idx) else {
                return Err(oom(line));
            };
            let fail = |e: Error, args: core::fmt::Arguments<'_>| Err((line, Failed::new(e, args)));
            match cmd {
                Command::Probe(spec) => {
                    if sim.state.is_some_and(|s| s.is_live()) {
                        return fail(
                            EEXIST,
                            format_args!("set {} exists: probes are added before create", set),
                        );
                    }
                    if let Some(name) = spec.name {
                        if self.name_taken(set, name) || earlier_name(cmds, i, set, name) {
                            return fail(
                                EEXIST,
                                format_args!("probe {}/{} is already staged", set, name),
                            );
                        }
                    }
                    sim.staged += 1;
                }
                Command::Create { .. } => {
                    if sim.state.is_some_and(|s| s.is_live()) {
                        return fail(EEXIST, format_args!("set {} already exists", set));
                    }
                    if sim.staged == 0 {
                        return fail(ENOENT, format_args!("no probe staged for set {}", set));
                    }
                    sim.state = Some(SetState::Registered);
                    sim.staged = 0;
                }
                Command::Enable(_)
                | Command::Disable(_)
                | Command::Unregister { .. }
                | Command::Retarget { .. } => {
                    let op = match cmd {
                        Command::Enable(_) => Op::Enable,
                        Command::Disable(_) => Op::Disable,
                        Command::Retarget { .. } => Op::Retarget,
                        _ => Op::Unregister,
                    };
                    let Some(state) = sim.state else {
                        return fail(ENOENT, format_args!("no set {}", set));
                    };
                    match lifecycle::next(state, op) {
                        Ok(to) => sim.state = Some(to.unwrap_or(state)),
                        Err(r) => {
                            return fail(
                                Error::from_errno(-r.errno()),
                                format_args!("set {}: {}", set, r.as_str()),
                            )
                        }
                    }
                }
                Command::Flush => {}
            }
        }
        Ok(())
    }

    fn name_taken(&self, set: &str, name: &str) -> bool {
        self.staged.iter().any(|e| {
            e.set.as_slice() == set.as_bytes() && e.name.as_deref() == Some(name.as_bytes())
        })
    }

    fn stage(&self, pending: &mut KVec<Staged>, spec: command::ProbeSpec<'_>) -> Result {
        let limit = spec.limit;
        let skip = match spec.skip {
            Some(s) => Some(to_vec(s.as_bytes())?),
            None => None,
        };
        let (target, offset, glob) = match spec.target {
            Target::Symbol { name, offset } => (name, offset, false),
            Target::Glob { pattern, offset } => (pattern, offset, true),
        };
        let name = match spec.name {
            Some(n) => Some(to_vec(n.as_bytes())?),
            None => None,
        };
        Ok(pending.push(
            Staged {
                set: to_vec(spec.set.as_bytes())?,
                name,
                kind: spec.kind,
                target: to_vec(target.as_bytes())?,
                offset,
                glob,
                limit,
                skip,
                consumed: 0,
            },
            GFP_KERNEL,
        )?)
    }

    /// Registers everything staged for `name` (older staging first):
    /// explicitly named probes first, then every glob in one walk of the
    /// kernel's text symbols.
    fn create(
        &mut self,
        pending: &mut KVec<Staged>,
        name: &str,
        options: CreateOptions,
    ) -> Result<Arc<Set>, Failed> {
        self.creates = self.creates.wrapping_add(1).max(1);
        let gen = self.creates;
        let name_b = name.as_bytes();
        self.forget_freed(name_b);
        for e in Iterator::chain(self.staged.iter_mut(), pending.iter_mut()) {
            if e.consumed == 0 && e.set.as_slice() == name_b {
                e.consumed = gen;
            }
        }
        let staged = &self.staged;
        let mine =
            || Iterator::chain(staged.iter(), pending.iter()).filter(move |e| e.consumed == gen);
        let set = Set::register(name_b, options, |b| {
            // Kprobes and kretprobes named explicitly: the kernel resolves them.
            for e in mine().filter(|e| !e.glob && e.kind != ProbeKind::Direct) {
                b.add(e.kind, &e.target, e.name.as_deref(), e.offset, true, None)?;
            }
            // Globs and explicit direct calls (which need addresses): one
            // walk of the kernel's text symbols serves them all.
            let mut walked = KVec::new();
            for e in mine().filter(|e| e.glob || e.kind == ProbeKind::Direct) {
                walked
                    .push((e, 0u32), GFP_KERNEL)
                    .map_err(|_| Failed::oom())?;
            }
            if walked.is_empty() {
                return Ok(());
            }
            let mut failed = None;
            let walk = kallsyms::for_each_text_symbol(|sym| {
                let text = Some((sym.addr, sym.size));
                let mut open = false;
                for (e, count) in walked.iter_mut() {
                    if !e.glob {
                        // An explicit direct call: its first match only.
                        if *count > 0 {
                            continue;
                        }
                        open = true;
                        if e.target.as_slice() == sym.name.as_bytes() {
                            let name = e.name.as_deref();
                            if let Err(f) = b.add(e.kind, &e.target, name, 0, true, text) {
                                failed = Some(f);
                                return Ok(false);
                            }
                            *count = 1;
                        }
                        continue;
                    }
                    if e.limit.is_some_and(|l| *count >= l) {
                        continue;
                    }
                    open = true;
                    let pattern = core::str::from_utf8(&e.target).unwrap_or("");
                    let skipped = e.skip.as_deref().is_some_and(|s| {
                        glob_match(core::str::from_utf8(s).unwrap_or(""), sym.name)
                    });
                    if !skipped
                        && glob_candidate(sym.name, pattern)
                        && glob_match(pattern, sym.name)
                    {
                        let added = b.add(e.kind, sym.name.as_bytes(), None, e.offset, false, text);
                        if added.map_err(|f| f.error)? {
                            *count += 1;
                        }
                    }
                }
                Ok(open)
            });
            if let Some(f) = failed {
                return Err(f);
            }
            walk.map_err(|e| Failed::new(e, format_args!("walking kernel symbols failed")))?;
            // An explicit direct call on a name the walk never met.
            for (e, _) in walked.iter().filter(|(e, c)| !e.glob && *c == 0) {
                b.add(e.kind, &e.target, e.name.as_deref(), 0, true, None)?;
            }
            Ok(())
        })?;
        if let Err(e) = self.sets.push(set.clone(), GFP_KERNEL) {
            set.discard();
            return Err(e.into());
        }
        Ok(set)
    }

    fn set_last_error(&mut self, line: usize, f: &Failed) {
        let mut t = Text(core::mem::take(&mut self.last_error));
        kvec::clear(&mut t.0);
        let _ = writeln!(
            t,
            "line {}: {} (errno {})",
            line,
            BStr(&f.what),
            f.error.to_errno()
        );
        self.last_error = t.0;
    }
}

/// Whether an earlier line of this batch stages the same probe name.
fn earlier_name(cmds: &[(usize, Command<'_>)], upto: usize, set: &str, name: &str) -> bool {
    cmds.get(..upto)
        .unwrap_or(&[])
        .iter()
        .any(|(_, c)| matches!(c, Command::Probe(p) if p.set == set && p.name == Some(name)))
}

fn to_vec(s: &[u8]) -> Result<KVec<u8>> {
    let mut v = KVec::new();
    v.extend_from_slice(s, GFP_KERNEL)?;
    Ok(v)
}

/// What a read-only file shows.
#[derive(Clone, Copy)]
pub(crate) enum Show {
    Sets,
    Stats,
    LastError,
}

/// The registry, its lock, and the workqueue teardown runs on.
#[pin_data]
pub(crate) struct Engine {
    #[pin]
    registry: Mutex<Registry>,
    queue: OwnedQueue,
}

impl Engine {
    /// A new, empty engine with its own ordered workqueue.
    pub(crate) fn new() -> Result<impl PinInit<Self, Error>> {
        let queue = OwnedQueue::new_ordered(c_str!("batchprobe"))?;
        Ok(try_pin_init!(Engine {
            registry <- new_mutex!(Registry::new(), "batchprobe::registry"),
            queue,
        }))
    }

    /// Runs one write of the control file; returns the bytes consumed.
    pub(crate) fn write(&self, buf: &[u8]) -> Result<usize> {
        let mut cmds = KVec::new();
        for (line, parsed) in command::parse_batch(buf) {
            match parsed {
                Ok(cmd) => cmds.push((line, cmd), GFP_KERNEL)?,
                Err(e) => {
                    let error = Error::from_errno(-e.errno());
                    let f = Failed::new(error, format_args!("{}", e.as_str()));
                    self.registry.lock().set_last_error(line, &f);
                    pr_info!("control: line {}: {}\n", line, e.as_str());
                    return Err(error);
                }
            }
        }
        let mut wait = false;
        {
            let mut reg = self.registry.lock();
            if let Err((line, f)) = reg.validate(&cmds) {
                reg.set_last_error(line, &f);
                pr_info!("control: line {}: {}\n", line, BStr(&f.what));
                return Err(f.error);
            }
            let mut pending = KVec::new();
            let mut created: KVec<Arc<Set>> = KVec::new();
            for &(line, cmd) in cmds.iter() {
                let res = self.execute(&mut reg, &mut pending, &mut created, &mut wait, cmd);
                if let Err(f) = res {
                    // Undo this write's registrations and staging.
                    for set in created.iter() {
                        set.discard();
                    }
                    kvec::retain(&mut reg.sets, |s| {
                        !created.iter().any(|c| Arc::ptr_eq(c, s))
                    });
                    for e in reg.staged.iter_mut() {
                        e.consumed = 0;
                    }
                    reg.set_last_error(line, &f);
                    pr_info!("control: line {}: {}\n", line, BStr(&f.what));
                    return Err(f.error);
                }
            }
            kvec::retain(&mut reg.staged, |e| e.consumed == 0);
            for e in pending.into_iter().filter(|e| e.consumed == 0) {
                reg.staged.push(e, GFP_KERNEL)?;
            }
        }
        if wait {
            self.queue.flush();
        }
        Ok(buf.len())
    }

    fn execute(
        &self,
        reg: &mut Registry,
        pending: &mut KVec<Staged>,
        created: &mut KVec<Arc<Set>>,
        wait: &mut bool,
        cmd: Command<'_>,
    ) -> Result<(), Failed> {
        let oom = |_: AllocError| Failed::oom();
        let find = |reg: &Registry, name: &str| {
            reg.find(name.as_bytes())
                .cloned()
                .ok_or_else(|| Failed::new(ENOENT, format_args!("no set {}", name)))
        };
        match cmd {
            Command::Probe(spec) => reg.stage(pending, spec).map_err(|_| Failed::oom()),
            Command::Create { set: name, options } => {
                let set = reg.create(pending, name, options)?;
                created.push(set, GFP_KERNEL).map_err(oom)
            }
            Command::Enable(name) => find(reg, name)?.enable(),
            Command::Disable(name) => {
                let set = find(reg, name)?;
                if set.disable()? {
                    // Already queued (a quick disable, enable, disable)
                    // is fine: that disarm will see the final state.
                    let _ = self.queue.enqueue::<Arc<Set>, 2>(set);
                }
                Ok(())
            }
            Command::Unregister { set, sync } => {
                let set = find(reg, set)?;
                set.begin_unregister()?;
                // Cannot be queued already: only this transition queues it.
                let _ = self.queue.enqueue::<Arc<Set>, 0>(set.clone());
                set.unregister_returned();
                *wait |= sync;
                Ok(())
            }
            Command::Retarget { set, mode } => find(reg, set)?.retarget(mode),
            Command::Flush => {
                *wait = true;
                Ok(())
            }
        }
    }

    /// Fills a read-only file.
    pub(crate) fn show(&self, what: Show, w: &mut impl Write) -> core::fmt::Result {
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
                    "# direct_missed={} grace_periods",
                    crate::direct::missed()
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

    /// Retires every set, waits for all teardown, then for every RCU
    /// callback queued by it (which runs module code). Called on unload.
    pub(crate) fn shutdown(&self) {
        let sets = {
            let mut reg = self.registry.lock();
            kvec::clear(&mut reg.staged);
            for set in reg.sets.iter() {
                if set.state().is_live() && set.begin_unregister().is_ok() {
                    let _ = self.queue.enqueue::<Arc<Set>, 0>(set.clone());
                    set.unregister_returned();
                }
            }
            core::mem::take(&mut reg.sets)
        };
        self.queue.flush();
        drop(sets);
        crate::direct::shutdown();
        crate::rcu::barrier();
    }
}
