// SPDX-License-Identifier: GPL-2.0

//! The engine: the registry behind its mutex, the module's ordered
//! workqueue that teardown runs on, and the completion queue of API
//! clients. It runs control writes (parse, validate, execute, roll back)
//! and API calls, and answers the read-only files.
//!
//! A write is one batch: every line is parsed, then the whole batch is
//! validated against a simulation of the registry, and only then executed,
//! under the registry lock. If the kernel refuses something while
//! executing, the sets this write created are unregistered again and its
//! staging is dropped; the error names the line and the symbol. Teardown
//! runs on the workqueue; `flush` and `unregister --sync` wait for it after
//! the lock is released.

mod checks;
pub(crate) mod registry;
mod show;

use core::sync::atomic::{AtomicPtr, Ordering};

use kernel::c_str;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};
use kernel::workqueue::WorkItem;

use crate::backend::OwnedTarget;
use crate::bindings;
use crate::command::{self, Command, CreateOptions, Events};
use crate::error::Failed;
use crate::events;
use crate::events::program::{CompileError, FetchProgram};
use crate::events::symbols::SymbolAddrs;
use crate::gate::Client;
use crate::kvec;
use crate::sched::Pacer;
use crate::set::{Owner, Set};
use crate::workqueue::OwnedQueue;
use registry::validate::Invalid;
use registry::{Registry, Staged, TextSlot};

/// What a read-only file shows.
#[derive(Clone, Copy)]
pub(crate) enum Show {
    Sets,
    Stats,
    LastError,
}

/// The engine while the module is live (null before init and after exit).
static ENGINE: AtomicPtr<Engine> = AtomicPtr::new(core::ptr::null_mut());

/// Makes the API usable.
///
/// # Safety
///
/// `engine` stays alive and pinned until [`unpublish`] has returned.
pub(crate) unsafe fn publish(engine: &Engine) {
    ENGINE.store(core::ptr::from_ref(engine).cast_mut(), Ordering::Release);
}

/// Makes the API refuse calls (`ENODEV`). Called on unload, when no client
/// module can be loaded any more (they depend on this module).
pub(crate) fn unpublish() {
    ENGINE.store(core::ptr::null_mut(), Ordering::Release);
}

/// Queues an API set's completion after its teardown (on the engine's
/// completion queue; synchronously if the engine is gone, on unload).
pub(crate) fn complete_later(set: Arc<Set>) {
    match engine() {
        Ok(e) => e.complete_later(set),
        Err(_) => set.complete(),
    }
}

/// The engine, while the API is usable ([`publish`] to [`unpublish`]).
pub(crate) fn engine() -> Result<&'static Engine> {
    let e = ENGINE.load(Ordering::Acquire);
    // SAFETY: Published by `publish`, whose caller keeps it alive until
    // `unpublish`; clients, the only callers, cannot outlive the module.
    unsafe { e.as_ref() }.ok_or(ENODEV)
}

/// The module notifier's `MODULE_STATE_COMING` (`rust/module.c`), for
/// every module that loads on the system: see [`Engine::module_coming`].
/// Nothing while the engine is not published (the notifier is registered
/// before it is published, and unregistered after it is unpublished).
#[no_mangle]
extern "C" fn bp_rust_module_coming(module: *mut bindings::module) {
    let Ok(e) = engine() else {
        return;
    };
    // SAFETY: The notifier's module is live for the whole call.
    let name = unsafe { crate::kallsyms::module_name(module) };
    e.module_coming(name);
}

/// An API client's completion, on the completion queue.
impl WorkItem<3> for Set {
    type Pointer = Arc<Set>;

    fn run(this: Arc<Set>) {
        this.complete();
    }
}

/// The physical disarm after a disable, off the writer's path.
impl WorkItem<2> for Set {
    type Pointer = Arc<Set>;

    fn run(this: Arc<Set>) {
        this.disarm();
    }
}

/// A set's teardown, on the engine's ordered queue; an API set's
/// completion follows on the completion queue.
impl WorkItem for Set {
    type Pointer = Arc<Set>;

    fn run(this: Arc<Set>) {
        if this.teardown() {
            complete_later(this);
        }
    }
}

