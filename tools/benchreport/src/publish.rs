// SPDX-License-Identifier: GPL-2.0

//! `benchreport publish`: BENCHMARKS.md made from the raw results committed
//! under `bench/results/` and nothing else, so that every figure on the page
//! can be traced to its file and made again (`make bench-publish`; the
//! crate's tests check that the committed page is what this makes).
//!
//! A results directory is `DATE-HHMM-FLAVOR/` (`make bench`: `raw.txt`, the
//! guest's BENCH lines, and `meta.txt`, how they were measured; HHMM, UTC,
//! when the run ended) or `DATE-cli-FLAVOR/` (`make bench-cli`:
//! `results.txt`); `-HHMM` may be left out (such a run sorts as its day's
//! last). Names sort in time order: per
//! flavor, each part comes from the latest run that has it; older runs stay
//! as data.

mod checks;
mod cli;
mod kprobes;
mod modules;
mod peers;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use benchreport::*;

use crate::flavor::flavor_text;
use crate::methods::*;
use crate::plot::*;
use crate::tables::*;

/// What `publish` is told: where the results are, where the page and its
/// plots go.
pub(crate) struct PublishArgs {
    pub(crate) results: PathBuf,
    pub(crate) markdown: PathBuf,
    pub(crate) svg_dir: PathBuf,
}

/// One `make bench` run of one flavor, as committed.
pub(crate) struct Run {
    /// The directory's name, `DATE-HHMM-FLAVOR`.
    pub(crate) name: String,
    pub(crate) flavor: String,
    pub(crate) meta: BTreeMap<String, String>,
    pub(crate) b: Bench,
    pub(crate) sum: Summary,
}

impl Run {
    /// A `meta.txt` value, or `?`.
    pub(crate) fn meta(&self, k: &str) -> &str {
        self.meta.get(k).map_or("?", String::as_str)
    }

    /// A `BENCHINFO` value, or `?`.
    pub(crate) fn info(&self, k: &str) -> &str {
        self.b.info.get(k).map_or("?", String::as_str)
    }

    /// The median of `method`'s `phase` at `n` when its run attached what
    /// it was asked to: `Err` says why there is no figure (not run, or
    /// not live: fewer functions attached than N).
    pub(crate) fn live(&self, method: &str, phase: &str, n: u64) -> Result<f64, String> {
        let (s, _, got) = self
            .sum
            .get(&(method.to_string(), phase.to_string(), n))
            .ok_or_else(|| {
                self.b
                    .failed_text(method, n)
                    .unwrap_or_else(|| "–".to_string())
            })?;
        match got {
            Some(g) if *g < n => Err(format!("not live ({g} of {n} attached)")),
            _ => Ok(s.median),
        }
    }

    /// The link to its raw data, from the page at the top of the tree.
    pub(crate) fn raw_link(&self) -> String {
        format!(
            "[bench/results/{0}/raw.txt](bench/results/{0}/raw.txt)",
            self.name
        )
    }
}

