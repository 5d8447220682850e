// SPDX-License-Identifier: GPL-2.0

//! ftrace-direct: one ops per function against one direct set.

use std::fmt::Write as _;

use benchreport::*;

use crate::methods::*;
use crate::sections::gp::*;
use crate::tables::*;

/// Writes the direct-call section: what each way is, its tables and goals.
pub(crate) fn direct_section(o: &mut String, b: &Bench, sum: &Summary, gp: &GpSummary) {
    if !sum.keys().any(|k| DIRECT_METHODS.contains(&k.0.as_str())) {
        return;
    }
    let _ = writeln!(
        o,
        "## ftrace-direct calls\n\nThe first N ftrace-able text functions (`d:SET/ * max=N`). `direct` \
         is one batchprobe set: one `ftrace_ops`, one `ftrace_set_filter_ips`, one \
         `register_ftrace_direct` (one patching pass) for all N; `direct-ops-per-function` \
         attaches the same functions with one ops (and one patching pass) each; `fprobe` uses \
         `register_fprobe_ips` on the same functions. `register` includes walking the kernel's \
         symbols and checking each function; `attach` is the ftrace part alone; `detach` the \
         unregistration, which waits for RCU-tasks grace periods. The largest N is every \
         function ftrace can trace; `direct` and `fprobe` runs alternate. `make \
         profile-direct` shows how much of an attach is the kernel's text patching \
         (`text_poke_bp_batch`).\n"
    );
    phase_table(
        o,
        b,
        sum,
        "Direct-call phase times, ms: median [min–max]",
        &DIRECT_METHODS,
        &DIRECT_PHASES,
    );
    speedup_table(
        o,
        b,
        sum,
        "Direct-call speed-up over one ops per function (its median / method median)",
        "direct-ops-per-function",
        &DIRECT_METHODS[1..],
        &DIRECT_PHASES,
        |_, p| Some(p),
    );
    direct_goals(o, sum, gp);
    o.push('\n');
}

/// Writes the goals at N = 1000, those measured.
fn direct_goals(o: &mut String, sum: &Summary, gp: &GpSummary) {
    let dir = median(sum, "direct", "attach", 1000);
    let fp = median(sum, "fprobe", "attach", 1000);
    let _ = writeln!(o, "Goals at N = 1000:\n");
    ops_goal(o, sum, dir);
    if let (Some(f), Some(d)) = (fp, dir) {
        let _ = writeln!(
            o,
            "- attach no slower than fprobe: direct {} ms vs fprobe {} ms ({}).",
            fmt_ms(d),
            fmt_ms(f),
            if d <= f { "met" } else { "not met" }
        );
    }
    if let Some(t) = tasks_gps_max(gp, "direct", "detach", 1000) {
        let _ = writeln!(
            o,
            "- detach waits for ≤ 2 RCU-tasks grace periods (`rcu_tasks` + `rcu_tasks_rude`, \
             the most of any run): **{t}** ({}); all kinds, median: {}.",
            if t <= 2 { "met" } else { "not met" },
            gp_cell(gp, "direct", "detach", 1000).unwrap_or_default()
        );
    }
}

/// Writes the goal of attaching 100× faster than one ops per function
/// (projected when that was over budget), given `direct`'s attach `dir`.
fn ops_goal(o: &mut String, sum: &Summary, dir: Option<f64>) {
    let ops = median(sum, "direct-ops-per-function", "attach", 1000);
    match (ops, dir) {
        (Some(ops), Some(d)) => {
            let r = ops / d;
            let _ = writeln!(
                o,
                "- attach ≥ 100× faster than one ops per function: **{r:.0}×** ({}).",
                if r >= 100.0 { "met" } else { "not met" }
            );
        }
        (None, Some(d)) => {
            // One ops per function was over budget at 1000: project from
            // its per-function cost at the largest N it ran.
            let per = sum
                .iter()
                .filter(|(k, _)| k.0 == "direct-ops-per-function" && k.1 == "attach")
                .max_by_key(|(k, _)| k.2)
                .map(|(k, (s, _, _))| (k.2, s.median / k.2 as f64));
            if let Some((n, per)) = per {
                let r = per * 1000.0 / d;
                // A projection is no measurement: no verdict on it.
                let _ = writeln!(
                    o,
                    "- attach ≥ 100× faster than one ops per function: not measured (one ops \
                     per function was over budget at 1000); projected from its per-function \
                     cost at N = {n}: {r:.0}× (no verdict)."
                );
            }
        }
        _ => {}
    }
}
