// SPDX-License-Identifier: GPL-2.0

//! What `create SET [--OPTION]...` asks for ([`CreateOptions`]), and which
//! probes get a trace event ([`Events`]). Pure, as its parent.

/// Options of `create`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CreateOptions {
    /// Kprobes that the kernel never optimizes (they get a post handler).
    pub noopt: bool,
    /// Tear down with one unregister call per probe instead of one per batch.
    pub one_by_one: bool,
    /// Handlers that do nothing (not even count): the bare kprobe cost.
    pub bare: bool,
    /// Attach the `d:` functions with an fprobe instead of direct calls.
    pub fprobe: bool,
    /// Attach the `d:` functions with the entry + exit trampoline (direct
    /// mode `exit`), keeping only the functions it can call.
    pub exit: bool,
    /// Which probes get a trace event, in tracefs (`events/SET/EVENT/`),
    /// that the probe writes records to while the set is enabled.
    pub events: Events,
    /// With `exit`: a log2 histogram of each function's call durations
    /// (`src/aggregate.rs`).
    pub hist: bool,
    /// With `exit`: each function's error returns counted by errno.
    pub errors: bool,
    /// With `exit`: each call's duration is measured, for the histogram
    /// (`hist` implies it) or an API client's return handler (an API
    /// set's `BATCHPROBE_DIRECT_EXIT` targets). No command word.
    pub timed: bool,
}

impl CreateOptions {
    /// Which probes get an event: none with `--bare` (its handlers do
    /// nothing, records included).
    pub fn events(&self) -> Events {
        if self.bare {
            Events::Off
        } else {
            self.events
        }
    }
}

/// Which probes of a set get a trace event (`create`'s `--events`,
/// `--no-events`, or neither).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Events {
    /// Neither option: what `kprobe_events` would make of the lines. A
    /// `p:` or `r:` probe named on a line of its own (a symbol, an
    /// address: every `kprobe_events` line is one), and every probe of a
    /// line with fetch arguments, gets one; a glob's members without
    /// arguments get none (batchprobe's own form for thousands of
    /// functions: counted, at no event's cost). `d:` probes likewise.
    #[default]
    Lines,
    /// `--events`: every probe.
    All,
    /// `--no-events`: none (and a line with fetch arguments is refused).
    Off,
}
