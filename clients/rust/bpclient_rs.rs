// SPDX-License-Identifier: GPL-2.0

//! bpclient_rs: a sample in-kernel client of batchprobe, in Rust.
//!
//! Uses the safe wrapper in [`batchprobe_api`] over `include/batchprobe.h`.
//! At load:
//! - the set `bpclient_rs.scoped` (a kprobe, a kretprobe and a direct call
//!   on `version_proc_show`) is created, enabled and dropped again: `Drop`
//!   retires it and waits for its teardown;
//! - the set `bpclient_rs.live`, the same three targets, is created and
//!   enabled, and kept. `cat /proc/version` calls `version_proc_show` once
//!   per read, so each of its targets counts one hit per `cat`;
//! - the set `bpclient_rs.exits`, one entry + exit target
//!   ([`Kind::DirectExit`]) on `cmdline_proc_show`, is created and enabled,
//!   and kept: each `cat /proc/cmdline` is one entry and one return, whose
//!   value (0) and duration its handler checks.
//!
//! batchprobe holds a reference on this module while `live` or `exits`
//! exists, so the module unloads only after both were retired (by
//! batchprobe's debugfs: `unregister bpclient_rs.live`, `unregister
//! bpclient_rs.exits`). On unload it prints what its handler
//! counted per target and what batchprobe counted, which a selftest
//! compares with the number of reads it made.

use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use kernel::c_str;
use kernel::prelude::*;

mod batchprobe_api;

use batchprobe_api::{Handler, Hit, Kind, ProbeSet, Target};

module! {
    type: BpClient,
    name: "bpclient_rs",
    description: "A sample in-kernel client of batchprobe, in Rust",
    license: "GPL",
}

/// The author's modinfo entry, written as `module!` writes its own: 6.12's
/// macro takes `author: ".."` and 7.3's only `authors: [..]`, so neither.
#[cfg(MODULE)]
#[link_section = ".modinfo"]
#[used]
static AUTHOR: [u8; 29] = *b"author=batchprobe developers\0";

const TARGETS: [Target; 3] = [
    Target {
        symbol: c_str!("version_proc_show"),
        kind: Kind::Kprobe,
    },
    Target {
        symbol: c_str!("version_proc_show"),
        kind: Kind::Kretprobe,
    },
    Target {
        symbol: c_str!("version_proc_show"),
        kind: Kind::Direct,
    },
];

const EXIT_TARGETS: [Target; 1] = [Target {
    symbol: c_str!("cmdline_proc_show"),
    kind: Kind::DirectExit,
}];

/// Counts an entry + exit target's entries and returns, and checks each.
struct ExitCounter {
    entries: AtomicU64,
    returns: AtomicU64,
    /// Hits not as the header says: another kind, an entry with a return
    /// value, a return with a value other than 0 or no duration.
    wrong: AtomicU64,
}

impl Handler for ExitCounter {
    fn hit(&self, _index: u32, hit: &Hit<'_>) {
        let ok = hit.kind() == Some(Kind::DirectExit)
            && if hit.is_return() {
                // cmdline_proc_show() returns int 0 (eax: rax's upper half
                // is undefined for an int), after some time.
                hit.return_value().map(|v| v as i32) == Some(0) && hit.duration_ns() > Some(0)
            } else {
                hit.return_value().is_none() && hit.arg0() != 0
            };
        if !ok {
            self.wrong.fetch_add(1, Ordering::Relaxed);
        } else if hit.is_return() {
            self.returns.fetch_add(1, Ordering::Relaxed);
        } else {
            self.entries.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Counts hits per target, and checks each hit's kind and first argument.
struct Counter {
    hits: [AtomicU64; 3],
    /// Hits whose kind was not the target's.
    wrong_kind: AtomicU64,
    /// The first argument (a `struct seq_file *`) of the last kprobe and
    /// direct hits: the same call, so the same value.
    kprobe_arg0: AtomicUsize,
    direct_arg0: AtomicUsize,
}

impl Counter {
    fn new() -> Self {
        Self {
            hits: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
            wrong_kind: AtomicU64::new(0),
            kprobe_arg0: AtomicUsize::new(0),
            direct_arg0: AtomicUsize::new(0),
        }
    }
}

impl Handler for Counter {
    fn hit(&self, index: u32, hit: &Hit<'_>) {
        let Some(target) = TARGETS.get(index as usize) else {
            return;
        };
        if hit.kind() != Some(target.kind) || hit.ip() == 0 {
            self.wrong_kind.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if let Some(h) = self.hits.get(index as usize) {
            h.fetch_add(1, Ordering::Relaxed);
        }
        match target.kind {
            Kind::Kprobe => self.kprobe_arg0.store(hit.arg0(), Ordering::Relaxed),
            Kind::Direct => self.direct_arg0.store(hit.arg0(), Ordering::Relaxed),
            Kind::Kretprobe => {
                // version_proc_show() returns 0.
                if hit.return_value() != Some(0) {
                    self.wrong_kind.fetch_add(1, Ordering::Relaxed);
                }
            }
            Kind::DirectExit => {}
        }
    }
}

struct BpClient {
    live: ProbeSet<Counter>,
    exits: ProbeSet<ExitCounter>,
}

impl kernel::Module for BpClient {
    fn init(module: &'static ThisModule) -> Result<Self> {
        {
            let scoped = ProbeSet::new(module, c_str!("scoped"), &TARGETS, Counter::new())?;
            scoped.enable()?;
            scoped.disable()?;
            // Dropped here: retired, torn down, handler freed.
        }
        pr_info!("set scoped retired by Drop\n");
        let live = ProbeSet::new(module, c_str!("live"), &TARGETS, Counter::new())?;
        live.enable()?;
        pr_info!(
            "bpclient_rs: set live: {} targets, enabled\n",
            TARGETS.len()
        );
        let exits = ProbeSet::new(
            module,
            c_str!("exits"),
            &EXIT_TARGETS,
            ExitCounter {
                entries: AtomicU64::new(0),
                returns: AtomicU64::new(0),
                wrong: AtomicU64::new(0),
            },
        )?;
        exits.enable()?;
        Ok(BpClient { live, exits })
    }
}

impl Drop for BpClient {
    fn drop(&mut self) {
        // Runs only once `live` was retired (batchprobe held this module
        // until its teardown completed): the counts are final.
        let h = self.live.handler();
        let mut counts = [(0u64, 0u64); 3];
        let n = self.live.counts(&mut counts).unwrap_or(0);
        let hits = |i: usize| h.hits.get(i).map_or(0, |a| a.load(Ordering::Relaxed));
        let arg_match =
            h.kprobe_arg0.load(Ordering::Relaxed) == h.direct_arg0.load(Ordering::Relaxed);
        pr_info!(
            "handler kprobe={} kretprobe={} direct={} wrong_kind={} arg0_match={} batchprobe kprobe={} kretprobe={} direct={} (of {})\n",
            hits(0),
            hits(1),
            hits(2),
            h.wrong_kind.load(Ordering::Relaxed),
            arg_match,
            counts[0].0,
            counts[1].0,
            counts[2].0,
            n
        );
        let x = self.exits.handler();
        let mut xc = [(0u64, 0u64); 1];
        let _ = self.exits.counts(&mut xc);
        pr_info!(
            "exits entries={} returns={} wrong={} batchprobe hits={}\n",
            x.entries.load(Ordering::Relaxed),
            x.returns.load(Ordering::Relaxed),
            x.wrong.load(Ordering::Relaxed),
            xc[0].0
        );
    }
}
