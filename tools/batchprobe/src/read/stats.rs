// SPDX-License-Identifier: GPL-2.0

//! The `stats` file: a header line of module-wide counters, then per set a
//! `set NAME state=...` line, its phase timings, its grace periods, one
//! line per probe (with `hist` and `errors` lines under a direct
//! function's in an exit set), and the glob members the kernel refused.
//! The module's writer is `src/set/report.rs`.

use serde::Serialize;

use super::{count, pairs, Malformed};

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// The header's `KEY=VALUE` words (`clock`, `direct_missed`,
    /// `exit_inside`, `exit_gone`, `text_symbols`, the grace periods per
    /// kind), in order.
    #[serde(serialize_with = "super::as_map")]
    pub header: Vec<(String, String)>,
    pub sets: Vec<SetStats>,
}

impl Stats {
    /// The set named `name`, if the file lists it.
    pub fn get(&self, name: &str) -> Option<&SetStats> {
        self.sets.iter().find(|s| s.name == name)
    }
}

/// One set's statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SetStats {
    pub name: String,
    pub state: String,
    /// Probes per backend, in the file's order.
    #[serde(serialize_with = "super::as_map")]
    pub backends: Vec<(String, u64)>,
    /// The direct calls' trampoline (`count`, `record`, `empty`, `exit`;
    /// `-`: none, or torn down).
    pub mode: String,
    pub skipped: u64,
    pub hits: u64,
    pub missed: u64,
    pub return_pool_bytes: u64,
    /// `MOD:SYM` probes waiting for their module to load.
    pub waiting: u64,
    /// Probes whose module was unloaded.
    pub gone: u64,
    /// The modules its direct calls hold loaded.
    pub holds: Vec<String>,
    /// The last phase timings (`register_ns`, `attach_ns`, ...).
    #[serde(serialize_with = "super::as_map")]
    pub timings: Vec<(String, u64)>,
    /// The grace periods each phase waited for, `R/T/U` per kind.
    #[serde(serialize_with = "super::as_map")]
    pub grace_periods: Vec<(String, String)>,
    pub probes: Vec<Probe>,
    /// Glob members the kernel refused, by name, with the errno (negative).
    pub refused: Vec<(String, i64)>,
    /// Refused members past those named.
    pub refused_more: u64,
    /// Members left out past a probe cap: (count, cap).
    pub past_cap: Option<(u64, u64)>,
    /// A backend's own counters for the set (`fprobes functions=4 armed=1
    /// missed=0`), by backend.
    pub backend_stats: Vec<(String, Vec<(String, u64)>)>,
}

/// One probe's line, and its aggregates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Probe {
    /// The backend: `kprobe`, `kretprobe`, `fprobe`, `fretprobe`, `direct`.
    pub kind: String,
    pub name: String,
    /// The function (`MOD:SYM` for a module's).
    pub symbol: String,
    pub offset: u64,
    pub hits: u64,
    pub missed: u64,
    /// `waiting` (a `MOD:SYM` probe whose module is not loaded), `gone`
    /// (its module was unloaded); `None`: neither.
    pub state: Option<String>,
    /// Record mode's last first argument, as `%pK` shows it.
    pub last_arg: Option<String>,
    /// Exit sets: returns seen.
    pub exits: Option<u64>,
    pub last_ret: Option<String>,
    pub hist: Option<Hist>,
    pub errors: Option<Errors>,
}

/// A function's log2 histogram of call durations (`--hist`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Hist {
    pub count: u64,
    pub mean_ns: u64,
    /// Percentiles as bucket ends: each is below this many ns (`None`:
    /// past the last bucket).
    pub p50_lt_ns: Option<u64>,
    pub p90_lt_ns: Option<u64>,
    pub p99_lt_ns: Option<u64>,
    /// The non-empty buckets: (least duration in ns, calls). Bucket 0
    /// holds 0 ns, bucket `[2^k, 2^(k+1))` is named by `2^k`.
    pub buckets: Vec<(u64, u64)>,
}

