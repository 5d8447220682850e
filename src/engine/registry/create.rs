// SPDX-License-Identifier: GPL-2.0

//! Making a set: one pipeline for a control write's `create` (the lines
//! staged for the set) and an API client's targets.
//!
//! Targets the kernel resolves by name go straight to the set builder.
//! Those that need their address (direct calls, what an fprobe may serve,
//! and every glob) are found in the registry's [`TextTable`] of the
//! kernel's text symbols (walked once per module load): each explicit name
//! takes the first symbol of its name, looked up in the table's name
//! index, and they are handed on in address order, as one walk of the
//! table would meet them; only globs walk it. A name no symbol has goes to
//! the builder without an address, to be resolved or refused by the
//! kernel, naming it. The set is kept in the registry only once it is
//! made; if it cannot be, it is discarded again.

use kernel::prelude::*;
use kernel::sync::Arc;

use super::{Registry, Staged, MAX_SETS};
use crate::backend::{OwnedTarget, Target as ProbeTarget};
use crate::command::{CreateOptions, Events, ProbeKind};
use crate::errno;
use crate::error::{BStr, BlamedLine, Failed};
use crate::gate::Client;
use crate::kallsyms::{ModuleText, TextSymbol, TextTable};
use crate::probecap::Budget;
use crate::sched::Pacer;
use crate::set::{Builder, Owner, Set};
use crate::sort;
use crate::symname::{glob_candidate, glob_match};

/// Where no symbol of an item's name is.
const NOWHERE: usize = usize::MAX;

/// Explicit names the kernel's text symbols resolve: each takes the first
/// symbol of its name, in the order a walk in address order meets them
/// (the given order among items of one name), the names no symbol has
/// last, by name.
struct ByName<'a, T> {
    /// Each item, the index of its symbol ([`NOWHERE`] until
    /// [`ByName::place`] found it, or if it found none), and its place in
    /// the given order (what keeps the sorts stable).
    items: KVVec<(&'a T, usize, usize)>,
    key: fn(&T) -> &[u8],
    /// The first item a walk has not handed on yet.
    next: usize,
}

impl<'a, T> ByName<'a, T> {
    fn new(items: impl Iterator<Item = &'a T>, key: fn(&T) -> &[u8]) -> Result<Self, Failed> {
        let mut v = KVVec::new();
        for (seq, t) in items.enumerate() {
            v.push((t, NOWHERE, seq), GFP_KERNEL)?;
        }
        Ok(Self {
            items: v,
            key,
            next: 0,
        })
    }

    /// Finds each item's symbol in `table` (by name, not by a walk of every
    /// symbol; none without a table), and puts them in the order a walk
    /// would meet them: by symbol, then by name and given order, those of
    /// no symbol last.
    fn place(&mut self, table: Option<&TextTable>) {
        let key = self.key;
        for (t, at, _) in self.items.iter_mut() {
            *at = table
                .and_then(|table| table.first_named(key(t)))
                .unwrap_or(NOWHERE);
        }
        // Names are compared only between items of one symbol, or of none.
        sort::sort_by(&mut self.items, |a, b| {
            a.1.cmp(&b.1)
                .then_with(|| (key(a.0), a.2).cmp(&(key(b.0), b.2)))
        });
    }

    /// The next item a symbol took that is still to be handed on, and
    /// the index of its symbol.
    fn next_placed(&self) -> Option<(&'a T, usize)> {
        let &(t, at, _) = self.items.get(self.next)?;
        (at != NOWHERE).then_some((t, at))
    }

    /// The next item if its symbol is `index` (the walk's current one).
    fn take_at(&mut self, index: usize) -> Option<&'a T> {
        let (t, at) = self.next_placed()?;
        (at == index).then(|| {
            self.next += 1;
            t
        })
    }

    /// The items no symbol took (all of them before [`ByName::place`]).
    fn unmet(&self) -> impl Iterator<Item = &'a T> + '_ {
        self.items
            .iter()
            .filter(|(_, at, _)| *at == NOWHERE)
            .map(|(t, _, _)| *t)
    }
}

