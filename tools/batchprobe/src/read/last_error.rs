// SPDX-License-Identifier: GPL-2.0

//! The `last_error` file: `line N: TEXT: what was wrong (ENAME)` (with
//! `, at create on line M` when `create` refused a probe staged earlier),
//! then, for a parse error, the line again and a caret under the word at
//! fault.

use serde::Serialize;

/// What the last failed write left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastError {
    /// The 1-based line of the write it blames (`None`: an in-kernel API
    /// call's error, or a text without a line).
    pub line: Option<usize>,
    /// The errno's name (`ENOENT`), where the text gives one.
    pub errno: Option<String>,
    /// The whole text, as the module wrote it.
    pub text: String,
}

/// Reads `last_error`'s text (`None`: empty, no write failed yet).
pub fn parse(text: &str) -> Option<LastError> {
    let first = text.lines().next()?.trim_end();
    if first.is_empty() {
        return None;
    }
    // `line N of an earlier write: ...` names another write's line.
    let line = first
        .strip_prefix("line ")
        .filter(|r| !r.contains(" of an earlier write:"))
        .and_then(|r| r.split([':', ' ']).next())
        .and_then(|n| n.parse().ok());
    let errno = first
        .rfind(" (E")
        .map(|i| &first[i + 2..])
        .and_then(|r| r.split(')').next())
        .filter(|e| {
            e.len() > 1
                && e.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        })
        .map(String::from);
    Some(LastError {
        line,
        errno,
        text: text.trim_end_matches('\n').to_string(),
    })
}