/// A function's error returns by errno (`--errors`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Errors {
    pub total: u64,
    /// By errno name (`ENOENT`; `errnoN` for one without a name), most
    /// frequent first.
    #[serde(serialize_with = "super::as_map")]
    pub by_errno: Vec<(String, u64)>,
    /// Past the errnos a function keeps per CPU.
    pub other: u64,
}

/// Reads the `stats` file's text.
pub fn parse(text: &str) -> Result<Stats, Malformed> {
    let mut out = Stats::default();
    for (i, line) in text.lines().enumerate() {
        let bad = |why: String| Malformed {
            file: "stats",
            line: i + 1,
            why,
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# ") {
            out.header = rest
                .split_ascii_whitespace()
                .filter_map(|w| w.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let mut words = line.split_ascii_whitespace();
        let first = words.next().unwrap_or("");
        match (indent, first) {
            (0, "set") => out.sets.push(set_line(words).map_err(bad)?),
            (0, _) => return Err(bad(format!("unknown line `{first}`"))),
            (_, _) => {
                let set = out
                    .sets
                    .last_mut()
                    .ok_or_else(|| bad("a set's detail before any `set` line".into()))?;
                set_detail(set, indent, first, words).map_err(bad)?;
            }
        }
    }
    Ok(out)
}

/// `set NAME state=S kprobes=N ... mode=M skipped=N hits=N missed=N
/// return_pool_bytes=N [waiting=N] [gone=N] [holds=MOD,...]`.
fn set_line<'a>(mut words: impl Iterator<Item = &'a str>) -> Result<SetStats, String> {
    let name = words.next().ok_or("a `set` line without a name")?;
    let mut set = SetStats {
        name: name.into(),
        ..SetStats::default()
    };
    for (k, v) in pairs(words)? {
        match k {
            "state" => set.state = v.into(),
            "mode" => set.mode = v.into(),
            "skipped" => set.skipped = count(k, v)?,
            "hits" => set.hits = count(k, v)?,
            "missed" => set.missed = count(k, v)?,
            "return_pool_bytes" => set.return_pool_bytes = count(k, v)?,
            "waiting" => set.waiting = count(k, v)?,
            "gone" => set.gone = count(k, v)?,
            "holds" => set.holds = super::modules(v)?,
            _ => set.backends.push((k.into(), count(k, v)?)),
        }
    }
    Ok(set)
}

/// One of a set's indented lines.
fn set_detail<'a>(
    set: &mut SetStats,
    indent: usize,
    first: &'a str,
    mut words: impl Iterator<Item = &'a str> + Clone,
) -> Result<(), String> {
    if first.contains('=') {
        // The phase timings: every word KEY=NS.
        for (k, v) in pairs(std::iter::once(first).chain(words))? {
            set.timings.push((k.into(), count(k, v)?));
        }
        return Ok(());
    }
    match first {
        "grace_periods" => {
            set.grace_periods = words
                .filter_map(|w| w.split_once('='))
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
        }
        "skipped" => skipped(set, words.collect())?,
        _ if indent == 2 && words.clone().next().is_some_and(|w| w.contains('=')) => {
            let mut counters = Vec::new();
            for (k, v) in pairs(words)? {
                counters.push((k.to_string(), count(k, v)?));
            }
            set.backend_stats.push((first.to_string(), counters));
        }
        "hist" if indent > 2 => {
            let probe = last_probe(set, words.next())?;
            probe.hist = Some(hist(words)?);
        }
        "errors" if indent > 2 => {
            let probe = last_probe(set, words.next())?;
            probe.errors = Some(errors(words)?);
        }
        _ => set.probes.push(probe(first, words)?),
    }
    Ok(())
}