/// Resolves `names` (and, through `globs`, whatever else needs the walk)
/// as one walk of the kernel's text symbols would, handing each to `add`
/// with its symbol's address and size in address order; then hands `add`
/// the names no symbol has, with no address. The names are looked up in
/// the table's name index; only globs walk it. `globs` is called for every
/// symbol while it says some glob still takes more; `any_glob`: whether
/// there is one. `text`: the kernel's text symbols, which the caller read
/// from the registry's caches if there is anything to resolve (`None`:
/// every name goes to the builder by name).
fn resolve<'a, T>(
    b: &mut Builder<'_>,
    text: Option<&TextTable>,
    names: &mut ByName<'a, T>,
    any_glob: bool,
    mut globs: impl FnMut(&mut Builder<'_>, &TextSymbol<'_>) -> Result<bool, Failed>,
    add: impl Fn(&mut Builder<'_>, &'a T, Option<(usize, usize)>) -> Result<(), Failed>,
) -> Result<(), Failed> {
    let Some(table) = text.filter(|_| !names.items.is_empty() || any_glob) else {
        names.place(None);
        for t in names.unmet() {
            add(b, t, None)?;
        }
        return Ok(());
    };
    names.place(Some(table));
    if !any_glob {
        while let Some((t, at)) = names.next_placed() {
            names.next += 1;
            add(b, t, table.get(at))?;
        }
    } else {
        let mut globs_open = true;
        let mut visit = |sym: TextSymbol<'_>| -> Result<bool, Failed> {
            let text = Some((sym.addr, sym.size));
            while let Some(t) = names.take_at(sym.index) {
                add(b, t, text)?;
            }
            if globs_open {
                globs_open = globs(b, &sym)?;
            }
            Ok(names.next_placed().is_some() || globs_open)
        };
        table.for_each(&mut visit)?;
    }
    for t in names.unmet() {
        add(b, t, None)?;
    }
    Ok(())
}

impl Registry {
    /// Registers everything staged for `name` (older staging first):
    /// explicitly named probes first, then every glob in one walk of the
    /// kernel's text symbols.
    pub(in crate::engine) fn create(
        &mut self,
        pending: &mut KVVec<Staged>,
        name: &str,
        options: CreateOptions,
    ) -> Result<Arc<Set>, Failed> {
        let name_b = name.as_bytes();
        let gen = self.take_staged(pending, name_b);
        let staged = &self.staged;
        let mine =
            || Iterator::chain(staged.iter(), pending.iter()).filter(move |e| e.consumed == gen);
        // Arguments fill records: without events there are none to fill.
        let no_events = options.events() == Events::Off;
        if let Some(e) = mine().find(|e| e.has_args() && no_events) {
            let why = if options.bare {
                "--bare handlers write none"
            } else {
                "--no-events makes none"
            };
            return Err(Failed::new(
                EINVAL,
                format_args!(
                    "set {name}: its lines have fetch arguments, which fill trace records: {why}"
                ),
            )
            .on_line(Some(&e.line_ref())));
        }
        Self::check_direct_args(name, &options, mine())?;
        // Each explicit line is one probe, its room held from the start.
        let budget = self.budget(mine().filter(|e| !e.glob).count());
        let noopt = options.noopt;
        let walks = mine().any(|e| e.core_glob() || e.walked_explicitly(noopt));
        let direct = mine().any(|e| e.kind == ProbeKind::Direct);
        // Lines an fprobe or ftrace-based kprobe may serve (not `p!:`).
        let ftrace = direct || mine().any(|e| !e.int3);
        let found = self
            .caches
            .for_create(walks, ftrace, options.exit && direct)?;
        let locked = self.locked();
        let exit = options.exit;
        let mut made = None;
        let set = Set::register(locked, name_b, options, None, None, budget, |b| {
            let text = found.equip(b);
            // Explicit lines the kernel resolves by name: int3 probes.
            let by_kernel =
                |e: &&Staged| !e.glob && !e.walked_explicitly(noopt) && e.module_direct().is_none();
            for e in mine().filter(by_kernel) {
                b.add(&e.target(&e.target, true, None, exit))?;
            }
            // Globs and explicit lines that need addresses: one walk. A
            // function named on its own line belongs to that line, whatever
            // the staging order, and a glob that also matches it leaves it
            // alone (direct calls): the walk meets explicit lines first.
            let mut explicit = ByName::new(mine().filter(|e| e.walked_explicitly(noopt)), |e| {
                e.target.as_slice()
            })?;
            let mut globs = KVVec::new();
            for e in mine().filter(|e| e.core_glob()) {
                globs.push((e, 0u32), GFP_KERNEL)?;
            }
            let any_glob = !globs.is_empty();
            let mut pace = Pacer::new(1024);
            let resolved = resolve(
                b,
                text.as_deref(),
                &mut explicit,
                any_glob,
                |b, sym| glob_matches(b, &mut globs, &mut pace, sym, exit),
                |b, e, text| b.add(&e.target(&e.target, true, text, exit)).map(|_| ()),
            );
            made = b.made_sites();
            resolved?;
            // `d:` lines on MOD:SYM, then MOD:GLOB lines: each module's
            // own walk (a glob member named on a line of its own belongs
            // to that line, as above).
            module_direct_lines(b, mine().filter(|e| e.module_direct().is_some()), exit)?;
            for e in mine().filter(|e| e.module_glob().is_some()) {
                module_glob_members(b, e, exit)?;
            }
            Ok(())
        });
        // A table of call sites made on the way is kept, the set made or not.
        self.caches.keep_sites(made);
        let set = set.map_err(|mut f| {
            Self::blame_symbol(mine(), &mut f);
            f
        })?;
        // The finished set of this name stays listed until the whole write
        // went through ([`Registry::forget_freed_taken`]).
        self.keep(set)
    }

