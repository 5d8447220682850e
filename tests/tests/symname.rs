// SPDX-License-Identifier: GPL-2.0

//! Tests of the `sprint_symbol()` decoder (`src/symname.rs`).

use batchprobe_host_tests::symname::*;

#[test]
fn core_kernel_symbol() {
    assert_eq!(
        parse_sprint_symbol("vfs_read+0x0/0x1a0"),
        Some(SymbolAt {
            name: "vfs_read",
            offset: 0,
            size: 0x1a0,
            module: None
        })
    );
    assert_eq!(
        parse_sprint_symbol("do_sys_open+0x1f/0x80\0"),
        Some(SymbolAt {
            name: "do_sys_open",
            offset: 0x1f,
            size: 0x80,
            module: None
        })
    );
}

#[test]
fn module_symbol() {
    assert_eq!(
        parse_sprint_symbol("bp_helper+0x4/0x10 [batchprobe]"),
        Some(SymbolAt {
            name: "bp_helper",
            offset: 4,
            size: 0x10,
            module: Some("batchprobe")
        })
    );
    assert_eq!(
        parse_sprint_symbol("f+0x4/0x10 [m 0123abcd]").and_then(|s| s.module),
        Some("m")
    );
}

#[test]
fn clones_and_odd_names() {
    assert_eq!(
        parse_sprint_symbol("foo.isra.0+0x0/0x20").map(|s| s.name),
        Some("foo.isra.0")
    );
    assert!(!glob_candidate("foo.cold", "foo*"));
    assert!(glob_candidate("foo.cold", "foo.*"));
    assert!(glob_candidate("foo", "*"));
}

#[test]
fn no_symbol() {
    assert_eq!(parse_sprint_symbol("0xffffffff81000000"), None);
    assert_eq!(parse_sprint_symbol(""), None);
    assert_eq!(parse_sprint_symbol("+0x0/0x10"), None);
    assert_eq!(parse_sprint_symbol("f+0x/0x10"), None);
    assert_eq!(parse_sprint_symbol("f+0x1/10"), None);
    assert_eq!(parse_sprint_symbol("f+0x1/0x10 [m"), None);
}
