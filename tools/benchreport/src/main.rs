// SPDX-License-Identifier: GPL-2.0

//! benchreport: batchprobe's benchmark lines → Markdown table (stdout and
//! BENCHMARKS.md), CSV, JSON and an SVG plot (time vs N, log-log).
//!
//! Usage: benchreport --input [FLAVOR=]RAW [--input FLAVOR=RAW ...] --out-dir DIR
//!                    --accel 'tcg thread=single'|kvm --date D [--markdown FILE] [--svg-dir DIR]
//!                    [--note TEXT]
//!        benchreport publish --results bench/results --markdown BENCHMARKS.md
//!                    --svg-dir docs/bench
//!
//! One `--input` per kernel flavor, each the raw output of one boot: the
//! report puts the flavors' key figures side by side, then each flavor's
//! tables; plots and CSV/JSON are per flavor (`bench-FLAVOR.svg`, ...).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchreport::*;

mod document;
mod export;
mod flavor;
mod methods;
mod plot;
mod publish;
mod sections;
mod tables;

use crate::document::*;
use crate::export::*;
use crate::methods::*;
use crate::plot::*;
use crate::tables::*;

pub(crate) struct Args {
    pub(crate) inputs: Vec<(String, PathBuf)>,
    pub(crate) out_dir: PathBuf,
    pub(crate) accel: String,
    pub(crate) date: String,
    pub(crate) markdown: Option<PathBuf>,
    pub(crate) svg_dir: Option<PathBuf>,
    /// How the boots were run, when it matters (`--note`).
    pub(crate) note: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut a = std::env::args().skip(1);
    let mut m = BTreeMap::new();
    let mut inputs = Vec::new();
    while let Some(k) = a.next() {
        let v = a.next().ok_or_else(|| format!("{k} needs a value"))?;
        if k == "--input" {
            inputs.push(match v.split_once('=') {
                Some((f, path)) => (f.to_string(), PathBuf::from(path)),
                None => ("bench".to_string(), PathBuf::from(v)),
            });
            continue;
        }
        m.insert(k, v);
    }
    if inputs.is_empty() {
        return Err("missing --input".into());
    }
    let take = |m: &mut BTreeMap<String, String>, k: &str| m.remove(k);
    let need = |m: &mut BTreeMap<String, String>, k: &str| take(m, k).ok_or(format!("missing {k}"));
    let args = Args {
        inputs,
        out_dir: need(&mut m, "--out-dir")?.into(),
        accel: need(&mut m, "--accel")?,
        date: need(&mut m, "--date")?,
        markdown: take(&mut m, "--markdown").map(Into::into),
        svg_dir: take(&mut m, "--svg-dir").map(Into::into),
        note: take(&mut m, "--note"),
    };
    if let Some(k) = m.keys().next() {
        return Err(format!("unknown option {k}"));
    }
    Ok(args)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("benchreport: {e}");
        std::process::exit(1);
    }
}

/// `publish --results DIR --markdown FILE --svg-dir DIR`'s arguments.
fn publish_args() -> Result<publish::PublishArgs, String> {
    let mut a = std::env::args().skip(2);
    let (mut results, mut markdown, mut svg_dir) = (None, None, None);
    while let Some(k) = a.next() {
        let v = a.next().ok_or_else(|| format!("{k} needs a value"))?;
        match k.as_str() {
            "--results" => results = Some(v.into()),
            "--markdown" => markdown = Some(v.into()),
            "--svg-dir" => svg_dir = Some(v.into()),
            _ => return Err(format!("publish: unknown option {k}")),
        }
    }
    Ok(publish::PublishArgs {
        results: results.ok_or("publish: missing --results")?,
        markdown: markdown.ok_or("publish: missing --markdown")?,
        svg_dir: svg_dir.ok_or("publish: missing --svg-dir")?,
    })
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some("publish") {
        return publish::publish(&publish_args()?);
    }
    let a = args()?;
    let mut flavors = Vec::new();
    for (name, path) in &a.inputs {
        flavors.push(load_flavor(name, path, &a)?);
    }
    let md = document(&flavors, &a);
    if let Some(path) = &a.markdown {
        std::fs::write(path, &md)?;
    }
    print!("{md}");
    Ok(())
}

/// The flavor `name` parsed from `path`, its CSV, JSON and plots written.
fn load_flavor(name: &str, path: &Path, a: &Args) -> Result<Flavor, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let b = parse(&text)?;
    if b.samples.is_empty() {
        return Err(format!("{}: no BENCH samples", path.display()).into());
    }
    let sum = summarise(&b);
    let gp = summarise_gp(&b);
    let dir = a.out_dir.join(name);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("results.csv"), csv(&sum))?;
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_string_pretty(&json(&b, &sum, a))?,
    )?;
    plots(name, &dir, &b, &sum, a)?;
    Ok(Flavor {
        name: name.to_string(),
        b,
        sum,
        gp,
    })
}

/// Writes the flavor `name`'s plots into `dir` (and `--svg-dir`).
fn plots(
    name: &str,
    dir: &Path,
    b: &Bench,
    sum: &Summary,
    a: &Args,
) -> Result<(), Box<dyn std::error::Error>> {
    let plots = [
        (
            format!("bench-{name}.svg"),
            &METHODS[..],
            &PLOTTED[..],
            Scale::Total,
            format!(
                "{name}: kprobes, batchprobe vs tracefs: phase time vs number of probes (log-log)"
            ),
        ),
        (
            format!("bench-direct-{name}.svg"),
            &DIRECT_METHODS[..],
            &DIRECT_PLOTTED[..],
            Scale::Total,
            format!("{name}: ftrace-direct: attach / detach time vs number of functions (log-log)"),
        ),
        (
            format!("bench-peers-{name}.svg"),
            &PEER_ENTRY_METHODS[..],
            &PEER_PLOTTED[..],
            Scale::PerFunction,
            format!(
                "{name}: entry only, batchprobe vs kprobe_multi: µs per function vs N (log-log)"
            ),
        ),
        (
            format!("bench-peers-exit-{name}.svg"),
            &PEER_EXIT_PLOTTED_METHODS[..],
            &PEER_PLOTTED[..],
            Scale::PerFunction,
            format!("{name}: entry + exit, batchprobe vs BPF: µs per function vs N (log-log)"),
        ),
    ];
    for (file, methods, phases, scale, title) in plots {
        let svg = dir.join(&file);
        if plotted_sizes(sum, b, methods, phases).is_empty() {
            continue;
        }
        plot(sum, b, (methods, phases), scale, &title, &svg)?;
        if let Some(d) = &a.svg_dir {
            std::fs::create_dir_all(d)?;
            std::fs::copy(&svg, d.join(&file))?;
        }
    }
    Ok(())
}