    /// A set's `d:` lines with fetch arguments: in a set made without
    /// `--exit`, an entry must take them (`$retval` only a return has),
    /// and the `--fprobe` baseline writes no records (its handler has no
    /// trampoline frame to read the arguments from).
    fn check_direct_args<'e>(
        name: &str,
        options: &CreateOptions,
        mut lines: impl Iterator<Item = &'e Staged>,
    ) -> Result<(), Failed> {
        let direct = |e: &&Staged| e.kind == ProbeKind::Direct && e.has_args();
        // An exit record's own field, after the arguments'.
        let duration =
            |e: &&Staged| options.exit && e.args_for(true).is_some_and(|a| a.has_field("duration"));
        let Some(e) = lines.find(|e| {
            direct(e) && (options.fprobe || (!options.exit && e.args.is_err()) || duration(e))
        }) else {
            return Ok(());
        };
        let f = match e.args {
            _ if duration(&e) => Failed::new(
                EINVAL,
                format_args!(
                    "set {name}: an argument named duration: an exit set's return records have a field of that name (the call's duration)"
                ),
            ),
            _ if options.fprobe => Failed::errno(
                errno::EOPNOTSUPP,
                format_args!("set {name}: the --fprobe baseline writes no records (fetch arguments)"),
            ),
            Err(why) => Failed::new(
                EINVAL,
                format_args!(
                    "set {name}: {why}: a d: line's records are entry records unless the set is made with --exit"
                ),
            ),
            Ok(_) => return Ok(()),
        };
        Err(f.on_line(Some(&e.line_ref())))
    }

    /// See [`super::Engine::create_api`].
    pub(in crate::engine) fn create_api(
        &mut self,
        name: &[u8],
        options: CreateOptions,
        client: Client,
        owner: Owner,
        targets: &[OwnedTarget],
    ) -> Result<Arc<Set>, Failed> {
        self.may_create_api(name, &owner)?;
        self.sets.reserve(1, GFP_KERNEL)?;
        let by_symbol = |t: &&OwnedTarget| t.kind == ProbeKind::Direct && t.text.is_none();
        let budget = self.budget(targets.len());
        let walks = targets.iter().any(|t| by_symbol(&t));
        let direct = targets.iter().any(|t| t.kind == ProbeKind::Direct);
        let found = self
            .caches
            .for_create(walks, direct, options.exit && direct)?;
        let locked = self.locked();
        let (client, owner) = (Some(client), Some(owner));
        let mut made = None;
        let set = Set::register(locked, name, options, client, owner, budget, |b| {
            let text = found.equip(b);
            let resolved = targets
                .iter()
                .filter(|t| !by_symbol(t))
                .try_for_each(|t| b.add(&t.target(t.text, t.addr)).map(|_| ()))
                .and_then(|()| {
                    // Direct targets by symbol need their address, as a
                    // control-file `d:` line: the first symbol of each name.
                    let mut names =
                        ByName::new(targets.iter().filter(by_symbol), |t| t.symbol.as_slice())?;
                    resolve(
                        b,
                        text.as_deref(),
                        &mut names,
                        false,
                        |_, _| Ok(false),
                        |b, t, text| b.add(&t.target(text, 0)).map(|_| ()),
                    )
                });
            made = b.made_sites();
            resolved
        });
        // A table of call sites made on the way is kept, the set made or not.
        self.caches.keep_sites(made);
        let set = set?;
        let set = self.keep(set)?;
        // Only once nothing can fail any more: a failed create keeps the
        // finished set of its name listed.
        self.forget_freed(name);
        Ok(set)
    }

    /// The probe budget of a set made now ([`Registry::probe_room`]), with
    /// room held for its `explicit` targets.
    fn budget(&self, explicit: usize) -> Budget {
        let mut budget = Budget::new(self.probe_room());
        budget.hold(explicit);
        budget
    }

    /// Whether an API client's module may create a set called `name` now.
    fn may_create_api(&self, name: &[u8], owner: &Owner) -> Result<(), Failed> {
        if !owner.live() {
            // The module notifier may have looked for its sets already
            // (`may_own`): none may appear after.
            return Err(Failed::new(
                ENODEV,
                format_args!("set {}: its module is going away", BStr(name)),
            ));
        }
        if self.find(name).is_some_and(|s| s.state().is_live()) {
            return Err(Failed::new(
                EEXIST,
                format_args!("set {} already exists", BStr(name)),
            ));
        }
        if self.sets.iter().filter(|s| s.state().is_live()).count() >= MAX_SETS {
            return Err(Failed::new(
                ENOSPC,
                format_args!("more than {} live sets", MAX_SETS),
            ));
        }
        Ok(())
    }

    /// Lists a set just made; if that fails, it is discarded again.
    fn keep(&mut self, set: Arc<Set>) -> Result<Arc<Set>, Failed> {
        if let Err(e) = self.sets.push(set.clone(), GFP_KERNEL) {
            set.discard();
            return Err(e.into());
        }
        Ok(set)
    }

    /// Blames a failure that names a target but no line (a direct call
    /// refused at attach) on the line of this `create` that named it: an
    /// explicit line first, else a glob that matches it.
    fn blame_symbol<'a>(lines: impl Iterator<Item = &'a Staged> + Clone, f: &mut Failed) {
        if f.line.is_some() {
            return;
        }
        let Some(sym) = f.subject_symbol() else {
            return;
        };
        let sym = core::str::from_utf8(sym).unwrap_or("");
        let matches = |e: &Staged| {
            let pattern = core::str::from_utf8(&e.target).unwrap_or("");
            let skipped = e
                .skip
                .as_deref()
                .is_some_and(|s| glob_match(core::str::from_utf8(s).unwrap_or(""), sym));
            if e.glob {
                !skipped && glob_match(pattern, sym)
            } else {
                pattern == sym
            }
        };
        // Only direct calls attach at create.
        let direct = |e: &&Staged| e.kind == ProbeKind::Direct;
        let found = lines
            .clone()
            .filter(direct)
            .find(|e| !e.glob && matches(e))
            .or_else(|| lines.clone().filter(direct).find(|e| matches(e)))
            .or_else(|| lines.clone().find(|e| matches(e)));
        if let Some(e) = found {
            // A line of its own names the symbol already (a glob's does not).
            if let Some(s) = f.subject.as_mut() {
                s.named_by_line = !e.glob;
            }
            f.line = BlamedLine::of(&e.line_ref());
        }
    }
}

