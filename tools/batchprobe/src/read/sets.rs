// SPDX-License-Identifier: GPL-2.0

//! The `sets` file: one line per set,
//! `NAME STATE kprobes=N kretprobes=N fprobes=N fretprobes=N direct=N
//! skipped=N hits=N [waiting=N] [gone=N] [holds=MOD,...]`, then `# N probe(s) staged, not created` when lines
//! wait for a `create`.

use serde::Serialize;

use super::{count, pairs, Malformed};

/// One set's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetLine {
    pub name: String,
    /// `registered`, `enabled`, `disabled`, `retiring` or `freed`.
    pub state: String,
    /// Probes per backend (`kprobes`, `kretprobes`, `fprobes`,
    /// `fretprobes`, `direct`), in the file's order.
    #[serde(serialize_with = "super::as_map")]
    pub backends: Vec<(String, u64)>,
    /// Glob members the kernel refused.
    pub skipped: u64,
    pub hits: u64,
    /// `MOD:SYM` probes waiting for their module to load.
    pub waiting: u64,
    /// Probes whose module was unloaded.
    pub gone: u64,
    /// The modules its direct calls hold loaded.
    pub holds: Vec<String>,
}

impl SetLine {
    /// The set's probes over every backend.
    pub fn probes(&self) -> u64 {
        self.backends.iter().map(|(_, n)| n).sum()
    }

    /// Whether the set still has probes a command may act on.
    pub fn is_live(&self) -> bool {
        matches!(self.state.as_str(), "registered" | "enabled" | "disabled")
    }
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sets {
    pub sets: Vec<SetLine>,
    /// Probe lines staged by earlier writes, not created yet.
    pub staged: u64,
}

impl Sets {
    /// The set named `name`, if the file lists it.
    pub fn get(&self, name: &str) -> Option<&SetLine> {
        self.sets.iter().find(|s| s.name == name)
    }
}

/// Reads the `sets` file's text.
pub fn parse(text: &str) -> Result<Sets, Malformed> {
    let mut out = Sets::default();
    for (i, line) in text.lines().enumerate() {
        let bad = |why: String| Malformed {
            file: "sets",
            line: i + 1,
            why,
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# ") {
            let n = rest
                .strip_suffix(" probe(s) staged, not created")
                .ok_or_else(|| bad(format!("unknown comment `{line}`")))?;
            out.staged = count("staged", n).map_err(bad)?;
            continue;
        }
        let mut words = line.split_ascii_whitespace();
        let (Some(name), Some(state)) = (words.next(), words.next()) else {
            return Err(bad("a set's line has no state".into()));
        };
        let mut set = SetLine {
            name: name.into(),
            state: state.into(),
            backends: Vec::new(),
            skipped: 0,
            hits: 0,
            waiting: 0,
            gone: 0,
            holds: Vec::new(),
        };
        for (k, v) in pairs(words).map_err(bad)? {
            if k == "holds" {
                set.holds = super::modules(v).map_err(bad)?;
                continue;
            }
            let n = count(k, v).map_err(bad)?;
            match k {
                "skipped" => set.skipped = n,
                "hits" => set.hits = n,
                "waiting" => set.waiting = n,
                "gone" => set.gone = n,
                _ => set.backends.push((k.into(), n)),
            }
        }
        out.sets.push(set);
    }
    Ok(out)
}