/// The registry, its lock, and the workqueue teardown runs on.
#[pin_data]
pub(crate) struct Engine {
    #[pin]
    registry: Mutex<Registry>,
    queue: OwnedQueue,
    /// API clients' completions (callback, then module reference): not on
    /// `queue`, so that a callback may call the API (whose `enable` waits
    /// on `queue` under the registry lock) without a deadlock.
    done_queue: OwnedQueue,
    /// The kernel's text symbols, the registry's caches' first (see
    /// [`Engine::fill_caches`]).
    text: Arc<TextSlot>,
    /// Where the caches are filled after load: not on `queue`, whose
    /// teardowns must not wait for a walk of every text symbol.
    fill_queue: OwnedQueue,
}

/// What one write builds as it runs: the lines it stages, the sets it
/// creates, whether it waits for teardowns at the end; and what it reads,
/// the addresses of its `@SYM` arguments' symbols.
struct Written<'s> {
    pending: KVVec<Staged>,
    created: KVVec<Arc<Set>>,
    wait: bool,
    symbols: &'s SymbolAddrs,
}

impl Engine {
    /// A new, empty engine with its own ordered workqueue.
    pub(crate) fn new() -> Result<impl PinInit<Self, Error>> {
        let queue = OwnedQueue::new_ordered(c_str!("batchprobe"))?;
        let done_queue = OwnedQueue::new_ordered(c_str!("batchprobe_done"))?;
        let fill_queue = OwnedQueue::new_ordered(c_str!("batchprobe_fill"))?;
        let text = TextSlot::new()?;
        Ok(try_pin_init!(Engine {
            registry <- new_mutex!(Registry::new(text.clone()), "batchprobe::registry"),
            queue,
            done_queue,
            text,
            fill_queue,
        }))
    }

    /// Starts filling the caches every `create` of explicit names reads,
    /// the kernel's text symbols, on the fill queue: for a module just
    /// loaded, so that its first `create` finds them made, or waits only
    /// for the rest of the walk. Nothing is lost if it cannot start (no
    /// memory for the work): the first `create` walks then.
    pub(crate) fn fill_caches(&self) {
        let text = self.text.clone();
        let _ = self.fill_queue.try_spawn(GFP_KERNEL, move || text.fill());
    }

    /// Runs one write of the control file; returns the bytes consumed.
    pub(crate) fn write(&self, buf: &[u8]) -> Result<usize> {
        // Sized by the input: up to BP_MAX_WRITE / 2 one-character lines,
        // hence vmalloc-backed (a kmalloc of that size would warn).
        let mut cmds = KVVec::new();
        // Each command's line as written, for `last_error`.
        let mut texts = KVVec::new();
        // The symbols `@SYM` arguments name: noted as the lines are
        // compiled, looked up once for the whole write.
        let mut symbols = SymbolAddrs::new();
        let mut noted = Ok(());
        for (line, text, parsed) in command::parse_batch_lines(buf) {
            match parsed {
                Ok(cmd) => {
                    let mut note = |n: &str| {
                        noted = noted.and(symbols.note(n));
                        Some(1)
                    };
                    if let Err(e) = Self::check_args(&self.registry, &cmd, line, text, &mut note) {
                        return Err(self.earlier_symbols_first(&mut symbols, &cmds, &texts, e));
                    }
                    noted?;
                    cmds.push((line, cmd), GFP_KERNEL)?;
                    texts.push(text, GFP_KERNEL)?;
                }
                Err(e) => {
                    let error = crate::error::pure(e.errno());
                    let f = Failed::new(error, format_args!("{}", e.as_str()));
                    let column = command::parse_error_at(text).and_then(|(_, c)| c);
                    self.registry
                        .lock()
                        .set_last_error(Some((line, text)), column, &f);
                    return Err(self.earlier_symbols_first(&mut symbols, &cmds, &texts, error));
                }
            }
        }
        self.refuse_locked_down(&cmds, &texts)?;
        if !symbols.is_empty() {
            self.resolve_symbols(&mut symbols, &cmds, &texts)?;
        }
        if self.run(&cmds, &texts, &symbols)? {
            self.flush();
            self.settle_exit_pin(&cmds, &texts);
        }
        Ok(buf.len())
    }