/// The directories under `results`, oldest first (their names start with
/// the date).
fn result_dirs(results: &Path) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = std::fs::read_dir(results)
        .map_err(|e| format!("{}: {e}", results.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// `DATE-REST` split at the date (`YYYY-MM-DD`).
fn split_date(name: &str) -> Option<(&str, &str)> {
    let (date, rest) = (name.get(..10)?, name.get(11..)?);
    let ok = name.as_bytes()[10] == b'-'
        && date.bytes().enumerate().all(|(i, c)| match i {
            4 | 7 => c == b'-',
            _ => c.is_ascii_digit(),
        });
    ok.then_some((date, rest))
}

/// `rest` without a leading `HHMM-` (the time a run ended, which sets two
/// runs of one day apart).
fn strip_time(rest: &str) -> &str {
    match rest.split_once('-') {
        Some((t, r)) if t.len() == 4 && t.bytes().all(|c| c.is_ascii_digit()) => r,
        _ => rest,
    }
}

/// `k=v` lines.
fn key_values(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The `make bench` run in `dir` (named `name`).
fn load_run(dir: &Path, name: &str, flavor: &str) -> Result<Run, String> {
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{}/{f}: {e}", dir.display()))
    };
    let b = parse(&read("raw.txt")?).map_err(|e| format!("{name}/raw.txt: {e}"))?;
    if b.samples.is_empty() {
        return Err(format!("{name}/raw.txt: no BENCH samples"));
    }
    Ok(Run {
        name: name.to_string(),
        flavor: flavor.to_string(),
        meta: key_values(&read("meta.txt")?),
        sum: summarise(&b),
        b,
    })
}

/// Each flavor's `make bench` runs, oldest first.
type RunsByFlavor = BTreeMap<String, Vec<Run>>;

/// Every `make bench` run of each flavor, and the latest `make bench-cli`
/// run of each flavor, under `results`.
fn load_all(results: &Path) -> Result<Loaded, String> {
    let mut runs = RunsByFlavor::new();
    let mut clis: BTreeMap<String, String> = BTreeMap::new();
    let mut checks = Vec::new();
    for name in result_dirs(results)? {
        let Some((_, rest)) = split_date(&name).map(|(d, r)| (d, strip_time(r))) else {
            return Err(format!(
                "{}/{name}: not DATE-FLAVOR, DATE-cli-FLAVOR or DATE-check-LABEL",
                results.display()
            ));
        };
        if rest.starts_with("check-") {
            checks.push(checks::load(&results.join(&name), &name)?);
            continue;
        }
        match rest.strip_prefix("cli-") {
            Some(f) => {
                clis.insert(f.to_string(), name.clone());
            }
            None => {
                let r = load_run(&results.join(&name), &name, rest)?;
                runs.entry(rest.to_string()).or_default().push(r);
            }
        }
    }
    let clis = clis
        .iter()
        .map(|(f, name)| cli::load(&results.join(name), name, f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((runs, clis, checks))
}

/// What `bench/results/` holds: `make bench` runs by flavor, `make
/// bench-cli` runs, `make check` times.
type Loaded = (RunsByFlavor, Vec<cli::CliRun>, Vec<checks::CheckRun>);

/// The parts of `make bench` the page shows (`BP_BENCH_ONLY`'s names), each
/// from the latest run of the flavor that ran it and has its figures.
const PARTS: [&str; 3] = ["seed", "peers", "modules"];

/// Whether `r` ran `part` (its `parts=` names it, or is `all`) and has its
/// figures.
fn has_part(r: &Run, part: &str) -> bool {
    let ran = r
        .meta("parts")
        .split_whitespace()
        .any(|p| p == part || p == "all");
    ran && match part {
        "seed" => kprobes::has(r),
        "modules" => modules::has(r),
        _ => peers::has_any(r),
    }
}

/// Writes the page and its plots.
pub(crate) fn publish(a: &PublishArgs) -> Result<(), Box<dyn std::error::Error>> {
    let (runs, clis, checks) = load_all(&a.results)?;
    if runs.is_empty() && clis.is_empty() && checks.is_empty() {
        return Err(format!("{}: no results", a.results.display()).into());
    }
    let mut o = String::new();
    let all_tcg = runs.values().flatten().all(|r| r.meta("accel") == "tcg")
        && clis
            .iter()
            .all(|c| c.header.iter().any(|h| h.contains("QEMU TCG")));
    intro(&mut o, all_tcg);
    let mut plotted = Vec::new();
    for (flavor, runs) in &runs {
        let chosen: Vec<(&str, &Run)> = PARTS
            .iter()
            .filter_map(|p| runs.iter().rev().find(|r| has_part(r, p)).map(|r| (*p, r)))
            .collect();
        if chosen.is_empty() {
            continue;
        }
        flavor_section(&mut o, flavor, &chosen);
        if let Some((_, r)) = chosen.iter().find(|(p, _)| *p == "peers") {
            plotted.push(*r);
        }
    }
    for c in &clis {
        cli::section(&mut o, c);
    }
    checks::section(&mut o, &checks);
    plots(&mut o, &plotted, &a.svg_dir)?;
    std::fs::write(&a.markdown, o.trim_end().to_string() + "\n")?;
    Ok(())
}

/// The page's title and how to read it (`all_tcg`: every run's guest ran
/// under QEMU TCG).
fn intro(o: &mut String, all_tcg: bool) {
    let _ = writeln!(
        o,
        "# batchprobe benchmarks\n\n\
         Every figure on this page is computed by `tools/benchreport` from the raw files \
         under [bench/results/](bench/results/), each named with its table: \
         `make bench-publish` makes this page from them alone, and the crate's tests check \
         that it is what they make. `make bench`, `make bench-stock` and `make bench-cli` \
         add a run and republish. What each method does and how it is timed: \
         [docs/benchmarks.md](docs/benchmarks.md).\n\n\
         {} Under TCG a text patch \
         costs about as much as a grace period and everything is tens of times slower: \
         compare the ratios within one table (one boot, the methods taking turns on the \
         same functions), not milliseconds with another run or another machine. Times are \
         medians, with [min–max] where runs differ. *Warm*: the module was loaded and had \
         made sets before in the boot. *Cold*: `insmod` then the first create, which \
         builds the tables the module keeps (the kernel's text, the name index, the call \
         sites, BTF). A figure is shown only where its probes were live: a run that \
         attached fewer functions than asked says so instead.\n",
        if all_tcg {
            "**Every figure is from QEMU TCG, none from hardware.**"
        } else {
            "**Each run says how its guest ran: QEMU TCG, or KVM on the host it names.**"
        }
    );
}

/// One flavor: what it is, then each part from the run `chosen` for it,
/// with where its data is.
fn flavor_section(o: &mut String, flavor: &str, chosen: &[(&str, &Run)]) {
    let _ = writeln!(
        o,
        "## {}\n\n{}.\n",
        flavor_title(flavor),
        capitalized(flavor_text(flavor).trim_end_matches('.'))
    );
    let one_run = chosen.iter().all(|(_, r)| r.name == chosen[0].1.name);
    for (i, (part, r)) in chosen.iter().enumerate() {
        if one_run && i > 0 {
            part_section(o, part, r);
            continue;
        }
        let _ = writeln!(
            o,
            "Data{}: {} (measured {}; commit {}, kernel {}, {}, {} vCPUs; host: {}, {} \
             CPUs, {} boot(s) at once).\n",
            match (one_run, *part) {
                (true, _) => "",
                (false, "seed") => " of the kprobe table",
                (false, "modules") => " of the module table",
                (false, _) => " of the BPF peers' tables",
            },
            r.raw_link(),
            r.meta("date"),
            r.meta("commit"),
            r.info("kernel"),
            match r.meta("accel") {
                "tcg" => format!("QEMU TCG thread={}", r.meta("tcg_thread")),
                a => format!("QEMU {}", a.to_uppercase()),
            },
            r.meta("vcpus"),
            r.meta("host_cpu"),
            r.meta("host_cpus"),
            r.meta("boots_at_once"),
        );
        if let Some(note) = r.meta.get("note") {
            let _ = writeln!(o, "{note}\n");
        }
        for p in &r.b.parts_failed {
            let _ = writeln!(o, "Did not run in this boot: {p}.\n");
        }
        part_section(o, part, r);
    }
}

/// The tables of `part` from `r`.
fn part_section(o: &mut String, part: &str, r: &Run) {
    match part {
        "seed" => kprobes::section(o, r),
        "modules" => modules::section(o, r),
        _ => {
            peers::entry(o, r);
            peers::exit(o, r);
            peers::per_call(o, r);
        }
    }
}

/// `text` with its first letter in capitals.
fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// A flavor's heading.
pub(crate) fn flavor_title(flavor: &str) -> String {
    match flavor {
        "stock-7.3" => "Debian's 7.3 image (stock-7.3)".into(),
        f => format!("The `{f}` kernel"),
    }
}

/// The plots, one per run and comparison, into `svg_dir` (`docs/bench/`),
/// and the page's list of them.
fn plots(o: &mut String, runs: &[&Run], svg_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut made = Vec::new();
    for r in runs {
        let f = &r.flavor;
        for (file, methods, title) in [
            (
                format!("peers-entry-{f}.svg"),
                &PEER_ENTRY_METHODS[..],
                format!(
                    "{f}: entry only, batchprobe vs kprobe_multi: µs per function vs N (log-log)"
                ),
            ),
            (
                format!("peers-exit-{f}.svg"),
                &PEER_EXIT_PLOTTED_METHODS[..],
                format!("{f}: entry + exit, batchprobe vs BPF: µs per function vs N (log-log)"),
            ),
        ] {
            if plotted_sizes(&r.sum, &r.b, methods, &PEER_PLOTTED).len() < 2 {
                continue;
            }
            std::fs::create_dir_all(svg_dir)?;
            plot(
                &r.sum,
                &r.b,
                (methods, &PEER_PLOTTED),
                Scale::PerFunction,
                &title,
                &svg_dir.join(&file),
            )?;
            made.push((file, title));
        }
    }
    if !made.is_empty() {
        let _ = writeln!(o, "## Plots\n");
        for (file, title) in made {
            let _ = writeln!(o, "![{title}](docs/bench/{file})\n");
        }
    }
    Ok(())
}
