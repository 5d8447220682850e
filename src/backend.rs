// SPDX-License-Identifier: GPL-2.0

//! Backends: the kernel mechanisms that serve a set's probes.
//!
//! The user names *what* to probe (`p:`, `r:`, `d:` lines, or API targets);
//! each target is handed to the backend that serves it best:
//!
//! | backend     | serves                                        | batch cost            |
//! |-------------|-----------------------------------------------|-----------------------|
//! | [`fprobe`]  | `p:` at +0, `r:`, on ftrace-able core text     | one ops, one patching pass per arm/disarm |
//! | [`kprobe`]  | any other `p:`, and `p!:`                      | one int3 (or ftrace filter update) per probe |
//! | [`kretprobe`] | any other `r:`, and `r!:`                    | as kprobe             |
//! | [`direct`]  | `d:`                                          | one ops, one patching pass at create |
//!
//! This file is the contract alone. A set holds one instance of every
//! backend (the list is the set's, in `set/backends.rs`); most stay empty.
//! Each implements [`SetBackend`]: build from targets, attach what
//! attaches at create, arm all, disarm all, retire in one batch, and
//! per-target counts. Adding a backend means one file implementing the
//! trait and one line in the set's list.
//!
//! [`fprobe`]: crate::fprobe
//! [`kprobe`]: crate::probe::kprobe
//! [`kretprobe`]: crate::probe::kretprobe
//! [`direct`]: crate::direct

use core::fmt::Write;

use kernel::prelude::*;
use kernel::sync::Arc;

use crate::aggregate::Summarize;
use crate::command::{CreateOptions, ProbeKind};
use crate::error::{Failed, LineRef};
use crate::events::program::FetchProgram;
use crate::events::tracefs::EventSlot;
use crate::gate::Gate;
use crate::locked::Locked;
use crate::retpool::Machine;

/// One probe target, as the set builder hands it to a backend.
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    pub(crate) kind: ProbeKind,
    /// `p!:`/`r!:` or an API target: int3 kprobes only.
    pub(crate) int3: bool,
    pub(crate) symbol: &'a [u8],
    /// The probe's name; `None`: named after the symbol.
    pub(crate) name: Option<&'a [u8]>,
    pub(crate) offset: u32,
    /// Named on a line of its own (or by an API client), not a glob
    /// member: a refusal fails the set instead of skipping the target.
    pub(crate) explicit: bool,
    /// The symbol's address and size when known (a walk of the kernel's
    /// text symbols found it); kprobes resolve names themselves.
    pub(crate) text: Option<(usize, usize)>,
    /// Where ftrace calls the function at `text`'s address, when the set's
    /// builder knew ([`crate::ftrace::CallSites`]; `Some(None)`: ftrace
    /// cannot); `None`: ftrace is asked.
    pub(crate) site: Option<Option<usize>>,
    /// The target's index in an API client's array (0 otherwise).
    pub(crate) index: u32,
    /// An address to probe instead of the symbol (API targets; 0: none).
    pub(crate) addr: usize,
    /// The control line that named it (`None`: an API target).
    pub(crate) line: Option<LineRef<'a>>,
    /// The line's fetch arguments, compiled (`None`: none).
    pub(crate) args: Option<&'a Arc<FetchProgram>>,
    /// Its set is made with `--exit`: a `d:` probe's records are return
    /// records.
    pub(crate) exit: bool,
    /// For a glob member whose name an earlier symbol also has, that
    /// symbol's address and size: the kernel, resolving the name, probes
    /// that one instead (set by the builder, which has the walked symbols,
    /// where it matters: see [`crate::probe::Post`]).
    pub(crate) shadowed_by: Option<(usize, usize)>,
}

/// A target that owns its symbol: an API client's, copied out of its
/// array and validated ([`Target`] is its borrowed view).
pub(crate) struct OwnedTarget {
    pub(crate) kind: ProbeKind,
    /// The symbol: as given, or the one containing `addr`.
    pub(crate) symbol: KVec<u8>,
    pub(crate) offset: u32,
    /// An address target (0: by symbol).
    pub(crate) addr: usize,
    /// For an address target: the start and size of its symbol.
    pub(crate) text: Option<(usize, usize)>,
    pub(crate) index: u32,
}