/// `KIND NAME SYM+OFF hits=N missed=N [state=S] [last_arg=X] [exits=N
/// last_ret=X]`.
fn probe<'a>(kind: &str, mut words: impl Iterator<Item = &'a str>) -> Result<Probe, String> {
    let (Some(name), Some(target)) = (words.next(), words.next()) else {
        return Err(format!("a `{kind}` probe line without its name and target"));
    };
    let (symbol, offset) = target
        .rsplit_once('+')
        .ok_or_else(|| format!("target `{target}` is not SYM+OFF"))?;
    let mut p = Probe {
        kind: kind.into(),
        name: name.into(),
        symbol: symbol.into(),
        offset: count("offset", offset)?,
        ..Probe::default()
    };
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("`{w}` is not KEY=VALUE"))?;
        match k {
            "hits" => p.hits = count(k, v)?,
            "missed" => p.missed = count(k, v)?,
            "state" => p.state = Some(v.into()),
            "exits" => p.exits = Some(count(k, v)?),
            "last_arg" => p.last_arg = Some(v.into()),
            "last_ret" => p.last_ret = Some(v.into()),
            _ => return Err(format!("unknown probe field `{k}`")),
        }
    }
    Ok(p)
}

/// The probe a `hist` or `errors` line belongs to: the last one, by name.
fn last_probe<'s>(set: &'s mut SetStats, name: Option<&str>) -> Result<&'s mut Probe, String> {
    match set.probes.last_mut() {
        Some(p) if Some(p.name.as_str()) == name => Ok(p),
        _ => Err(format!(
            "aggregates of `{}` under another probe's line",
            name.unwrap_or("")
        )),
    }
}

/// `count=N mean_ns=M p50_lt_ns=A p90_lt_ns=B p99_lt_ns=C log2_ns=LOW:N,...`.
fn hist<'a>(words: impl Iterator<Item = &'a str>) -> Result<Hist, String> {
    let mut h = Hist::default();
    let end = |k: &str, v: &str| -> Result<Option<u64>, String> {
        if v == "inf" {
            Ok(None)
        } else {
            count(k, v).map(Some)
        }
    };
    for (k, v) in pairs(words)? {
        match k {
            "count" => h.count = count(k, v)?,
            "mean_ns" => h.mean_ns = count(k, v)?,
            "p50_lt_ns" => h.p50_lt_ns = end(k, v)?,
            "p90_lt_ns" => h.p90_lt_ns = end(k, v)?,
            "p99_lt_ns" => h.p99_lt_ns = end(k, v)?,
            "log2_ns" => {
                for b in v.split(',') {
                    let (low, n) = b
                        .split_once(':')
                        .ok_or_else(|| format!("bucket `{b}` is not LOW:N"))?;
                    h.buckets.push((count("bucket", low)?, count("bucket", n)?));
                }
            }
            _ => return Err(format!("unknown hist field `{k}`")),
        }
    }
    Ok(h)
}

/// `total=N ENAME=N ... other=N`.
fn errors<'a>(words: impl Iterator<Item = &'a str>) -> Result<Errors, String> {
    let mut e = Errors::default();
    for (k, v) in pairs(words)? {
        let n = count(k, v)?;
        match k {
            "total" => e.total = n,
            "other" => e.other = n,
            _ => e.by_errno.push((k.into(), n)),
        }
    }
    Ok(e)
}

/// `skipped SYM errno=-N`, `skipped ... N more`, `skipped N past the cap
/// of M`.
fn skipped(set: &mut SetStats, words: Vec<&str>) -> Result<(), String> {
    match words.as_slice() {
        [sym, errno] if errno.starts_with("errno=") => {
            let n = errno["errno=".len()..]
                .parse()
                .map_err(|_| format!("`{errno}`: not an errno"))?;
            set.refused.push(((*sym).into(), n));
        }
        ["...", n, "more"] => set.refused_more = count("more", n)?,
        [n, "past", "the", "cap", "of", cap] => {
            set.past_cap = Some((count("past", n)?, count("cap", cap)?))
        }
        _ => return Err(format!("unknown `skipped` line: {}", words.join(" "))),
    }
    Ok(())
}
