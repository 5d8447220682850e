// SPDX-License-Identifier: GPL-2.0

//! What a command that makes sets owns while it runs, and gives back on
//! every way out: the signals that stop it (`stop`), its sets
//! (unregistered when the owner drops them: at the end, on an error, or
//! after Ctrl-C, SIGTERM or SIGHUP: `sets`), and its tracefs instance
//! (`instance`). A set left by `kill -9` stays: `batchprobe ls` shows
//! whose it was (for `count` and `latency`, named after their pid),
//! `batchprobe rm` removes it.

pub mod instance;
pub mod sets;
pub mod stop;

pub use instance::Instance;
pub use sets::OwnedSets;
pub use stop::Stop;

/// The commands whose sets are named after their pid: `PREFIX_PID`.
const OWN_PREFIXES: [&str; 2] = ["bpcount", "bplatency"];

/// A set name of this process's own: `PREFIX_PID`.
pub fn own_name(prefix: &str) -> String {
    debug_assert!(OWN_PREFIXES.contains(&prefix));
    format!("{prefix}_{}", std::process::id())
}

/// The pid in a name [`own_name`] made, if `name` is one.
pub fn owner_pid(name: &str) -> Option<u32> {
    let (prefix, pid) = name.rsplit_once('_')?;
    OWN_PREFIXES.contains(&prefix).then_some(())?;
    pid.parse().ok()
}
