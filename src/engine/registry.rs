// SPDX-License-Identifier: GPL-2.0

//! The registry of probe sets: the sets, the staged probe lines, and
//! `last_error`, behind the engine's mutex ([`Engine`]).
//!
//! Probe lines stage probes; `create` registers a set's staged probes in
//! one batch. The engine ([`engine`]) runs writes against it; a batch is
//! checked against a simulation of it ([`validate`]) before anything runs;
//! sets are made by one pipeline for control lines and API targets
//! ([`create`]), with what the registry read from the kernel once
//! ([`caches`]).

use core::fmt::Write;

use kernel::alloc::AllocError;
use kernel::prelude::*;
use kernel::sync::Arc;

use crate::backend::Target as ProbeTarget;
use crate::btf::ModuleBtf;
use crate::command::{self, ProbeKind, Target};
use crate::error::{BStr, Failed, LineRef, Text};
use crate::errtext::{self, Origin, ProbeLine};
use crate::events::name::{EventName, ProbeEventName};
use crate::events::program::{self, CompileError, FetchProgram, FunctionBtf};
use crate::events::symbols::SymbolAddrs;
use crate::kallsyms;
use crate::kvec;
use crate::lifecycle::SetState;
use crate::locked::Locked;
use crate::probecap;
use crate::set::Set;
use crate::symname::split_module;

mod caches;
mod create;
mod line_event;
pub(crate) mod validate;

use line_event::{line_event, made_name, spec_event};

use caches::Caches;
pub(crate) use caches::TextSlot;

/// A probe line kept until its set is created.
pub(super) struct Staged {
    set: KVec<u8>,
    name: Option<KVec<u8>>,
    kind: ProbeKind,
    /// `p!:`/`r!:`: int3 probes only.
    int3: bool,
    /// The symbol or glob; for a line on an address, the symbol that
    /// contains it (`offset` into it), for the `stats` file.
    target: KVec<u8>,
    offset: u32,
    glob: bool,
    /// A line on an address (`kprobe_events`' `MEMADDR`; 0: none), probed
    /// there by an int3 kprobe, never by name.
    addr: usize,
    /// The event name an unnamed line on an address gets (`p_0x%p`).
    made: Option<EventName>,
    /// For a glob: the most probes to keep.
    limit: Option<u32>,
    /// For a glob: the symbols to leave out.
    skip: Option<KVec<u8>>,
    /// Which `create` or `-:` of the write being executed took it (0: none
    /// yet).
    consumed: u32,
    /// The line's number in its write, for `last_error`.
    line: usize,
    /// Staged by an earlier write than the one being executed.
    earlier: bool,
    /// The line as written (trimmed), for `last_error`.
    text: KVec<u8>,
    /// Its fetch arguments, compiled; int3 probes serve such a line when
    /// they need what only those give (`int3` is set then: see
    /// [`FetchProgram::needs_int3`]). A `d:` line's for entry records;
    /// `Err`: they read what only a return has (an exit set's), and why
    /// an entry refuses them.
    args: StagedArgs,
    /// A `d:` line's arguments for an exit set's return records.
    exit_args: Option<Arc<FetchProgram>>,
}

/// A staged line's compiled arguments for its probes, or, for a `d:`
/// line an entry refuses, why (see [`Staged::args`]).
type StagedArgs = Result<Option<Arc<FetchProgram>>, &'static str>;

