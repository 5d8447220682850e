// SPDX-License-Identifier: GPL-2.0

//! Reading the module's sources as text, for the tests that check rules
//! the compiler cannot: every file of a tree, and its lines with comments
//! left out.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under `dir` whose extension is in `ext`, sorted, into `out`.
pub fn files(dir: &Path, ext: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {}", dir.display(), e))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ext.contains(&e))
        {
            out.push(p);
        }
    }
}

/// Source lines with comments removed (`//` to the end of the line, and
/// `/* ... */` across lines), string and character literals kept. Good
/// enough for this crate's Rust and C: no raw strings.
pub fn code_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let b = line.as_bytes();
        let mut code = String::new();
        let mut i = 0;
        let mut in_str = false;
        while i < b.len() {
            let c = b[i];
            let next = b.get(i + 1).copied();
            if in_block {
                if c == b'*' && next == Some(b'/') {
                    in_block = false;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            if in_str {
                code.push(c as char);
                if c == b'\\' {
                    if let Some(n) = next {
                        code.push(n as char);
                    }
                    i += 2;
                    continue;
                }
                if c == b'"' {
                    in_str = false;
                }
                i += 1;
                continue;
            }
            match (c, next) {
                (b'/', Some(b'/')) => break,
                (b'/', Some(b'*')) => {
                    in_block = true;
                    i += 2;
                }
                (b'"', _) => {
                    in_str = true;
                    code.push('"');
                    i += 1;
                }
                (b'\'', _) => {
                    // A character literal ('x', '\n', '\'') is copied whole;
                    // a lifetime ('a) is just a quote.
                    let end = if next == Some(b'\\') {
                        b.get(i + 2..)
                            .and_then(|r| r.iter().skip(1).position(|&x| x == b'\''))
                            .map(|p| i + 3 + p)
                    } else if b.get(i + 2) == Some(&b'\'') {
                        Some(i + 2)
                    } else {
                        None
                    };
                    let end = end.unwrap_or(i);
                    for &x in &b[i..=end] {
                        code.push(x as char);
                    }
                    i = end + 1;
                }
                _ => {
                    code.push(c as char);
                    i += 1;
                }
            }
        }
        out.push(code);
    }
    out
}

pub fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `code` has `word` as a whole identifier (`prefix`: or as the
/// start of one).
pub fn has_ident(code: &str, word: &str, prefix: bool) -> bool {
    let b = code.as_bytes();
    code.match_indices(word).any(|(at, _)| {
        let before = at.checked_sub(1).and_then(|i| b.get(i)).copied();
        let after = b.get(at + word.len()).copied();
        !before.is_some_and(is_ident) && (prefix || !after.is_some_and(is_ident))
    })
}

/// Every file with one of `exts` under each of `dirs` (relative to the
/// root), read: (its path relative to the root, with `/`, and its text).
pub fn sources(dirs: &[&str], exts: &[&str]) -> Vec<(String, String)> {
    let root = root();
    let mut paths = Vec::new();
    for d in dirs {
        files(&root.join(d), exts, &mut paths);
    }
    paths
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e));
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, text)
        })
        .collect()
}

/// Fails, naming each, if `check` (given a file's relative path and text)
/// finds anything in the files with one of `exts` under `dirs`.
pub fn assert_none_found(
    what: &str,
    dirs: &[&str],
    exts: &[&str],
    check: impl Fn(&str, &str) -> Vec<String>,
) {
    let found: Vec<String> = sources(dirs, exts)
        .iter()
        .flat_map(|(rel, text)| check(rel, text))
        .collect();
    assert!(found.is_empty(), "{what}:\n{}", found.join("\n"));
}