/// A `MOD:GLOB` line's probes: the functions of the loaded module MOD
/// that GLOB matches (its `skip=` and `max=` as any glob's), each at its
/// function's address: on a `p:` or `r:` line fprobes where ftrace traces
/// the function (as a core-kernel glob's), else int3 probes (`p!:`, an
/// offset); on a `d:` line direct calls. Fprobes and direct calls hold the
/// module loaded until the set is unregistered; int3 probes hold it only while
/// they are registered: its unload leaves them gone, as the kernel's
/// `MOD:SYM` probes. Each is named `MOD:SYM`. `*:GLOB`: every loaded
/// module's, batchprobe's left out, module after module. Refused (the line
/// named): a module that is not loaded (`ENOENT`), batchprobe itself
/// (`EPERM`).
fn module_glob_members(b: &mut Builder<'_>, e: &Staged, exit: bool) -> Result<(), Failed> {
    let Some((module, pattern)) = e.module_glob() else {
        return Ok(());
    };
    let mut members = GlobMembers {
        line: e,
        pattern: core::str::from_utf8(pattern).unwrap_or(""),
        skip: e
            .skip
            .as_deref()
            .map(|s| core::str::from_utf8(s).unwrap_or("")),
        name: KVec::new(),
        count: 0,
        exit,
    };
    if module == b"*" {
        let mut text = ModuleText::next(None)?;
        while let Some(t) = text {
            if !members.add_from(b, &t)? {
                break;
            }
            text = ModuleText::next(Some(&t))?;
        }
        return Ok(());
    }
    let text = ModuleText::find(module).map_err(|err| module_refusal(err, module, e))?;
    members.add_from(b, &text).map(|_| ())
}

