// SPDX-License-Identifier: GPL-2.0

//! A lint (the source read as text; see docs/testing.md): where the exit
//! accounting has no reliable unwinder (`BP_EXIT_RELIABLE_UNWINDER` 0,
//! whose guard `exit_unwinder.rs` runs through the preprocessor),
//! `bp_exit_tasks_start()` refuses (`-EOPNOTSUPP`) before it registers
//! anything.

mod common;

use std::fs;

use common::root;

#[test]
fn start_refuses_without_a_reliable_unwinder() {
    let text = fs::read_to_string(root().join("rust/exit_tasks.c")).unwrap();
    let start = text
        .find("int bp_exit_tasks_start(void)")
        .expect("bp_exit_tasks_start");
    let body = &text[start..start + text[start..].find("\n}\n").unwrap()];
    let refusal = body
        .find("if (!BP_EXIT_RELIABLE_UNWINDER)\n\t\treturn -EOPNOTSUPP;")
        .expect("bp_exit_tasks_start does not refuse without a reliable unwinder");
    // Before anything is registered.
    assert!(body
        .find("register_ftrace_function")
        .is_some_and(|r| r > refusal));
}
