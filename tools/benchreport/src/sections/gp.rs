// SPDX-License-Identifier: GPL-2.0

//! Grace periods per phase: the RCU, RCU-tasks and RCU-tasks-rude counts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::tables::*;

pub(crate) type GpSummary = BTreeMap<Key, [Option<Stat>; 3]>;

/// `rcu/rcu_tasks/rcu_tasks_rude` medians of one row, or `None`.
pub(crate) fn gp_cell(gp: &GpSummary, method: &str, phase: &str, n: u64) -> Option<String> {
    gp.get(&(method.to_string(), phase.to_string(), n))
        .map(|k| format!("{}/{}/{}", fmt_gp(k[0]), fmt_gp(k[1]), fmt_gp(k[2])))
}

/// The most RCU-tasks grace periods (both kinds) any run of a row waited for.
pub(crate) fn tasks_gps_max(gp: &GpSummary, method: &str, phase: &str, n: u64) -> Option<u64> {
    let k = gp.get(&(method.to_string(), phase.to_string(), n))?;
    Some(k[1].map_or(0, |s| s.max) + k[2].map_or(0, |s| s.max))
}

/// The grace periods each phase waited for, from the module's own counters.
pub(crate) fn gp_section(o: &mut String, gp: &GpSummary) {
    let methods: Vec<&str> = METHODS
        .iter()
        .chain(DIRECT_METHODS.iter())
        .chain(ENTRY_METHODS.iter())
        .chain(EXIT_METHODS.iter())
        .copied()
        .filter(|m| gp.keys().any(|k| k.0 == *m))
        .collect();
    if methods.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## Grace periods per phase\n\nCounted by the module itself (`stats`, \
         `grace_periods`): kprobes on `synchronize_rcu` (expedited or not), \
         `synchronize_rcu_tasks` and `synchronize_rcu_tasks_rude` count every wait that \
         starts while the phase runs, by any task (a kprobe optimizer pass the phase is stuck \
         behind included). Cells are `rcu/rcu_tasks/rcu_tasks_rude`, the median per run \
         ([min–max] where runs differ); `-`: the kernel has no such kind (non-preemptible: \
         `synchronize_rcu_tasks()` is `synchronize_rcu()`).\n"
    );
    let phases = ["register", "enable", "disarm", "teardown", "detach"];
    let ns: Vec<u64> = gp
        .keys()
        .map(|k| k.2)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    table(
        o,
        "Grace periods waited for: rcu/rcu_tasks/rcu_tasks_rude",
        &ns,
        (&methods, &phases),
        |m, p, n| gp_cell(gp, m, p, n).is_some(),
        |m, p, n| gp_cell(gp, m, p, n).unwrap_or_else(|| "–".into()),
    );
}