impl Staged {
    /// The line as a backend target: `text` is the symbol's address and
    /// size if a walk found it.
    fn target<'a>(
        &'a self,
        symbol: &'a [u8],
        explicit: bool,
        text: Option<(usize, usize)>,
        exit: bool,
    ) -> ProbeTarget<'a> {
        ProbeTarget {
            kind: self.kind,
            int3: self.int3,
            symbol,
            name: match (explicit, &self.made) {
                (false, _) => None,
                (true, Some(m)) => Some(m.as_str().as_bytes()),
                (true, None) => self.name.as_deref(),
            },
            offset: self.offset,
            explicit,
            text,
            site: None,
            index: 0,
            addr: self.addr,
            line: Some(self.line_ref()),
            args: self.args_for(exit),
            exit,
            shadowed_by: None,
        }
    }

    /// Its compiled arguments, for a set made with `--exit` (`exit`) or
    /// not. (`create` has refused a `d:` line whose arguments an entry
    /// refuses in a set without `--exit`.)
    fn args_for(&self, exit: bool) -> Option<&Arc<FetchProgram>> {
        if exit && self.kind == ProbeKind::Direct {
            return self.exit_args.as_ref();
        }
        self.args.as_ref().ok().and_then(Option::as_ref)
    }

    /// Whether the line has fetch arguments.
    fn has_args(&self) -> bool {
        self.exit_args.is_some() || self.args.as_ref().map_or(true, Option::is_some)
    }

    /// The line, as a refusal names it.
    fn line_ref(&self) -> LineRef<'_> {
        LineRef {
            number: self.line,
            earlier: self.earlier,
            text: &self.text,
        }
    }

    /// Its event, as `-:SET/EVENT` names it ([`line_event`]).
    fn event(&self) -> Option<ProbeEventName<'_>> {
        if let (None, Some(m)) = (&self.name, self.made) {
            return Some(ProbeEventName::Auto(m));
        }
        line_event(
            self.name.as_deref(),
            self.kind,
            self.glob,
            &self.target,
            self.offset,
        )
    }

    /// A `MOD:GLOB` line's module and pattern (`None`: any other line).
    fn module_glob(&self) -> Option<(&[u8], &[u8])> {
        if !self.glob {
            return None;
        }
        split_module(&self.target)
    }

    /// An explicit `d:` line on a module's function: its module and the
    /// function's name (`None`: any other line). Found by a walk of the
    /// module's text, not of the kernel's.
    fn module_direct(&self) -> Option<(&[u8], &[u8])> {
        if self.glob || self.kind != ProbeKind::Direct {
            return None;
        }
        split_module(&self.target)
    }

    /// A glob over the core kernel's text symbols (not `MOD:GLOB`).
    fn core_glob(&self) -> bool {
        self.glob && self.module_glob().is_none()
    }

    /// An explicit line whose target needs its address from the walk of
    /// the kernel's text symbols: direct calls (on core-kernel functions),
    /// what an fprobe may serve, and a `--noopt` set's kprobes into a
    /// core-kernel function, whose post handler depends on whether they
    /// land past its end ([`crate::probe::Post`]). Other explicit lines are
    /// resolved by the kernel, or by their module's walk ([`Staged::module_direct`]).
    fn walked_explicitly(&self, noopt: bool) -> bool {
        // (Not a line on an address, probed there, nor a module's function.)
        let noopt_kprobe = noopt && self.addr == 0 && split_module(&self.target).is_none();
        !self.glob
            && match self.kind {
                ProbeKind::Direct => self.module_direct().is_none(),
                ProbeKind::Kprobe if self.offset == 0 => !self.int3,
                ProbeKind::Kprobe => noopt_kprobe,
                ProbeKind::Kretprobe { .. } => !self.int3,
            }
    }
}

/// Sets and staged probes; protected by the engine's mutex.
pub(crate) struct Registry {
    pub(super) sets: KVVec<Arc<Set>>,
    /// At most [`MAX_STAGED`] entries.
    pub(super) staged: KVVec<Staged>,
    pub(super) last_error: KVec<u8>,
    /// Numbers the `create`s and `-:`s of a write, for [`Staged::consumed`].
    creates: u32,
    /// The kernel's text symbols and prototypes, kept from first use until
    /// the registry goes (last: after every set).
    caches: Caches,
}

/// The most probe lines staged at once, all sets together (`ENOSPC`
/// beyond): bounds the registry's memory between writes. Each line may be
/// a glob that becomes thousands of probes at `create`.
pub(crate) const MAX_STAGED: usize = 1 << 16;

/// The most live (registered, enabled or disabled) sets (`ENOSPC` beyond).
pub(crate) const MAX_SETS: usize = 4096;

/// The most probes one set holds, 4,194,304 (the default and the most of
/// the `max_set_probes` module parameter, which may lower it): an explicit
/// line (or API target) past it fails its `create` with `ENOSPC`, glob
/// members past it are skipped and counted ([`crate::probecap`]).
///
/// [`MAX_STAGED`] bounds lines, not what they become: each glob line
/// offers every matching text symbol, so 65,536 lines of `p:big/ *` asked
/// for some 4·10⁹ probes. The cap is far above any real set: every
/// function of a distribution's kernel is about 10⁵ targets, entry and
/// return probes on all of them twice that, and the cap is 20 times more.
/// And it bounds what one set costs: an fprobe-served probe takes about
/// 100 bytes (its slot and its symbol's copy), an int3 kprobe about 250,
/// so 0.4 to 1 GiB at the cap, and its `stats` lines about 250 MB.
pub(crate) const MAX_SET_PROBES: usize = 1 << 22;

