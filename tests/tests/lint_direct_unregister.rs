// SPDX-License-Identifier: GPL-2.0

//! A direct ops is unregistered from the trampoline ftrace has it on.
//!
//! `unregister_ftrace_direct(ops, addr, ...)` drops only the
//! `direct_functions` entries that name `addr`. batchprobe passed the
//! trampoline of its set's mode; after a switch to the exit trampoline that
//! failed half way and could not move every ops back (two
//! `modify_ftrace_direct` failures), some ops were on the other trampoline,
//! their entries stayed, and later direct users of those functions (BPF,
//! batchprobe) got `EBUSY` until reboot. No guest can make
//! `modify_ftrace_direct` fail twice on purpose, so this checks the code:
//! `src/` calls `unregister_ftrace_direct` in one place, `FtraceOps::unregister`,
//! with the trampoline ftrace recorded for the ops (`bp_ftrace_direct_call`,
//! `ops->direct_call` in `rust/ftrace.c`), and takes no trampoline from its
//! caller.

mod common;

use std::fs;

use common::{code_lines, root, sources};

#[test]
fn unregistered_from_where_ftrace_has_it() {
    let root = root();
    let mut calls = Vec::new();
    for (rel, text) in sources(&["src"], &["rs"]) {
        for (i, code) in code_lines(&text).iter().enumerate() {
            if code.contains("unregister_ftrace_direct(") {
                calls.push(format!("{rel}:{}", i + 1));
            }
        }
    }
    assert_eq!(
        calls.len(),
        1,
        "unregister_ftrace_direct called from: {calls:?}"
    );
    assert!(calls[0].starts_with("src/ftrace.rs:"), "{calls:?}");
    let text = fs::read_to_string(root.join("src/ftrace.rs")).unwrap();
    let start = text
        .find("pub(crate) unsafe fn unregister(&self) -> Result {")
        .expect("FtraceOps::unregister takes no trampoline");
    let body = &text[start..start + text[start..].find("\n    }\n").unwrap()];
    assert!(
        body.contains("bindings::bp_ftrace_direct_call(ops)"),
        "{body}"
    );
    let c = fs::read_to_string(root.join("rust/ftrace.c")).unwrap();
    assert!(c.contains("return READ_ONCE(ops->direct_call);"));
}