    /// A write failed with `error` at a line: an earlier line's `@SYM` the
    /// kernel lacks fails it first, where the lines before are the
    /// batch's first failing line (its `last_error` then).
    fn earlier_symbols_first(
        &self,
        symbols: &mut SymbolAddrs,
        cmds: &[(usize, Command<'_>)],
        texts: &[&[u8]],
        error: Error,
    ) -> Error {
        if symbols.is_empty() {
            return error;
        }
        self.resolve_symbols(symbols, cmds, texts)
            .err()
            .unwrap_or(error)
    }

    /// Looks the symbols of a write's `@SYM` arguments up, and compiles
    /// its lines that name one again with their addresses: a symbol the
    /// kernel does not have fails the write there, as a bad argument.
    fn resolve_symbols(
        &self,
        symbols: &mut SymbolAddrs,
        cmds: &[(usize, Command<'_>)],
        texts: &[&[u8]],
    ) -> Result {
        if let Err(e) = symbols.resolve() {
            let f = Failed::new(
                e,
                format_args!("reading /proc/kallsyms for the @SYM arguments' addresses"),
            );
            self.registry.lock().set_last_error(None, None, &f);
            return Err(e);
        }
        for (&(line, cmd), text) in cmds.iter().zip(texts.iter()) {
            let Command::Probe(spec) = cmd else {
                continue;
            };
            if spec.args.text().contains('@') {
                Self::check_args(&self.registry, &cmd, line, text, &mut |n| symbols.lookup(n))?;
            }
        }
        Ok(())
    }

    /// Compiles a probe line's fetch arguments with this kernel's grammar,
    /// as the parser's last step: a refusal is reported as a parse error,
    /// with the caret at the argument's byte the kernel's `error_log`
    /// points at, and fails the write before anything runs.
    fn check_args(
        registry: &Mutex<Registry>,
        cmd: &Command<'_>,
        line: usize,
        text: &[u8],
        symbols: &mut dyn FnMut(&str) -> Option<u64>,
    ) -> Result {
        let Command::Probe(spec) = cmd else {
            return Ok(());
        };
        if let command::Target::Address { addr } = spec.target {
            registry.lock().check_address(addr, line, text)?;
        }
        let btf = registry.lock().function_btf(spec)?;
        // A `d:` line is checked as a return's (an exit set's), which
        // takes all an entry takes and `$retval`: which of the two its
        // set is, `create` says (`Registry::check_direct_args`).
        let exit = spec.kind == command::ProbeKind::Direct;
        let r = match FetchProgram::compile(spec, btf, symbols, exit) {
            Ok(_) => return Ok(()),
            Err(CompileError::NoMemory) => return Err(ENOMEM),
            Err(CompileError::Refused(r)) => r,
        };
        let error = crate::error::pure(r.errno);
        let f = Failed::new(error, format_args!("{}", r.reason));
        // The arguments' text is a slice of the trimmed line; the address
        // word is its second word.
        let trimmed = core::str::from_utf8(text).map(str::trim).unwrap_or("");
        let column = match r.at {
            Some(at) => (spec.args.text().as_ptr() as usize)
                .checked_sub(trimmed.as_ptr() as usize)
                .map(|c| c + at),
            None => command::address_word(trimmed),
        }
        .filter(|&c| c <= trimmed.len());
        registry
            .lock()
            .set_last_error(Some((line, text)), column, &f);
        Err(error)
    }

    /// Validates a parsed write (`texts`: each command's line as written)
    /// and executes it, under the registry lock: all of it, or none of it.
    /// Returns whether teardowns are to be waited for once the lock is
    /// released (`flush`, `unregister --sync`).
    fn run(
        &self,
        cmds: &[(usize, Command<'_>)],
        texts: &[&[u8]],
        symbols: &SymbolAddrs,
    ) -> Result<bool> {
        let text_of = |i: usize| texts.get(i).copied().unwrap_or(&[]);
        let mut reg = self.registry.lock();
        if let Err(Invalid { line, failed: f }) = reg.validate(cmds) {
            let i = cmds.binary_search_by_key(&line, |c| c.0).unwrap_or(0);
            reg.set_last_error(Some((line, text_of(i))), None, &f);
            return Err(f.error);
        }
        let (pending, created) = Self::reserve(&mut reg, cmds)?;
        let mut w = Written {
            pending,
            created,
            wait: false,
            symbols,
        };
        // Killed between commands: rolled back as any failed command is.
        let mut pace = Pacer::new(256);
        for (i, &(line, cmd)) in cmds.iter().enumerate() {
            let text = text_of(i);
            let res = pace
                .step()
                .map_err(Failed::from)
                .and_then(|()| self.execute(&mut reg, &mut w, cmd, (line, text)));
            if let Err(f) = res {
                Self::roll_back(&mut reg, &w.created);
                reg.set_last_error(Some((line, text)), None, &f);
                return Err(f.error);
            }
        }
        reg.keep_staged(w.pending)?;
        reg.forget_freed_taken(&w.created);
        reg.expire_freed();
        Ok(w.wait)
    }

    /// Every vector the write `cmds` will push to, reserved before its first
    /// command runs: once sets are registered, running out of memory must
    /// not leave one registered but unknown to the rollback, or staging
    /// half kept. Returns the write's own: the probes it stages, and the
    /// sets it creates.
    fn reserve(
        reg: &mut Registry,
        cmds: &[(usize, Command<'_>)],
    ) -> Result<(KVVec<Staged>, KVVec<Arc<Set>>)> {
        let probes = cmds
            .iter()
            .filter(|(_, c)| matches!(c, Command::Probe(_)))
            .count();
        let creates = cmds
            .iter()
            .filter(|(_, c)| matches!(c, Command::Create { .. }))
            .count();
        let pending = KVVec::with_capacity(probes, GFP_KERNEL)?;
        let created = KVVec::with_capacity(creates, GFP_KERNEL)?;
        reg.staged.reserve(probes, GFP_KERNEL)?;
        reg.sets.reserve(creates, GFP_KERNEL)?;
        Ok((pending, created))
    }

    /// Undoes a failed write's registrations (the sets it `created`) and
    /// staging.
    fn roll_back(reg: &mut Registry, created: &[Arc<Set>]) {
        for set in created.iter() {
            set.discard();
        }
        kvec::retain(&mut reg.sets, |s| {
            !created.iter().any(|c| Arc::ptr_eq(c, s))
        });
        reg.untake_staged();
    }

    fn execute(
        &self,
        reg: &mut Registry,
        w: &mut Written<'_>,
        cmd: Command<'_>,
        (line, text): (usize, &[u8]),
    ) -> Result<(), Failed> {
        let find = |reg: &Registry, name: &str| {
            reg.find(name.as_bytes())
                .cloned()
                .ok_or_else(|| Failed::new(ENOENT, format_args!("no set {}", name)))
        };
        match cmd {
            Command::Probe(spec) => reg
                .stage(&mut w.pending, spec, (line, text), w.symbols)
                .map_err(|_| Failed::oom()),
            Command::Create { set: name, options } => self.create(reg, w, name, options),
            Command::Enable(name) => find(reg, name)?.enable(reg.locked()),
            Command::Disable(name) => {
                let set = find(reg, name)?;
                if set.disable(reg.locked())? {
                    // Already queued (a quick disable, enable, disable)
                    // is fine: that disarm will see the final state.
                    let _ = self.queue.enqueue::<Arc<Set>, 2>(set);
                }
                Ok(())
            }
            Command::Unregister { set, sync } => {
                let set = find(reg, set)?;
                set.begin_unregister(reg.locked())?;
                // Cannot be queued already: only this transition queues it.
                let _ = self.queue.enqueue::<Arc<Set>, 0>(set.clone());
                set.unregister_returned();
                w.wait |= sync;
                Ok(())
            }
            Command::Retarget { set, mode } => {
                let set = find(reg, set)?;
                let (caches, locked) = reg.caches();
                set.retarget(locked, mode, &mut || caches.prototypes())
            }
            Command::Unstage(set) | Command::UnstageEvent { set, .. } => {
                let event = match cmd {
                    Command::UnstageEvent { event, .. } => Some(event),
                    _ => None,
                };
                reg.unstage(&mut w.pending, set.as_bytes(), event);
                Ok(())
            }
            Command::Flush => {
                w.wait = true;
                Ok(())
            }
        }
    }

    /// `create SET`, in a write being executed.
    fn create(
        &self,
        reg: &mut Registry,
        w: &mut Written<'_>,
        name: &str,
        options: CreateOptions,
    ) -> Result<(), Failed> {
        // A set of that name still being torn down holds its events
        // (their names) in tracefs until its teardown ends: wait for it,
        // as `kprobe_events`' removal is done when its write returns. (No
        // teardown takes the registry lock.)
        if options.events() != Events::Off && reg.retiring(name.as_bytes()) {
            self.queue.flush();
        }
        let set = reg.create(&mut w.pending, name, options)?;
        w.created.push(set, GFP_KERNEL).map_err(|_| Failed::oom())
    }

    /// Creates a set for an API client ([`crate::api`]), named `name`
    /// (`OWNER.NAME`): the targets in one batch, under the registry lock,
    /// as a control-file `create` would. Errors are logged and shown in
    /// `last_error`, naming the target.
    pub(crate) fn create_api(
        &self,
        name: &[u8],
        options: CreateOptions,
        client: Client,
        owner: Owner,
        targets: &[OwnedTarget],
    ) -> Result<Arc<Set>> {
        let mut reg = self.registry.lock();
        let res = reg.create_api(name, options, client, owner, targets);
        match res {
            Ok(set) => {
                reg.expire_freed();
                Ok(set)
            }
            Err(f) => {
                // No line names the set: the message does.
                let f = f.in_set(name);
                reg.set_last_error(None, None, &f);
                Err(f.error)
            }
        }
    }

    /// Records an API call's invalid argument, described by `what`, as
    /// `last_error` and in the log, and gives back `error`.
    pub(crate) fn api_error(&self, error: Error, what: core::fmt::Arguments<'_>) -> Error {
        let f = Failed::new(error, what);
        self.registry.lock().set_last_error(None, None, &f);
        error
    }

    /// Enables an API set.
    pub(crate) fn api_enable(&self, set: &Set) -> Result {
        let reg = self.registry.lock();
        set.enable(reg.locked()).map_err(|f| f.error)
    }

    /// Disables an API set; its disarm is queued as for `disable`.
    pub(crate) fn api_disable(&self, set: &Set) -> Result {
        let reg = self.registry.lock();
        if set.disable(reg.locked()).map_err(|f| f.error)? {
            // The registry holds a reference to every set it knows.
            if let Some(arc) = reg.sets.iter().find(|s| core::ptr::eq(&***s, set)) {
                let _ = self.queue.enqueue::<Arc<Set>, 2>(arc.clone());
            }
        }
        Ok(())
    }

    /// Retires an API set; `done(arg)` is called when its teardown has
    /// completed.
    pub(crate) fn api_unregister(
        &self,
        set: &Set,
        done: Option<unsafe extern "C" fn(*mut kernel::ffi::c_void)>,
        arg: *mut kernel::ffi::c_void,
    ) -> Result {
        let reg = self.registry.lock();
        let Some(arc) = reg.sets.iter().find(|s| core::ptr::eq(&***s, set)).cloned() else {
            // Forgotten by the registry: long retired.
            return Err(ENOENT);
        };
        set.begin_unregister(reg.locked()).map_err(|f| f.error)?;
        if let Some(o) = set.owner() {
            o.on_done(done, arg);
        }
        // Cannot be queued already: only this transition queues it.
        let _ = self.queue.enqueue::<Arc<Set>, 0>(arc);
        set.unregister_returned();
        Ok(())
    }

    /// Waits for every queued teardown and disarm, and then for the API
    /// completions they queued, and for the removal of trace events that
    /// were in use when their set retired, once queued (they were disabled).
    pub(crate) fn flush(&self) {
        self.queue.flush();
        self.done_queue.flush();
        events::tracefs::flush();
    }

    /// Queues an API set's completion ([`Set::complete`]).
    pub(crate) fn complete_later(&self, set: Arc<Set>) {
        // Only the one teardown queues it: it cannot be queued already.
        let _ = self.done_queue.enqueue::<Arc<Set>, 3>(set);
    }

    /// `module` is going away (its init failed, or a forced unload): its
    /// sets are retired, and their teardowns and completions waited for,
    /// while its text is still there. (A normal unload cannot happen while
    /// it has sets: each holds a reference on it.)
    pub(crate) fn owner_going(&self, module: *mut bindings::module) {
        let mine = self.retire_owned(module);
        if mine > 0 {
            pr_warn!(
                "a client module is going with {} set(s) not retired: retiring them\n",
                mine
            );
            self.flush();
        }
        self.put_orphans(module);
    }

    /// `module` is coming (the module notifier's `MODULE_STATE_COMING`,
    /// before its init runs): every live set's `MOD:SYM` probes on it that
    /// wait, or went with its last unload, are registered (see
    /// [`Set::module_coming`]). Under the registry lock, as
    /// `kprobe_events`' own callback takes `event_mutex`: the load waits
    /// for a control write under way.
    pub(crate) fn module_coming(&self, module: &[u8]) {
        let reg = self.registry.lock();
        for (i, set) in reg.sets.iter().enumerate() {
            if i % 64 == 63 {
                crate::sched::cond_resched();
            }
            set.module_coming(reg.locked(), module);
        }
    }

    /// [`Engine::owner_going`]'s first step: queues the teardown of every
    /// live set `module` owns. Returns how many sets it owns.
    fn retire_owned(&self, module: *mut bindings::module) -> usize {
        let mut mine = 0;
        let reg = self.registry.lock();
        for set in reg
            .sets
            .iter()
            .filter(|s| s.owner().is_some_and(|o| o.is(module)))
        {
            mine += 1;
            if set.state().is_live() && set.begin_unregister(reg.locked()).is_ok() {
                let _ = self.queue.enqueue::<Arc<Set>, 0>(set.clone());
                set.unregister_returned();
            }
        }
        mine
    }

    /// [`Engine::owner_going`]'s last step, once its sets are retired and
    /// flushed.
    fn put_orphans(&self, module: *mut bindings::module) {
        // Handles the module never put: nothing can put them once its
        // memory is gone, so their references are dropped here (a client
        // whose init failed with its set live, or that forgot a put).
        // Up to every set the registry lists: vmalloc-backed.
        let mut orphans = KVVec::new();
        {
            let reg = self.registry.lock();
            for set in reg.sets.iter() {
                if set
                    .owner()
                    .is_some_and(|o| o.made_by(module) && o.take_handle())
                {
                    // On failure the reference stays: a leak, never a
                    // double put.
                    let _ = orphans.push(set.clone(), GFP_KERNEL);
                }
            }
        }
        if !orphans.is_empty() {
            pr_warn!(
                "a client module went away holding {} set handle(s): put them\n",
                orphans.len()
            );
        }
        for set in orphans {
            let raw = Arc::into_raw(set);
            // SAFETY: `raw` holds the clone's reference, and the set holds
            // the client's (its handle, which `take_handle` just handed
            // over, once): two references, each given back once. Either
            // drop may be the last: the registry lock was released above,
            // and a concurrent control write's `expire_freed` or
            // `forget_freed` may have dropped the registry's reference
            // meanwhile. That is sound: every set this module made is
            // `Freed` by now (`owner_going` retired and flushed its own
            // sets before this step, and a going module can make no new one: `try_module_get`
            // fails), so dropping it frees only memory, and this runs in
            // process context, where a set may be dropped.
            unsafe {
                drop(Arc::from_raw(raw));
                drop(Arc::from_raw(raw));
            }
        }
    }

    /// Retires every set, waits for all teardown, then for every RCU
    /// callback queued by it (which runs module code).
    ///
    /// # Safety
    ///
    /// Unload, in process context: the control files are gone and the API
    /// unpublished, so no write or API call runs or can start.
    pub(crate) unsafe fn shutdown(&self) {
        // A walk of the text symbols still under way gives up.
        self.text.stop();
        self.fill_queue.flush();
        let sets = {
            let mut reg = self.registry.lock();
            kvec::clear(&mut reg.staged);
            for set in reg.sets.iter() {
                if set.state().is_live() && set.begin_unregister(reg.locked()).is_ok() {
                    let _ = self.queue.enqueue::<Arc<Set>, 0>(set.clone());
                    set.unregister_returned();
                }
            }
            kvec::take(&mut reg.sets)
        };
        self.queue.flush();
        self.done_queue.flush();
        drop(sets);
        // SAFETY: Every set above was retired and its teardown flushed, and
        // no write or API call runs or can start (this function's contract).
        unsafe { crate::direct::shutdown() };
        crate::rcu::barrier();
    }
}