impl OwnedTarget {
    /// As a backend target: API targets are always explicit, and kprobe
    /// targets always int3 kprobes (the header's contract: a client's
    /// handler gets what a kprobe handler gets).
    pub(crate) fn target(&self, text: Option<(usize, usize)>, addr: usize) -> Target<'_> {
        Target {
            kind: self.kind,
            int3: true,
            symbol: &self.symbol,
            name: None,
            offset: self.offset,
            explicit: true,
            text,
            site: None,
            index: self.index,
            addr,
            line: None,
            args: None,
            exit: false,
            shadowed_by: None,
        }
    }
}

/// What every backend of a set shares while building it.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// The set's enable gate, which outlives every slot that points to it.
    pub(crate) gate: *const Gate,
    pub(crate) options: CreateOptions,
    /// Building runs under the registry lock.
    pub(crate) locked: Locked<'a>,
}

/// How well a backend fits a target.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Fit {
    /// It cannot serve the target.
    No,
    /// It can, if no backend fits better.
    Fallback,
    /// It is the cheapest for the target.
    Best,
}

/// What a backend's [`SetBackend::fit`] found out about a target on the
/// way, handed to its [`SetBackend::add`] if it is the one that serves the
/// target: `add` does not ask the kernel again.
#[derive(Clone, Copy, Default)]
pub(crate) struct Found {
    /// The function's ftrace call site, when `fit` asked ftrace.
    pub(crate) call_site: Option<usize>,
}

/// A target the kernel (or a backend) refused.
#[derive(Clone, Copy)]
pub(crate) struct Refused {
    pub(crate) error: Error,
    /// What was wrong, in words, without the errno ("unknown symbol", "not
    /// ftrace-able (no fentry call site)": see [`crate::errtext::refusal`]).
    pub(crate) what: &'static str,
}

/// What [`SetBackend::add`] did with a target.
pub(crate) enum Added {
    /// Taken.
    Yes,
    /// Already in the set from a line of its own: not counted again.
    Already,
    /// Refused.
    Refused(Refused),
}

impl Added {
    /// Refused with `error`, `what` saying why.
    pub(crate) fn refused(error: Error, what: &'static str) -> Self {
        Added::Refused(Refused { error, what })
    }
}

/// A module coming (the module notifier's `MODULE_STATE_COMING`), as a
/// set's backends are told of it ([`SetBackend::module_coming`]).
pub(crate) struct Coming<'a> {
    /// The registry lock, held for the whole call.
    pub(crate) locked: Locked<'a>,
    /// The set's name, for the kernel log.
    pub(crate) set: &'a [u8],
    /// The module's name.
    pub(crate) module: &'a [u8],
    /// The set is enabled: what is registered is armed too.
    pub(crate) enabled: bool,
}

/// One probe of a set, as listings and per-target counts see it.
pub(crate) struct ProbeView<'a> {
    /// The first word of its `stats` line: the backend that serves it.
    pub(crate) kind: &'static str,
    pub(crate) name: &'a [u8],
    pub(crate) symbol: &'a [u8],
    pub(crate) offset: u32,
    pub(crate) hits: u64,
    pub(crate) missed: u64,
    /// The target's index (API sets).
    pub(crate) index: u32,
    /// Direct calls in record mode: the last first argument.
    pub(crate) last_arg: Option<u64>,
    /// Direct calls in exit mode: returns counted, and the last return value.
    pub(crate) exit: Option<(u64, u64)>,
    /// Its trace event's slot, for a probe that can have one (`p:`, `r:`).
    pub(crate) event: Option<&'a EventSlot>,
    /// Direct calls of a set made with `--hist` or `--errors`: its
    /// durations and error returns, summed over the CPUs when shown.
    pub(crate) aggregate: Option<&'a dyn Summarize>,
    /// `waiting` (a `MOD:SYM` probe whose module is not loaded), `gone`
    /// (its module was unloaded), or neither (`None`).
    pub(crate) state: Option<&'static str>,
}