/// Explicit `d:` lines on `MOD:SYM`: each takes the module's function of
/// that name (the lowest-addressed, where several static ones share it),
/// found in one walk of each module's text, and handed on in address
/// order, as the core kernel's names are; a name the module lacks goes to
/// the builder without an address, which refuses it (`ENOENT`), as on the
/// core kernel. A module that is not loaded: `ENOENT`, the line named (a
/// `d:` line does not wait for its module).
fn module_direct_lines<'a>(
    b: &mut Builder<'_>,
    lines: impl Iterator<Item = &'a Staged>,
    exit: bool,
) -> Result<(), Failed> {
    // By target (which groups each module's lines: they share a prefix),
    // then staging order; each with whether the walk placed it.
    let mut all = KVVec::new();
    for (seq, e) in lines.enumerate() {
        all.push((e, seq, false), GFP_KERNEL)?;
    }
    sort::sort_by(&mut all, |a, b| {
        (a.0.target.as_slice(), a.1).cmp(&(b.0.target.as_slice(), b.1))
    });
    let mut from = 0;
    while let Some(&(first, _, _)) = all.get(from) {
        let Some((module, _)) = first.module_direct() else {
            break;
        };
        let to = from
            + all.get(from..).map_or(0, |r| {
                r.iter()
                    .take_while(|x| x.0.module_direct().map(|m| m.0) == Some(module))
                    .count()
            });
        let group = all.get_mut(from..to).unwrap_or(&mut []);
        module_direct_group(b, module, group, exit)?;
        from = to.max(from + 1);
    }
    Ok(())
}

/// [`module_direct_lines`] for the lines of one module, sorted by name.
fn module_direct_group(
    b: &mut Builder<'_>,
    module: &[u8],
    group: &mut [(&Staged, usize, bool)],
    exit: bool,
) -> Result<(), Failed> {
    let Some(&(first, _, _)) = group.first() else {
        return Ok(());
    };
    let text = ModuleText::find(module).map_err(|err| module_refusal(err, module, first))?;
    text.for_each_function(|sym, start, size| {
        let name = sym.as_bytes();
        let at = group.partition_point(|x| bare(x.0) < name);
        for x in group.get_mut(at..).unwrap_or(&mut []) {
            if bare(x.0) != name {
                break;
            }
            if !x.2 {
                x.2 = true;
                b.add(&x.0.target(&x.0.target, true, Some((start, size)), exit))?;
            }
        }
        Ok::<bool, Failed>(true)
    })?;
    for x in group.iter().filter(|x| !x.2) {
        b.add(&x.0.target(&x.0.target, true, None, exit))?;
    }
    Ok(())
}

/// An explicit `d:` line's function name, without its `MOD:`.
fn bare(e: &Staged) -> &[u8] {
    e.module_direct().map_or(&[][..], |m| m.1)
}

