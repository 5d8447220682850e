// SPDX-License-Identifier: GPL-2.0

//! What the `batchprobe` command costs over the module's own interface
//! (`make bench-cli`: `DATE-cli-FLAVOR/results.txt`, the guest's
//! `BENCH-CLI NAME [run=R] VALUE [k=v]` lines under `# ` lines saying
//! what they were measured on).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use benchreport::*;

/// One `make bench-cli` run.
pub(crate) struct CliRun {
    pub(crate) name: String,
    pub(crate) flavor: String,
    /// The `# ` lines, without the `# `.
    pub(crate) header: Vec<String>,
    /// Each figure's values, ns, in the order measured.
    pub(crate) values: BTreeMap<String, Vec<u64>>,
    /// Single values: `kernel`, `stats_probes`, and each figure's `k=v`.
    pub(crate) info: BTreeMap<String, String>,
}

/// The run in `dir`.
pub(crate) fn load(dir: &Path, name: &str, flavor: &str) -> Result<CliRun, String> {
    let path = dir.join("results.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut c = CliRun {
        name: name.to_string(),
        flavor: flavor.to_string(),
        header: Vec::new(),
        values: BTreeMap::new(),
        info: BTreeMap::new(),
    };
    for (i, line) in text.lines().enumerate() {
        if let Some(h) = line.strip_prefix("# ") {
            c.header.push(h.to_string());
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.first() != Some(&"BENCH-CLI") || w.len() < 3 {
            continue;
        }
        let bad = || format!("{name}/results.txt:{}: {line}", i + 1);
        if !w[2].starts_with("run=") {
            c.info.insert(w[1].to_string(), w[2..].join(" "));
            continue;
        }
        let v = w.get(3).ok_or_else(bad)?;
        let x: f64 = v.parse().map_err(|_| bad())?;
        let ns = if w[1].ends_with("_ms") {
            (x * 1e6).round()
        } else {
            x
        } as u64;
        c.values.entry(w[1].to_string()).or_default().push(ns);
        for kv in &w[4..] {
            if let Some((k, v)) = kv.split_once('=') {
                c.info.insert(format!("{}.{k}", w[1]), v.to_string());
            }
        }
    }
    if c.values.is_empty() {
        return Err(format!("{name}/results.txt: no BENCH-CLI figures"));
    }
    Ok(c)
}

/// The rows: what, the command's figure, the interface's.
const ROWS: [(&str, &str, &str); 5] = [
    (
        "attach `count '*'` vs the bare control write",
        "attach_cli_ms",
        "attach_bare_ns",
    ),
    (
        "`apply` vs `bpwrite`, whole process",
        "process_apply_ns",
        "process_bpwrite_ns",
    ),
    ("`stats SET` vs `cat stats`", "stats_cli_ns", "stats_cat_ns"),
    (
        "`stats SET --json` vs `cat stats`",
        "stats_json_ns",
        "stats_cat_ns",
    ),
    ("`ls` vs `cat sets`", "ls_cli_ns", "sets_cat_ns"),
];

/// Its section.
pub(crate) fn section(o: &mut String, c: &CliRun) {
    let med = |k: &str| c.values.get(k).and_then(|v| stat(v)).map(|s| s.median);
    let info = |k: &str| c.info.get(k).map_or("?", String::as_str);
    let runs = c.values.get("attach_cli_ms").map_or(0, Vec::len);
    let _ = writeln!(
        o,
        "## The batchprobe command on {}\n\n\
         What the command costs over the module's own interface, the two taking turns in \
         one boot, warm, medians of {runs} runs. Data: \
         [bench/results/{n}/results.txt](bench/results/{n}/results.txt) ({}; {}). Kernel {}; \
         `*` = {} functions. The guest fails the run unless every figure is live: the set's \
         probes counted, `count` seeing the getppid() calls made meanwhile, every probe's row \
         printed.\n\n\
         | what | command (ms) | interface (ms) | command / interface |\n\
         | --- | ---: | ---: | ---: |",
        super::flavor_title(&c.flavor),
        c.header.get(1).map_or("?", String::as_str),
        c.header.get(2).map_or("?", String::as_str),
        info("kernel"),
        info("attach_cli_ms.probes"),
        n = c.name,
    );
    for (label, cmd, bare) in ROWS {
        let (Some(x), Some(y)) = (med(cmd), med(bare)) else {
            continue;
        };
        let _ = writeln!(
            o,
            "| {label} | {} | {} | {:.2}× |",
            fmt_ms(x),
            fmt_ms(y),
            x / y
        );
    }
    if let Some(first) = c.values.get("attach_first_bare_ns").and_then(|v| v.first()) {
        let _ = writeln!(
            o,
            "\nThe boot's first create of the same set (cold, a bare write): {} ms.",
            fmt_ms(*first as f64)
        );
    }
    o.push('\n');
}
