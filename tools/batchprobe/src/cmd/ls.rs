// SPDX-License-Identifier: GPL-2.0

//! `batchprobe ls`: the sets, one a line, from the module's `sets`.

use serde::Serialize;

use super::print_json;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::output::out;
use crate::read::sets::{SetLine, Sets};
use crate::render::table::Table;
use crate::session::owner_pid;

/// A set, and whether a batchprobe command that made it is gone.
#[derive(Debug, Serialize)]
pub struct Listed<'a> {
    #[serde(flatten)]
    pub set: &'a SetLine,
    /// The pid of the batchprobe command that made the set, when that
    /// command no longer runs (killed with SIGKILL): remove the set with
    /// `batchprobe rm`.
    pub orphan_of: Option<u32>,
}

/// The sets, each with whether it was left behind.
pub fn listed<'a>(sets: &'a Sets, running: impl Fn(u32) -> bool) -> Vec<Listed<'a>> {
    sets.sets
        .iter()
        .map(|set| Listed {
            set,
            orphan_of: owner_pid(&set.name).filter(|&pid| !running(pid)),
        })
        .collect()
}

/// The listing as text.
pub fn render(sets: &Sets, listed: &[Listed<'_>]) -> String {
    let mut t = Table::new(&["SET", "STATE", "PROBES", "BACKENDS", "SKIPPED", "HITS"]);
    for l in listed {
        let backends: Vec<String> = l
            .set
            .backends
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(b, n)| format!("{b}={n}"))
            .collect();
        let mut state = l.set.state.clone();
        match (l.set.waiting, l.set.gone) {
            (0, 0) => {}
            (w, 0) => state.push_str(&format!(" ({w} waiting for a module)")),
            (0, g) => state.push_str(&format!(" ({g} gone with a module)")),
            (w, g) => state.push_str(&format!(" ({w} waiting, {g} gone)")),
        }
        if !l.set.holds.is_empty() {
            state.push_str(&format!(" (holds {} loaded)", l.set.holds.join(",")));
        }
        if let Some(pid) = l.orphan_of {
            state.push_str(&format!(
                " (left by batchprobe pid {pid}: batchprobe rm {})",
                l.set.name
            ));
        }
        t.row(vec![
            l.set.name.clone(),
            state,
            l.set.probes().to_string(),
            if backends.is_empty() {
                "-".into()
            } else {
                backends.join(",")
            },
            l.set.skipped.to_string(),
            l.set.hits.to_string(),
        ]);
    }
    let mut out = if t.is_empty() {
        "No sets.\n".to_string()
    } else {
        t.render()
    };
    if sets.staged > 0 {
        out.push_str(&format!(
            "{} probe line(s) staged, not created (a later write's `create SET` registers them)\n",
            sets.staged
        ));
    }
    out
}

/// Runs `batchprobe ls`.
pub fn run(kernel: &Kernel, json: bool) -> Result<()> {
    let sets = kernel.sets()?;
    let running = |pid: u32| kernel.path(&format!("proc/{pid}")).exists();
    let l = listed(&sets, running);
    if json {
        #[derive(Serialize)]
        struct Out<'a> {
            sets: Vec<Listed<'a>>,
            staged: u64,
        }
        return print_json(&Out {
            sets: l,
            staged: sets.staged,
        });
    }
    out(&render(&sets, &l))
}