/// Why a line's module cannot be walked: not loaded (`ENOENT`), or
/// batchprobe itself (`EPERM`); the line named.
fn module_refusal(err: Error, module: &[u8], e: &Staged) -> Failed {
    let why = if err == EPERM {
        "batchprobe does not probe its own functions"
    } else if e.glob {
        "not loaded (MOD:GLOB takes a loaded module's functions)"
    } else {
        "not loaded (a d: line takes a loaded module's functions; it does not wait for one)"
    };
    Failed::new(err, format_args!("module {}: {why}", BStr(module))).on_line(Some(&e.line_ref()))
}

/// What a `MOD:GLOB` line's walk carries from module to module.
struct GlobMembers<'a> {
    line: &'a Staged,
    pattern: &'a str,
    skip: Option<&'a str>,
    /// `MOD:SYM` of the member being added.
    name: KVec<u8>,
    /// The probes added so far, for `max=`.
    count: u32,
    exit: bool,
}

impl GlobMembers<'_> {
    /// Adds the functions of `text` the line's glob matches; `false` once
    /// its `max=` is reached.
    fn add_from(&mut self, b: &mut Builder<'_>, text: &ModuleText) -> Result<bool, Failed> {
        let e = self.line;
        let module = text.name();
        text.for_each_function(|sym, start, size| {
            if e.limit.is_some_and(|l| self.count >= l) {
                return Ok(false);
            }
            if !glob_takes(self.pattern, self.skip, sym) {
                return Ok(true);
            }
            crate::kvec::clear(&mut self.name);
            self.name.extend_from_slice(module, GFP_KERNEL)?;
            self.name.push(b':', GFP_KERNEL)?;
            self.name.extend_from_slice(sym.as_bytes(), GFP_KERNEL)?;
            // By address, not by name: a module may hold several static
            // functions of one name, and its name lookup finds the first.
            // A direct call takes the function as a walk found it, and so
            // does an fprobe (a kprobe, its fallback, the address).
            let t = e.target(&self.name, false, Some((start, size)), self.exit);
            let t = if e.kind == ProbeKind::Direct {
                t
            } else {
                let addr = start.saturating_add(t.offset as usize);
                ProbeTarget { addr, ..t }
            };
            if b.add(&t)? {
                self.count += 1;
            }
            Ok::<bool, Failed>(true)
        })?;
        // A plain match: `is_none_or` and `map_or(true, ..)` each draw a
        // lint on one of the kernels (their clippy MSRVs differ).
        let room = match e.limit {
            Some(l) => self.count < l,
            None => true,
        };
        Ok(room)
    }
}

/// Offers `sym` to every glob that still takes more (`limit`), counting
/// what each took; returns whether any still does. Tens of thousands of
/// glob lines make tens of thousands of matches per symbol: `pace`
/// reschedules now and then, and gives up with `EINTR` once the writer is
/// killed.
fn glob_matches(
    b: &mut Builder<'_>,
    globs: &mut [(&Staged, u32)],
    pace: &mut Pacer,
    sym: &TextSymbol<'_>,
    exit: bool,
) -> Result<bool, Failed> {
    let name = sym.name.as_bytes();
    let text = Some((sym.addr, sym.size));
    let mut open = false;
    for (e, count) in globs.iter_mut() {
        pace.step()?;
        if e.limit.is_some_and(|l| *count >= l) {
            continue;
        }
        open = true;
        let pattern = core::str::from_utf8(&e.target).unwrap_or("");
        let skip = e
            .skip
            .as_deref()
            .map(|s| core::str::from_utf8(s).unwrap_or(""));
        if glob_takes(pattern, skip, sym.name) {
            if b.add(&e.target(name, false, text, exit))? {
                *count += 1;
            }
        }
    }
    Ok(open)
}

/// Whether a glob line of `pattern` and `skip=` takes the function `name`
/// (core kernel's or a module's).
fn glob_takes(pattern: &str, skip: Option<&str>, name: &str) -> bool {
    !skip.is_some_and(|s| glob_match(s, name))
        && glob_candidate(name, pattern)
        && glob_match(pattern, name)
}
