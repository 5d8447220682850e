// SPDX-License-Identifier: GPL-2.0

//! No kernel address in the kernel log.
//!
//! The kernel log is readable by every user where `dmesg_restrict` is 0, so
//! a message with a raw kernel address hands out what KASLR hides. The
//! trampoline alignment check printed one (`{:#x}`). Listings show values
//! through `%pK`, evaluated for the reader; log messages show names and
//! numbers only. This test fails on a hex or pointer format in any `pr_*!`
//! of `src/` (`{:x}`, `{:#x}`, `{:X}`, `{:p}`) and on a raw address format
//! in any printk of `rust/` (`%px`, `%lx`, `%llx`, or `%p` not followed by a
//! safe extension: `K` hashes or hides it, `S`/`s`/`B` print a symbol).

mod common;

use common::{code_lines, sources};

const RUST_LOG: &[&str] = &[
    "pr_emerg!",
    "pr_alert!",
    "pr_crit!",
    "pr_err!",
    "pr_warn!",
    "pr_notice!",
    "pr_info!",
    "pr_debug!",
    "pr_cont!",
];
const C_LOG: &[&str] = &[
    "printk(",
    "pr_emerg(",
    "pr_alert(",
    "pr_crit(",
    "pr_err(",
    "pr_warn(",
    "pr_notice(",
    "pr_info(",
    "pr_debug(",
    "pr_cont(",
    "pr_warn_once(",
    "pr_err_once(",
    "pr_info_once(",
    "WARN(",
    "WARN_ONCE(",
];

/// Each log call's text, from its macro or function name to the `;` that
/// ends the statement (calls span lines): (first line, text).
fn log_calls(text: &str, names: &[&str]) -> Vec<(usize, String)> {
    let lines = code_lines(text);
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in lines.iter().enumerate() {
        if open.is_none() {
            if let Some(at) = names.iter().filter_map(|n| line.find(n)).min() {
                open = Some((i + 1, String::new()));
                let (_, call) = open.as_mut().unwrap();
                call.push_str(&line[at..]);
            }
        } else if let Some((_, call)) = open.as_mut() {
            call.push(' ');
            call.push_str(line.trim());
        }
        if open
            .as_ref()
            .is_some_and(|(_, c)| c.trim_end().ends_with(';'))
        {
            out.extend(open.take());
        }
    }
    out
}

fn rust_leaks(call: &str) -> bool {
    [
        "{:x}", "{:#x}", "{:X}", "{:#X}", "{:p}", "{:#p}", "{:#010x}", "{:#018x}",
    ]
    .iter()
    .any(|f| call.contains(f))
}

fn c_leaks(call: &str) -> bool {
    let b = call.as_bytes();
    call.match_indices('%').any(|(at, _)| {
        let rest = &b[at + 1..];
        let conv: Vec<u8> = rest
            .iter()
            .copied()
            .skip_while(|c| c.is_ascii_digit() || *c == b'#' || *c == b'-' || *c == b'0')
            .take(3)
            .collect();
        match conv.as_slice() {
            [b'p', b'x', ..] => true,
            [b'p', next, ..] => !matches!(next, b'K' | b'S' | b's' | b'B' | b'f' | b'F'),
            [b'p'] => true,
            [b'l', b'x', ..] | [b'l', b'l', b'x'] => true,
            _ => false,
        }
    })
}

fn scan() -> Vec<String> {
    let mut found = Vec::new();
    for (rel, text) in sources(&["src", "rust"], &["rs", "c", "h"]) {
        let (names, leaks): (&[&str], fn(&str) -> bool) = if rel.ends_with(".rs") {
            (RUST_LOG, rust_leaks)
        } else {
            (C_LOG, c_leaks)
        };
        for (line, call) in log_calls(&text, names) {
            if leaks(&call) {
                found.push(format!("{rel}:{line}: {call}"));
            }
        }
    }
    found
}

#[test]
fn no_address_in_the_kernel_log() {
    let found = scan();
    assert!(
        found.is_empty(),
        "log messages that print an address:\n{}",
        found.join("\n")
    );
}

#[test]
fn finds_the_old_trampoline_message() {
    let old = "            pr_err!(\n                \"trampoline for mode {} at {:#x} is not 16-byte aligned\\n\",\n                mode as u8,\n                a\n            );\n";
    let calls = log_calls(old, RUST_LOG);
    assert_eq!(calls.len(), 1);
    assert!(rust_leaks(&calls[0].1));
}

#[test]
fn c_formats() {
    assert!(c_leaks("pr_warn(\"at %px\\n\", p);"));
    assert!(c_leaks("pr_warn(\"at %p\\n\", p);"));
    assert!(c_leaks("pr_warn(\"at %lx\\n\", ip);"));
    assert!(!c_leaks("pr_warn(\"at %pK in %pS\\n\", p, p);"));
    assert!(!c_leaks("pr_err(\"errno %d, %lu bytes, 100%%\\n\", e, n);"));
}
