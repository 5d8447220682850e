// SPDX-License-Identifier: GPL-2.0

//! No `core` slice sort in the module: every sort goes through
//! `src/sort.rs`.
//!
//! `core`'s `sort_unstable*` recurses into each left partition, and each
//! level's frame holds a small-sort scratch array of up to 4 KiB: sorting
//! the kprobes blacklist's names in the write path ran off Debian's 7.3
//! image's 16-KiB kernel stack into its guard page (CI of f7ae6ed,
//! `test_blacklist_oracle.sh`). `crate::sort` never recurses. This test
//! fails on a call of `sort_unstable`, `sort_unstable_by`,
//! `sort_unstable_by_key`, `sort_floats`, `select_nth_unstable*` or a
//! method `.sort(`, `.sort_by(`, `.sort_by_key(`, `.sort_by_cached_key(`
//! anywhere in `src/` but `src/sort.rs`.

mod common;

use common::{assert_none_found, code_lines, has_ident};

/// Identifiers (and prefixes of them) of `core`'s recursive sorts.
const CORE_SORTS: &[&str] = &["sort_unstable", "select_nth_unstable", "sort_floats"];
/// Methods of `alloc`'s slices (a kernel build has none, but a host
/// build of a pure file would take them).
const METHODS: &[&str] = &[
    ".sort(",
    ".sort_by(",
    ".sort_by_key(",
    ".sort_by_cached_key(",
];

/// What breaks the rule in one file: "file:line: code".
fn violations(rel: &str, text: &str) -> Vec<String> {
    if rel == "src/sort.rs" {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, code) in code_lines(text).iter().enumerate() {
        let core = CORE_SORTS.iter().any(|w| has_ident(code, w, true));
        if core || METHODS.iter().any(|m| code.contains(m)) {
            out.push(format!(
                "{rel}:{}: a core sort (use crate::sort): {}",
                i + 1,
                code.trim()
            ));
        }
    }
    out
}

#[test]
fn every_sort_goes_through_crate_sort() {
    assert_none_found("core sorts in the module", &["src"], &["rs"], violations);
}

#[test]
fn finds_the_old_calls() {
    // As they were in src/fprobe/blacklist.rs and src/direct/index.rs.
    let old = "        ranges.sort_unstable();\n\
               \x20       names.sort_unstable_by(|a, b| name_of(a).cmp(name_of(b)));\n\
               \x20           .sort_unstable_by_key(|e| (e.start, !is_mine(e)));\n\
               v.sort_by(|a, b| a.cmp(b));\n";
    assert_eq!(violations("src/fprobe/blacklist.rs", old).len(), 4);
}

#[test]
fn crate_sort_and_comments_pass() {
    let ok = "sort::sort(&mut ranges);\n\
              sort::sort_by(&mut names, |a, b| a.cmp(b));\n\
              // not names.sort_unstable(): it recurses\n\
              let sorted = self.sorted_names();\n";
    let v = violations("src/fprobe/blacklist.rs", ok);
    assert!(v.is_empty(), "{v:?}");
    assert!(violations("src/sort.rs", "fn f() { v.sort_unstable() }\n").is_empty());
}
