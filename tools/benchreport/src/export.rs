// SPDX-License-Identifier: GPL-2.0

//! The machine-readable results: CSV and JSON.

use std::fmt::Write as _;

use benchreport::*;

use crate::tables::*;
use crate::Args;

pub(crate) fn csv(sum: &Summary) -> String {
    let mut o = String::from("method,phase,n,median_ns,min_ns,max_ns,runs,offset,got\n");
    for ((m, p, n), (s, off, got)) in sum {
        let _ = writeln!(
            o,
            "{m},{p},{n},{},{},{},{},{},{}",
            s.median,
            s.min,
            s.max,
            s.runs,
            off.map(|v| v.to_string()).unwrap_or_default(),
            got.map(|v| v.to_string()).unwrap_or_default()
        );
    }
    o
}

pub(crate) fn json(b: &Bench, sum: &Summary, a: &Args) -> serde_json::Value {
    let rows: Vec<_> = sum
        .iter()
        .map(|((m, p, n), (s, off, got))| {
            serde_json::json!({
                "method": m, "phase": p, "n": n, "median_ns": s.median,
                "min_ns": s.min, "max_ns": s.max, "runs": s.runs,
                "offset": off, "got": got,
            })
        })
        .collect();
    let over: Vec<_> = b
        .over_budget
        .iter()
        .map(|x| serde_json::json!({"method": x.method, "n": x.n, "projected_s": x.projected_s}))
        .collect();
    serde_json::json!({
        "date": a.date, "accel": a.accel, "info": b.info,
        "results": rows, "over_budget": over,
    })
}