/// A kernel probe mechanism serving some of a set's probes.
///
/// Calls come in this order: [`add`](SetBackend::add) per target and
/// [`attach`](SetBackend::attach) once, under the registry lock, while the
/// set is built; then, serialised by the set's state machine,
/// [`arm`](SetBackend::arm) and [`disarm`](SetBackend::disarm) any number
/// of times; then [`retire`](SetBackend::retire) once (also after a failed
/// build). Handlers count into per-probe counters and check the set's gate.
pub(crate) trait SetBackend: Send + Sync {
    /// The backend's name, as `stats` lines show it.
    fn name(&self) -> &'static str;

    /// How well this backend serves `t`, and what it found out on the
    /// way (for its `add`, if it serves `t`).
    fn fit(&self, ctx: &Ctx<'_>, t: &Target<'_>) -> (Fit, Found);

    /// Takes `t` (registering it disarmed, or noting it for `attach` or
    /// `arm`), with what its `fit` found. `Err` only for what fails the
    /// whole set (out of memory).
    fn add(&mut self, ctx: &Ctx<'_>, t: &Target<'_>, found: Found) -> Result<Added, Failed>;

    /// After the last `add`: attaches what attaches at create (one batch).
    /// Calls `skip(symbol, error)` for glob members it had to leave out.
    fn attach(&mut self, skip: &mut dyn FnMut(&[u8], Error)) -> Result<(), Failed>;

    /// Arms every probe. All or nothing: on failure nothing it armed stays
    /// armed, and the error names the probe. Runs under the registry lock,
    /// as `sets` and `stats` readers do.
    fn arm(&self) -> Result<(), Failed>;

    /// Disarms every probe.
    fn disarm(&self);

    /// Unregisters every probe in one batch (`one_by_one`: the naive
    /// baseline, one call per probe). Returns `false` if the kernel
    /// refused to let go, so that the backend's memory must stay.
    fn retire(&self, one_by_one: bool) -> bool;

    /// Whether it attaches through ftrace (its retire is timed as `detach`).
    fn ftrace_based(&self) -> bool;

    /// Calls `f` with each `(field, count)` of the `sets` line.
    fn tally(&self, f: &mut dyn FnMut(&'static str, usize));

    /// Calls `f` for every probe from the `from`-th on, for as long as it
    /// returns `true`. The order is fixed once the set is built, so a
    /// listing can stop and go on later where it stopped.
    fn each_from(&self, from: usize, f: &mut dyn FnMut(&ProbeView<'_>) -> bool);

    /// Calls `f` for every probe.
    fn each(&self, f: &mut dyn FnMut(&ProbeView<'_>)) {
        self.each_from(0, &mut |v| {
            f(v);
            true
        });
    }

    /// How many probes it has: its [`tally`](SetBackend::tally) summed.
    fn probes(&self) -> usize {
        let mut n = 0usize;
        self.tally(&mut |_, c| n = n.saturating_add(c));
        n
    }

    /// The bytes of return-instance pool that taking `t` would add to the
    /// set on machine `m` (see [`crate::retpool`]): 0 for what has no
    /// pool. Asked before [`add`](SetBackend::add), under the same lock.
    fn return_pool_cost(&self, _t: &Target<'_>, _m: Machine) -> usize {
        0
    }

    /// Whether it has probes that [`SetBackend::module_coming`] registers
    /// when `module` comes (`MOD:SYM` lines' probes on it).
    fn on_module(&self, _module: &[u8]) -> bool {
        false
    }

    /// A module is coming (see [`Coming`]): registers the probes that
    /// wait for it or went with its last unload, and arms them if the set
    /// is enabled.
    ///
    /// # Safety
    ///
    /// The set is live, its queued disarm has run, and the caller holds
    /// the registry lock (`c.locked`) for the whole call, so that no
    /// retire, enable, disable or disarm of the set runs meanwhile.
    unsafe fn module_coming(&self, _c: &Coming<'_>) {}

    /// Hits missed that no single probe can be charged with.
    fn missed_unattributed(&self) -> u64 {
        0
    }

    /// Extra `stats` lines (after the probes).
    fn write_extra(&self, _w: &mut dyn Write) -> core::fmt::Result {
        Ok(())
    }
}