// The C side's `max_set_probes` default (and most) is this one.
const _: () = assert!(crate::bindings::BP_MAX_SET_PROBES as usize == MAX_SET_PROBES);

/// The most probes all sets that are not freed yet hold together (live and
/// retiring sets: a retiring set's probes are in memory until its teardown
/// ran), 8,388,608: two sets at [`MAX_SET_PROBES`]. A `create` that would
/// take the total past it is refused as one past the set's cap (`ENOSPC`
/// for an explicit line, glob members skipped and counted).
///
/// Why this and not a cap per write: a write may create many sets (up to
/// [`MAX_SETS`] live), so the per-set cap alone bounds it only by
/// `MAX_SETS` × `MAX_SET_PROBES` (10¹⁰ probes); in practice by its
/// [`MAX_STAGED`] lines times the symbols each matches, the same 4·10⁹
/// spread over a thousand sets of 64 glob lines. A cap per write would
/// stop that write, but not the same sets made by a thousand writes one
/// after the other, which cost the same memory and make the same `stats`
/// listing. What bounds both is the total, whoever made it, as
/// [`MAX_SETS`] bounds sets. The time a write takes is bounded otherwise:
/// its loops reschedule, and give up with `EINTR` when the writer is
/// killed ([`crate::sched`]).
pub(crate) const MAX_LIVE_PROBES: usize = 1 << 23;

/// How many finished sets stay listed, with their final counts and timings,
/// until the oldest is forgotten (or a new set takes its name).
pub(crate) const FREED_KEPT: usize = 64;

