// SPDX-License-Identifier: GPL-2.0

//! An allocation that fails is reported as `ENOMEM`, never as something else.
//!
//! `offset_in_symbol` turned a failed allocation of its lookup buffer into
//! `None` (`Lookup::new().ok()?`), and the kprobe backend then refused a
//! probe that had registered fine with "offset past the end of the symbol"
//! (`EINVAL`): under memory pressure the user was told their line was wrong.
//! This test fails on `.ok()` (or `.unwrap_or_default()`) after an
//! allocating call on one line of `src/`, but for the reviewed lines below.

mod common;

use std::fs;

use common::{assert_none_found, code_lines, root};

/// Calls that allocate and return a `Result` whose error is `ENOMEM`.
const ALLOCATING: &[&str] = &[
    "KVec::",
    "KVVec::",
    "KBox::",
    "VBox::",
    "Lookup::new(",
    "with_capacity(",
    "from_elem(",
    ".push(",
    ".extend_from_slice(",
    "UniqueArc::",
    "Arc::new(",
    "::pin_init(",
];
/// What drops a `Result`'s error: after the allocating call on the line.
const DROPPING: &[&str] = &[".ok()", ".unwrap_or_default()"];

/// Reviewed: (file, code, why the error cannot be an allocation failure).
const REVIEWED: &[(&str, &str, &str)] = &[
    (
        "src/probe/chunk.rs",
        "self.slots.push(slot, GFP_ATOMIC).ok()?;",
        "a push into a chunk's reserved capacity (checked just above): it never allocates",
    ),
    (
        "src/error.rs",
        "KBox::new(line, GFP_KERNEL).ok()",
        "a failure's blamed line, a detail of its message: out of memory, the message goes \
         without it and the failure keeps its own errno",
    ),
    (
        "src/error.rs",
        "self.set = set.extend_from_slice(name, GFP_KERNEL).ok().map(|()| set);",
        "a failure's set name, a detail of its message: out of memory, the message goes \
         without it and the failure keeps its own errno",
    ),
];

fn violations(rel: &str, text: &str) -> Vec<String> {
    code_lines(text)
        .iter()
        .enumerate()
        .filter(|(_, code)| {
            let first_alloc = ALLOCATING.iter().filter_map(|a| code.find(a)).min();
            let last_drop = DROPPING.iter().filter_map(|d| code.rfind(d)).max();
            matches!((first_alloc, last_drop), (Some(a), Some(d)) if d > a)
        })
        .filter(|(_, code)| {
            !REVIEWED
                .iter()
                .any(|(f, c, _)| *f == rel && code.trim() == *c)
        })
        .map(|(i, code)| format!("{rel}:{}: {}", i + 1, code.trim()))
        .collect()
}

#[test]
fn allocation_failures_stay_enomem() {
    assert_none_found(
        "allocation errors turned into something else",
        &["src"],
        &["rs"],
        violations,
    );
}

#[test]
fn finds_the_old_offset_check() {
    let old =
        "    let mut lookup = Lookup::new().ok()?;\n    lookup.any_at(addr).map(|s| s.offset)\n";
    assert_eq!(violations("src/kallsyms.rs", old).len(), 1);
    let now = "    let mut lookup = Lookup::new()?;\n";
    assert!(violations("src/kallsyms.rs", now).is_empty());
}

#[test]
fn reviewed_lines_are_still_there() {
    for (f, c, _) in REVIEWED {
        let text = fs::read_to_string(root().join(f)).unwrap();
        assert!(
            code_lines(&text).iter().any(|l| l.trim() == *c),
            "{f}: `{c}` is gone"
        );
    }
}
