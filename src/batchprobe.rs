// SPDX-License-Identifier: GPL-2.0

//! batchprobe: attach and detach thousands of kernel probes in batches.
//!
//! A control write flows: parser ([`command`], pure) → validation against
//! the engine and its registry ([`engine`], with the pure [`lifecycle`] state machine) →
//! a set ([`set`]) → for each target the backend that serves it best
//! ([`backend`]: [`fprobe`], [`probe::kprobe`], [`probe::kretprobe`], [`direct`]) → the
//! kernel's batch API. Teardown flows: set → module workqueue
//! ([`workqueue`]) → one batch per backend → `call_rcu` free ([`rcu`]). The crate root
//! only wires the pieces together. Other modules reach the same engine
//! through the in-kernel API ([`api`], `include/batchprobe.h`).

use kernel::c_str;
use kernel::prelude::*;

pub mod aggregate;
pub mod api;
mod backend;
mod bindings;
pub mod btf;
mod chardev;
pub mod command;
mod control;
mod debugfs;
mod direct;
mod engine;
pub mod errno;
mod error;
pub mod errtext;
pub mod events;
mod fprobe;
mod ftrace;
mod gate;
mod gpcount;
mod kallsyms;
mod kcompat;
mod kvec;
pub mod lifecycle;
mod locked;
mod probe;
pub mod probecap;
mod rcu;
pub mod retpool;
mod sched;
mod set;
pub mod sort;
pub mod symname;
mod workqueue;

module! {
    type: BatchProbe,
    name: "batchprobe",
    description: "Batch registration and teardown of kprobes, kretprobes and ftrace-direct calls",
    license: "GPL",
}

struct BatchProbe {
    /// Removed first on unload, so no control write can start afterwards.
    dir: Option<debugfs::Dir>,
    /// `/dev/batchprobe`: no file is open on it at unload (an open one
    /// holds the module).
    dev: Option<chardev::ControlDev>,
    engine: Pin<KBox<engine::Engine>>,
    /// The `do_exit()` callback that counts tasks ending inside an exit
    /// trampoline's body (registered with the first exit set); dropped
    /// after the engine's shutdown.
    _exit_watch: direct::exit::tasks::Watch,
    /// Dropped last: the phases of retiring sets still count grace periods.
    _gp_counters: gpcount::Counters,
}

impl kernel::Module for BatchProbe {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: called once, before any timing is taken.
        unsafe { bindings::bp_clock_init() };
        direct::trampoline::check_alignment()?;
        let gp_counters = gpcount::Counters::register()?;
        let exit_watch = direct::exit::tasks::Watch::new();
        let engine = KBox::pin_init(engine::Engine::new()?, GFP_KERNEL)?;
        // SAFETY: Registers a static notifier block; unregistered in `drop`,
        // or below if the files cannot be made. Until `publish` below it
        // finds no engine, and does nothing.
        kernel::error::to_result(unsafe { bindings::bp_module_notifier_register() })?;
        // If this fails, no write has run (the control file is made last),
        // so no set needs tearing down.
        let dir = match make_files(&engine) {
            Ok(dir) => dir,
            Err(e) => {
                // SAFETY: Registered just above.
                unsafe { bindings::bp_module_notifier_unregister() };
                return Err(e);
            }
        };
        // The debugfs files exist now, and one may be open already: from
        // here on init must not fail (a failed init frees the module
        // whatever its reference count, and an open file's release would
        // run freed code). A device that cannot be made (its name taken,
        // no minor left) leaves debugfs' control file as the way in.
        // SAFETY: The device is dropped (on unload, in `drop`, with no file
        // open) before `engine` is.
        let dev = match unsafe { chardev::ControlDev::new(&engine) } {
            Ok(dev) => Some(dev),
            Err(e) => {
                pr_warn!(
                    "/dev/batchprobe not made ({}): control through debugfs only\n",
                    e.to_errno()
                );
                None
            }
        };
        // SAFETY: `engine` is pinned and outlives the API: `drop`
        // unpublishes it before the engine goes.
        unsafe { engine::publish(&engine) };
        engine.fill_caches();
        pr_info!("loaded\n");
        Ok(BatchProbe {
            dir: Some(dir),
            dev,
            engine,
            _exit_watch: exit_watch,
            _gp_counters: gp_counters,
        })
    }
}

/// The debugfs directory and its files, the control file last (see
/// `bp_debugfs_create_files`): on error nothing is left and no write ran.
fn make_files(engine: &engine::Engine) -> Result<debugfs::Dir> {
    let dir = debugfs::Dir::new(c_str!("batchprobe"))?;
    // SAFETY: `dir` is removed (on unload, in `drop`, or here on error,
    // dropped) before `engine` is dropped.
    unsafe { dir.create_files(engine)? };
    Ok(dir)
}

/// Everything the module's sets and events hold, let go: the module
/// notifier, every set (waited for), the events left in tracefs, the
/// fgraph anchor.
///
/// # Safety
///
/// Once, in process context, with no control file or device left, the
/// notifier registered, and no API call possible (the engine unpublished,
/// or never published).
unsafe fn retire_all(engine: &engine::Engine) {
    // SAFETY: Registered (the caller).
    unsafe { bindings::bp_module_notifier_unregister() };
    // SAFETY: The caller: no write and no API call runs or will.
    unsafe { engine.shutdown() };
    events::tracefs::unload();
    fprobe::release_fgraph_anchor();
}

impl Drop for BatchProbe {
    fn drop(&mut self) {
        // debugfs removal waits for file operations in progress; no file
        // is open on the device (it would hold the module).
        drop(self.dir.take());
        drop(self.dev.take());
        engine::unpublish();
        // SAFETY: Unload, in process context, once; the control files are
        // gone (their removal waited for writes in progress), the notifier
        // was registered in `init`, and no client module is loaded (each
        // holds a reference on this one), so no API call runs.
        unsafe { retire_all(&self.engine) };
        pr_info!("unloaded\n");
    }
}
