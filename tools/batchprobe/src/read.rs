// SPDX-License-Identifier: GPL-2.0

//! Readers of what the module writes: `sets`, `stats` and `last_error` in
//! its debugfs directory, and its return records in tracefs. Pure text
//! in, values out: no file is opened here, so the host tests read
//! recorded outputs of every kernel.

pub mod last_error;
pub mod records;
pub mod sets;
pub mod stats;

/// A file that did not read as the module writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// The file (`sets`, `stats`).
    pub file: &'static str,
    /// The 1-based line.
    pub line: usize,
    /// What was wrong there.
    pub why: String,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} line {}: {} (is the module newer than this command?)",
            self.file, self.line, self.why
        )
    }
}

/// Serializes `[(KEY, VALUE)]` as a JSON object `{KEY: VALUE}`, in order.
pub fn as_map<S: serde::Serializer, V: serde::Serialize>(
    v: &[(String, V)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, v)| (k, v)))
}

/// The words `KEY=VALUE` of a line, in order; a word without `=` is an
/// error naming it.
fn pairs<'a>(words: impl Iterator<Item = &'a str>) -> Result<Vec<(&'a str, &'a str)>, String> {
    words
        .map(|w| {
            w.split_once('=')
                .ok_or_else(|| format!("`{w}` is not KEY=VALUE"))
        })
        .collect()
}

/// `holds=`' modules: names, comma-separated, none empty.
fn modules(value: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = value.split(',').map(String::from).collect();
    if names.iter().any(String::is_empty) {
        return Err(format!("holds={value}: an empty module name"));
    }
    Ok(names)
}

/// A decimal count.
fn count(key: &str, value: &str) -> Result<u64, String> {
    value
        .parse()
        .map_err(|_| format!("{key}={value}: not a count"))
}
