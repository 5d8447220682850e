// SPDX-License-Identifier: GPL-2.0

//! Timestamps: no bare arithmetic on a clock reading anywhere in `src/`.
//!
//! Two readings of the phase clock can run backwards (two CPUs; a TSC
//! marked unstable or recalibrated after load), and with
//! `RUST_OVERFLOW_CHECKS=y` (Debian's 7.3 image, `distro-7.3`) a `u64`
//! subtraction that underflows is a panic, taken while a control write
//! holds the registry lock: every later write, API call and `rmmod` hangs.
//! Seven timings were `now_ns() - t0`. Now a reading is a `Stamp` (src/set.rs)
//! with no `-` or `+`, whose durations saturate, and this test fails on:
//! - a clock read anywhere but `Stamp::now` (`now_ns`, `bp_clock_ns`,
//!   `ktime_get*`, `jiffies`, `local_clock`, `sched_clock`);
//! - an arithmetic operator implemented for `Stamp`;
//! - a bare `-`, `+`, `-=` or `+=` inside `impl Stamp`, or on a line that
//!   takes a reading's raw nanoseconds (`.ns()`) or reads a stored one.

mod common;

use std::fs;

use common::{assert_none_found, code_lines, has_ident, root};

/// The clock reads the module may make, and where: (file, code).
const CLOCK_READS: &[(&str, &str)] = &[
    ("src/set.rs", "fn now_ns() -> u64 {"),
    ("src/set.rs", "unsafe { bindings::bp_clock_ns() }"),
    ("src/set.rs", "Self(now_ns())"),
];

/// Clock sources: whole identifiers, and prefixes (`ktime_get_ns`, ...).
const CLOCKS: &[&str] = &[
    "now_ns",
    "bp_clock_ns",
    "jiffies",
    "local_clock",
    "sched_clock",
];
const CLOCK_PREFIXES: &[&str] = &["ktime_get"];

/// Operator traits that would give `Stamp` a bare `-` or `+`.
const OPERATORS: &[&str] = &["Sub", "Add", "SubAssign", "AddAssign", "Neg"];

/// Whether `code` has a bare binary `-` or `+` (or `-=`, `+=`): an
/// operator with a space on each side, as rustfmt writes them.
fn bare_arithmetic(code: &str) -> bool {
    [" - ", " + ", " -= ", " += "]
        .iter()
        .any(|op| code.contains(op))
}

/// What breaks the rules in one file: "file:line: why: code".
fn violations(rel: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_stamp = false;
    for (i, code) in code_lines(text).iter().enumerate() {
        let line = i + 1;
        let trimmed = code.trim();
        let mut bad = |why: &str| out.push(format!("{rel}:{line}: {why}: {trimmed}"));
        let reads_clock = CLOCKS.iter().any(|c| has_ident(code, c, false))
            || CLOCK_PREFIXES.iter().any(|c| has_ident(code, c, true));
        if reads_clock && !CLOCK_READS.contains(&(rel, trimmed)) {
            bad("a clock read outside Stamp::now");
        }
        if trimmed.starts_with("impl")
            && has_ident(code, "Stamp", false)
            && OPERATORS.iter().any(|op| has_ident(code, op, false))
        {
            bad("an arithmetic operator for Stamp");
        }
        if code.starts_with("impl Stamp {") {
            in_stamp = true;
        } else if in_stamp && code.starts_with('}') {
            in_stamp = false;
        }
        let raw = code.contains(".ns()") || code.contains("Stamp::from_ns(");
        if (in_stamp || raw) && bare_arithmetic(code) {
            bad("bare arithmetic on a clock reading");
        }
    }
    out
}

#[test]
fn no_bare_arithmetic_on_timestamps() {
    assert_none_found("timestamps used unsafely", &["src"], &["rs"], violations);
}

#[test]
fn every_allowed_clock_read_is_there() {
    // An allow-list entry that no longer matches would hide nothing, but
    // means the clock moved: the list must follow it.
    let text = fs::read_to_string(root().join("src/set.rs")).unwrap();
    let lines = code_lines(&text);
    for (_, code) in CLOCK_READS {
        assert!(
            lines.iter().any(|l| l.trim() == *code),
            "src/set.rs no longer has `{code}`"
        );
    }
}

#[test]
fn finds_the_old_timings() {
    // The seven timings as they were (src/set.rs, src/set/build.rs).
    let old = "        let t0 = now_ns();\n\
               \x20       self.timings.enable.store(now_ns() - t0, Ordering::Relaxed);\n";
    assert_eq!(violations("src/set.rs", old).len(), 2);
    let stored = "let d = now.ns() - Stamp::from_ns(started).ns();\n";
    assert_eq!(violations("src/x.rs", stored).len(), 1);
    let ktime = "let t = unsafe { bindings::ktime_get_ns() }; // now_ns() - t0\n";
    assert_eq!(violations("src/x.rs", ktime).len(), 1);
}

#[test]
fn finds_operators_and_arithmetic_inside_stamp() {
    let src = "impl core::ops::Sub for Stamp {\n}\n\
               impl Stamp {\n    fn until(self, l: Self) -> u64 { l.0 - self.0 }\n}\n\
               fn f(a: u64, b: u64) -> u64 { a - b }\n";
    let v = violations("src/set.rs", src);
    assert_eq!(v.len(), 2, "{v:?}");
}

#[test]
fn saturating_durations_pass() {
    let src = "impl Stamp {\n    pub(crate) fn now() -> Self {\n        Self(now_ns())\n    }\n\
               pub(crate) fn until(self, later: Self) -> u64 {\n        later.0.saturating_sub(self.0)\n    }\n}\n\
               let d = t0.elapsed();\nstore(Stamp::now().ns());\n";
    let v = violations("src/set.rs", src);
    assert!(v.is_empty(), "{v:?}");
}
