// SPDX-License-Identifier: GPL-2.0

//! Exit sets only where the unwinder is reliable: a build-time guard,
//! checked by preprocessing it for each x86 unwinder.
//!
//! The exit accounting (`rust/exit_tasks.c`) counts a body gone when a walk
//! of the exiting task's stack finds its frame; it is never too high only
//! with the ORC or frame-pointer unwinder, which report real frames and say
//! where they are unsure. The guess unwinder (`CONFIG_UNWINDER_GUESS`)
//! reports every text address on the stack, stale return addresses among
//! them: bodies would be counted gone that were not, the module's pin could
//! drop with a task inside, and `rmmod` free the text under it. So
//! `BP_EXIT_RELIABLE_UNWINDER` must be 1 exactly where ORC or frame
//! pointers are configured, and `bp_exit_tasks_start()` must refuse
//! (`-EOPNOTSUPP`) where it is 0. This test runs the guard through the C
//! preprocessor for each unwinder choice.

mod common;

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

use common::root;

/// The guard: from its `#if` to its `#endif`.
fn guard() -> String {
    let text = fs::read_to_string(root().join("rust/exit_tasks.c")).unwrap();
    let start = text
        .find("#if defined(CONFIG_UNWINDER_ORC)")
        .expect("rust/exit_tasks.c: no unwinder guard");
    let end = start + text[start..].find("#endif").expect("unterminated guard") + "#endif".len();
    text[start..end].to_string()
}

/// What `BP_EXIT_RELIABLE_UNWINDER` is with `defines`.
fn reliable(defines: &[&str]) -> String {
    let mut cpp = Command::new("cpp")
        .arg("-P")
        .args(defines.iter().map(|d| format!("-D{d}")))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cpp");
    let src = format!("{}\nBP_EXIT_RELIABLE_UNWINDER\n", guard());
    cpp.stdin.take().unwrap().write_all(src.as_bytes()).unwrap();
    let out = cpp.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn reliable_only_with_orc_or_frame_pointers() {
    assert_eq!(reliable(&["CONFIG_UNWINDER_ORC=1"]), "1");
    assert_eq!(reliable(&["CONFIG_UNWINDER_FRAME_POINTER=1"]), "1");
    assert_eq!(reliable(&["CONFIG_UNWINDER_GUESS=1"]), "0");
    assert_eq!(reliable(&[]), "0");
}