impl Registry {
    /// Proof that the caller holds the lock (it has the registry).
    pub(crate) fn locked(&self) -> Locked<'_> {
        // SAFETY: A `&Registry` is reachable only through the guard of the
        // engine's mutex, which stays held while `self` is borrowed.
        unsafe { Locked::assume(self) }
    }

    /// The caches, and proof of the lock for as long as they are borrowed
    /// (for a command that may fill them while a set acts).
    pub(super) fn caches(&mut self) -> (&mut Caches, Locked<'_>) {
        // SAFETY: Every field of the registry is reachable only through
        // the guard of the engine's mutex, as the registry is.
        let locked = unsafe { Locked::assume(&self.sets) };
        (&mut self.caches, locked)
    }

    /// An empty registry, whose caches take the text symbols from `text`.
    pub(super) fn new(text: Arc<TextSlot>) -> Self {
        Self {
            sets: KVVec::new(),
            staged: KVVec::new(),
            last_error: KVec::new(),
            creates: 0,
            caches: Caches::new(text),
        }
    }

    /// The set called `name` that commands act on: the live one if any,
    /// else the most recent retiring one.
    pub(super) fn find(&self, name: &[u8]) -> Option<&Arc<Set>> {
        acted_on(self.sets.iter().filter(|s| s.name() == name))
    }

    /// Whether a set called `name` is retiring: its teardown, queued or
    /// running, has yet to remove its probes' events from tracefs.
    pub(super) fn retiring(&self, name: &[u8]) -> bool {
        self.sets
            .iter()
            .any(|s| s.name() == name && s.state() == SetState::Retiring)
    }

    /// Forgets finished sets called `name` (their probe memory already went
    /// to `call_rcu` when their teardown finished; they stay listed, with
    /// their final counts and timings, until a new set takes their name).
    fn forget_freed(&mut self, name: &[u8]) {
        kvec::retain(&mut self.sets, |s| {
            s.state() != SetState::Freed || s.name() != name
        });
    }

    /// Once a whole write went through: each set it created (`created`, in
    /// the order `sets` lists them) takes its name from the finished sets of
    /// that name listed before it. Not at its `create`: a later line that
    /// fails must find them still listed. A set this write created that
    /// already finished (`create a`, `unregister a`) stays listed, unless a
    /// later `create a` of the write took its name.
    pub(super) fn forget_freed_taken(&mut self, created: &[Arc<Set>]) {
        if created.is_empty() {
            return;
        }
        kvec::retain(&mut self.sets, |s| {
            if s.state() != SetState::Freed {
                return true;
            }
            let later = created
                .iter()
                .position(|c| Arc::ptr_eq(c, s))
                .map_or(0, |k| k + 1);
            !created
                .get(later..)
                .unwrap_or(&[])
                .iter()
                .any(|c| c.name() == s.name())
        });
    }

    /// Forgets the oldest finished sets beyond [`FREED_KEPT`], so that a
    /// tool naming its sets `s1`, `s2`, ... does not grow memory and the
    /// `sets` listing without bound.
    pub(super) fn expire_freed(&mut self) {
        let freed = self
            .sets
            .iter()
            .filter(|s| s.state() == SetState::Freed)
            .count();
        let mut extra = freed.saturating_sub(FREED_KEPT);
        kvec::retain(&mut self.sets, |s| {
            if extra > 0 && s.state() == SetState::Freed {
                extra -= 1;
                return false;
            }
            true
        });
    }

    /// The probes every set not freed yet holds, summed: what counts
    /// against [`MAX_LIVE_PROBES`].
    fn live_probes(&self) -> usize {
        self.sets
            .iter()
            .filter(|s| s.state() != SetState::Freed)
            .fold(0usize, |n, s| n.saturating_add(s.probe_count()))
    }

    /// The room of a set made now: the `max_set_probes` cap, and what
    /// [`MAX_LIVE_PROBES`] leaves beside the other sets.
    fn probe_room(&self) -> probecap::Room {
        // SAFETY: Only reads a module parameter.
        let set_cap = unsafe { crate::bindings::bp_max_set_probes() } as usize;
        probecap::room(
            set_cap.min(MAX_SET_PROBES),
            MAX_LIVE_PROBES,
            self.live_probes(),
        )
    }

    /// Indices of `sets`, sorted by name (then age), for [`Registry::find_in`].
    fn sets_by_name(&self) -> Result<KVVec<u32>> {
        let mut order = KVVec::from_elem(0u32, self.sets.len(), GFP_KERNEL)?;
        for (i, o) in order.iter_mut().enumerate() {
            *o = i as u32;
        }
        let name = |i: u32| self.sets.get(i as usize).map(|s| s.name());
        crate::sort::sort_by(&mut order, |&a, &b| name(a).cmp(&name(b)).then(a.cmp(&b)));
        Ok(order)
    }

    /// [`Registry::find`] through `by_name` (from [`Registry::sets_by_name`]):
    /// O(log n).
    fn find_in(&self, by_name: &[u32], name: &[u8]) -> Option<&Arc<Set>> {
        let set = |i: &u32| self.sets.get(*i as usize);
        let from = by_name.partition_point(|i| match set(i) {
            Some(s) => s.name() < name,
            None => true,
        });
        acted_on(
            by_name
                .get(from..)?
                .iter()
                .map_while(|i| set(i).filter(|s| s.name() == name)),
        )
    }

    /// Takes every line staged for `name` (in the registry, or by an
    /// earlier line of this write) that no `create` or `-:` of this write
    /// took yet, marking it with a new number: a write that goes through
    /// then drops them all; one that fails gives them back.
    pub(super) fn take_staged(&mut self, pending: &mut KVVec<Staged>, name: &[u8]) -> u32 {
        self.take_lines(pending, name, None)
    }

    /// `-:SET` (`event` `None`) and `-:SET/EVENT`: takes the lines staged
    /// for `set` (whose event is `event`), as [`Registry::take_staged`].
    pub(super) fn unstage(&mut self, pending: &mut KVVec<Staged>, set: &[u8], event: Option<&str>) {
        self.take_lines(pending, set, event);
    }

    fn take_lines(&mut self, pending: &mut KVVec<Staged>, set: &[u8], event: Option<&str>) -> u32 {
        self.creates = self.creates.wrapping_add(1).max(1);
        let gen = self.creates;
        let event = event.map(|e| ProbeEventName::Given(e.as_bytes()));
        for e in Iterator::chain(self.staged.iter_mut(), pending.iter_mut()) {
            if e.consumed == 0 && e.set.as_slice() == set && (event.is_none() || e.event() == event)
            {
                e.consumed = gen;
            }
        }
        gen
    }

    /// A write went through: drops the lines its `create`s and `-:`s took,
    /// and keeps the lines it staged (`pending`, room reserved in `staged`)
    /// for a later write.
    pub(super) fn keep_staged(&mut self, pending: KVVec<Staged>) -> Result {
        kvec::retain(&mut self.staged, |e| e.consumed == 0);
        for mut e in pending.into_iter().filter(|e| e.consumed == 0) {
            e.earlier = true;
            self.staged.push(e, GFP_KERNEL)?;
        }
        Ok(())
    }

    /// A write failed: gives back every line its `create`s and `-:`s took.
    pub(super) fn untake_staged(&mut self) {
        for e in self.staged.iter_mut() {
            e.consumed = 0;
        }
    }

    /// The BTF `spec`'s fetch arguments are compiled with: the kernel's,
    /// for a line with arguments on one function, where the kernel's probe
    /// events read BTF (read on first use; `None` where it cannot be read,
    /// the line then compiled as on a kernel without BTF). A `d:` line on
    /// `MOD:SYM`: its module's, as an fprobe event on the function finds
    /// it (`bpf_find_btf_id()` looks in the modules' BTF too); none when
    /// the module is not loaded or has none. (A `p:` or `r:` line on
    /// `MOD:SYM` is looked up by that whole name, as `kprobe_events`
    /// looks it up, and finds none.)
    pub(super) fn function_btf<'f>(
        &mut self,
        spec: &command::ProbeSpec<'f>,
    ) -> Result<Option<FunctionBtf<'f>>, AllocError> {
        let Target::Symbol { name, .. } = spec.target else {
            return Ok(None);
        };
        if spec.args.is_empty() || !program::reads_btf() {
            return Ok(None);
        }
        // A kernel whose BTF cannot be read (none, or no memory for it)
        // compiles the line without, as `query_btf_context()` failing
        // leaves the kernel's parser; so does a module's.
        let Ok(vmlinux) = self.caches.btf() else {
            return Ok(None);
        };
        let module = match split_module(name.as_bytes()) {
            Some((m, f)) if spec.kind == ProbeKind::Direct => {
                match ModuleBtf::load(vmlinux.clone(), m) {
                    Ok(btf) => Some((Arc::new(btf, GFP_KERNEL)?, f)),
                    Err(_) => return Ok(None),
                }
            }
            _ => None,
        };
        Ok(Some(match module {
            Some((btf, function)) => FunctionBtf {
                vmlinux,
                module: Some(btf),
                function,
            },
            None => FunctionBtf {
                vmlinux,
                module: None,
                function: name.as_bytes(),
            },
        }))
    }

    /// A line's fetch arguments, compiled: for its probes (a `d:` line's:
    /// for entry records, `Err` with the reason if an entry refuses them),
    /// and a `d:` line's for an exit set's return records.
    fn compile_args(
        &mut self,
        spec: &command::ProbeSpec<'_>,
        symbols: &SymbolAddrs,
    ) -> Result<(StagedArgs, Option<Arc<FetchProgram>>)> {
        let mut lookup = |n: &str| symbols.lookup(n);
        let mut compile = |exit| {
            let btf = self.function_btf(spec)?;
            FetchProgram::compile(spec, btf, &mut lookup, exit)
        };
        let args = match compile(false) {
            Ok(a) => Ok(a),
            Err(CompileError::NoMemory) => return Err(ENOMEM),
            // A `d:` line whose arguments only a return has (`$retval`):
            // taken by an exit set only (`Staged::args`).
            Err(CompileError::Refused(r)) if spec.kind == ProbeKind::Direct => Err(r.reason),
            Err(CompileError::Refused(_)) => return Err(EINVAL),
        };
        let exit_args = match spec.kind {
            ProbeKind::Direct => match compile(true) {
                Ok(a) => a,
                Err(CompileError::NoMemory) => return Err(ENOMEM),
                Err(CompileError::Refused(_)) => return Err(EINVAL),
            },
            _ => None,
        };
        Ok((args, exit_args))
    }

    pub(super) fn stage(
        &mut self,
        pending: &mut KVVec<Staged>,
        spec: command::ProbeSpec<'_>,
        (line, text): (usize, &[u8]),
        symbols: &SymbolAddrs,
    ) -> Result {
        let limit = spec.limit;
        let skip = match spec.skip {
            Some(s) => Some(to_vec(s.as_bytes())?),
            None => None,
        };
        let (target, offset, glob, addr) = match spec.target {
            Target::Symbol { name, offset } => (to_vec(name.as_bytes())?, offset, false, 0),
            Target::Glob { pattern, offset } => (to_vec(pattern.as_bytes())?, offset, true, 0),
            Target::Address { addr } => {
                let (symbol, offset) = address_symbol(addr)?;
                (symbol, offset, false, addr as usize)
            }
        };
        let made = match (spec.name, spec.target) {
            (None, Target::Address { addr }) => made_name(spec.kind, addr),
            _ => None,
        };
        let name = match spec.name {
            Some(n) => Some(to_vec(n.as_bytes())?),
            None => None,
        };
        // Checked when the write was parsed (`Engine::write`): only
        // memory can fail here.
        let (args, exit_args) = self.compile_args(&spec, symbols)?;
        Ok(pending.push(
            Staged {
                set: to_vec(spec.set.as_bytes())?,
                name,
                kind: spec.kind,
                int3: spec.int3
                    || args
                        .as_ref()
                        .is_ok_and(|a| a.as_ref().is_some_and(|a| a.needs_int3())),
                target,
                offset,
                glob,
                addr,
                made,
                limit,
                skip,
                consumed: 0,
                line,
                earlier: false,
                text: to_vec(trimmed(text))?,
                args,
                exit_args,
            },
            GFP_KERNEL,
        )?)
    }

    /// A probe line's address (`MEMADDR`) must lie in a symbol, the core
    /// kernel's or a module's: the symbol and the offset into it are what
    /// `stats` shows of the probe. Else the write fails at the line
    /// (`line`, `text`), the caret at the address (its second word).
    pub(super) fn check_address(&mut self, addr: u64, line: usize, text: &[u8]) -> Result {
        if kallsyms::offset_in_symbol(addr as usize)?.is_some() {
            return Ok(());
        }
        let f = Failed::new(
            EINVAL,
            format_args!("no symbol contains the address: not kernel or module text"),
        );
        let trimmed = core::str::from_utf8(text).map(str::trim).unwrap_or("");
        let column = trimmed
            .split_ascii_whitespace()
            .nth(1)
            .and_then(|w| (w.as_ptr() as usize).checked_sub(trimmed.as_ptr() as usize));
        self.set_last_error(Some((line, text)), column, &f);
        Err(EINVAL)
    }

    /// Records `f` as `last_error` and in the log. `at`: the control
    /// line being executed and its text (`None`: an API call); `column`:
    /// where in that line a parse error is.
    pub(super) fn set_last_error(
        &mut self,
        at: Option<(usize, &[u8])>,
        column: Option<usize>,
        f: &Failed,
    ) {
        let mut t = Text(core::mem::take(&mut self.last_error));
        kvec::clear(&mut t.0);
        let origin = match at {
            None => Origin::Api,
            Some((number, text)) => Origin::Line {
                number,
                text: shown_text(text),
                probe: f.line.as_ref().and_then(|l| {
                    Some(ProbeLine {
                        number: l.number,
                        earlier: l.earlier,
                        text: shown_text(&l.text)?,
                    })
                }),
                column,
            },
        };
        let _ = errtext::write_report(&mut t, &origin, f.message(), f.error.to_errno());
        self.last_error = t.0;
        let first = self.last_error.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let prefix = if at.is_some() { "control: " } else { "" };
        pr_info!("{}{}\n", prefix, BStr(first).as_str());
    }
}

/// `text` without its leading and trailing ASCII blanks.
fn trimmed(text: &[u8]) -> &[u8] {
    let start = text
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    text.get(start..end).unwrap_or(&[])
}

/// A line's text as `last_error` may show it: UTF-8 without control
/// characters (but tabs), trimmed.
fn shown_text(text: &[u8]) -> Option<&str> {
    core::str::from_utf8(text)
        .ok()
        .filter(|t| !t.chars().any(|c| c.is_control() && c != '\t'))
        .map(str::trim)
}

/// Of the sets of one name, oldest first, the one commands act on: the live
/// one if any, else the most recent retiring one.
fn acted_on<'a>(sets: impl Iterator<Item = &'a Arc<Set>>) -> Option<&'a Arc<Set>> {
    let mut found = None;
    for s in sets {
        if s.state().is_live() {
            return Some(s);
        }
        if s.state() == SetState::Retiring {
            found = Some(s);
        }
    }
    found
}

fn to_vec(s: &[u8]) -> Result<KVec<u8>> {
    let mut v = KVec::new();
    v.extend_from_slice(s, GFP_KERNEL)?;
    Ok(v)
}

/// The symbol that contains `addr` and the offset into it, as the `stats`
/// file shows a probe on an address: the write's parser found one (a
/// module unloaded since leaves the address itself, which the kernel then
/// refuses to probe).
fn address_symbol(addr: u64) -> Result<(KVec<u8>, u32)> {
    if let Some(s) = kallsyms::symbol_any_at(addr as usize)? {
        return Ok((s.name, s.offset));
    }
    let mut t = Text(KVec::new());
    write!(t, "{addr:#x}").map_err(|_| ENOMEM)?;
    Ok((t.0, 0))
}
