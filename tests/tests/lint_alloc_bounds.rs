// SPDX-License-Identifier: GPL-2.0

//! Memory bounds: every kmalloc-backed vector in the module is reviewed.
//!
//! docs/control.md promises that vectors whose size follows the input are
//! vmalloc-backed (`KVVec`). A kmalloc vector (`KVec`) that grows with the
//! input is a latent WARNING: its doubling reallocates with `krealloc`, and
//! past 4 MiB that is an allocation beyond the page allocator's largest order
//! (`WARN_ON_ONCE` in mm/page_alloc.c, then `ENOMEM`). `Int3Set::ptrs` was
//! one: at 8 bytes a pointer, the 524,289th int3 probe of one kind in a set
//! tripped it.
//!
//! This test scans the module's Rust sources (`src/`, comments left out) for
//! every line that names a kmalloc-backed vector or slice (`KVec`,
//! `Kmalloc`, `KBox<[`), and the C helpers (`rust/`) for every kmalloc-family
//! call, and fails on any that is not on [`REVIEWED`] below, which says for
//! each why its size has a small fixed bound. Each entry must match exactly
//! as many lines as it says: a new `KVec` next to a reviewed one, or one
//! that went away, fails the test until the list is reviewed again.
//!
//! Not covered: raw strings, and C variable-length arrays (the helpers have
//! none).

mod common;

use common::{code_lines, has_ident, sources};

/// A reviewed kmalloc-backed allocation: the lines of `file` (relative to
/// the repository root) whose code contains `code`, `lines` of them, and why
/// its size is bounded whatever the input.
struct Reviewed {
    file: &'static str,
    code: &'static str,
    lines: usize,
    bound: &'static str,
}

const fn r(file: &'static str, code: &'static str, lines: usize, bound: &'static str) -> Reviewed {
    Reviewed {
        file,
        code,
        lines,
        bound,
    }
}

// The bounds these reasons rely on (src/command.rs, include/batchprobe.h,
// the kernel): a control line is at most MAX_LINE = 1024 bytes, so each of
// its parts is too (symbol <= MAX_SYMBOL = 511, names <= MAX_NAME = 64); an
// API target's symbol is at most BATCHPROBE_MAX_SYMBOL; a kallsyms name is
// shorter than KSYM_NAME_LEN (512).
const LINE_PART: &str = "a part of one control line (<= command::MAX_LINE bytes)";
const PROBE_NAMES: &str = "a probe's symbol (a line's, <= MAX_SYMBOL; an API target's, \
     <= BATCHPROBE_MAX_SYMBOL; or a kallsyms name, < KSYM_NAME_LEN) or its name (<= MAX_NAME)";
const SENTENCE: &str = "one error sentence: fixed words, numbers and a few names, each \
     bounded by a line's length (every Failed::new and ::about formats a fixed template)";

const REVIEWED: &[Reviewed] = &[
    // rust/chardev.c
    r(
        "rust/chardev.c",
        "dev = kzalloc(sizeof(*dev), GFP_KERNEL);",
        1,
        "one struct miscdevice and a pointer, once per load",
    ),
    r(
        "src/engine/registry/create.rs",
        "name: KVec",
        2,
        "a MOD:GLOB member's name, MOD:SYM: a module name (under \
         MODULE_NAME_LEN) and a symbol as sprint_symbol() wrote it (under \
         KSYM_SYMBOL_LEN), one buffer reused for every member",
    ),
    // src/api.rs
    r(
        "src/backend.rs",
        "pub(crate) symbol: KVec<u8>,",
        1,
        PROBE_NAMES,
    ),
    r(
        "src/api.rs",
        "unsafe fn copy_str(p: *const c_char, max: usize) -> Result<KVec<u8>>",
        1,
        "at most max + 1 bytes pushed; callers pass BATCHPROBE_MAX_NAME, \
         BATCHPROBE_MAX_SYMBOL, or 64 (a module name)",
    ),
    r(
        "src/api.rs",
        "let mut v = KVec::new();",
        1,
        "copy_str's buffer: at most max + 1 bytes",
    ),
    // src/direct/attach.rs (a slot's symbol and name are its `probe::Meta`'s)
    r(
        "src/direct/attach.rs",
        "let mut todo: KVec<(usize, usize)> =",
        1,
        "the bisection's depth-first stack: a split pops one range and pushes \
         two halves, so at most 2 + log2(functions) ranges wait (< 70)",
    ),
    r(
        "src/direct/attach.rs",
        "KVec::with_capacity(depth, GFP_KERNEL)?;",
        1,
        "the same stack, sized up front: depth = 2 + bits of the function count (< 70)",
    ),
    r(
        "src/direct/attach.rs",
        "todo: &mut KVec<(usize, usize)>,",
        1,
        "that stack, handed to the bisection loop (the same bound: < 70)",
    ),
    // src/error.rs
    r("src/error.rs", "pub(crate) what: KVec<u8>,", 1, SENTENCE),
    r(
        "src/error.rs",
        "pub(crate) text: KVec<u8>,",
        1,
        "the probe line blamed: one control line (<= command::MAX_LINE bytes)",
    ),
    r(
        "src/error.rs",
        "let mut text = KVec::new();",
        1,
        "BlamedLine::of's copy of one control line (<= command::MAX_LINE bytes)",
    ),
    r(
        "src/error.rs",
        "let mut what = Text(KVec::new());",
        2,
        SENTENCE,
    ),
    r(
        "src/error.rs",
        "pub(crate) struct Text(pub(crate) KVec<u8>);",
        1,
        SENTENCE,
    ),
    r(
        "src/error.rs",
        "pub(crate) set: Option<KVec<u8>>,",
        1,
        "a set's name: an API set's (<= BATCHPROBE_MAX_NAME, checked before any create)",
    ),
    r(
        "src/error.rs",
        "let mut set = KVec::new();",
        1,
        "Failed::in_set's copy of that name (<= BATCHPROBE_MAX_NAME)",
    ),
    // src/gpcount.rs
    r(
        "src/gpcount.rs",
        "counters: Pin<KBox<[Counter; KINDS]>>,",
        1,
        "a fixed array: one counter per kind of grace period (KINDS)",
    ),
    // src/kallsyms.rs
    r(
        "src/kallsyms.rs",
        "struct Lookup(KVec<u8>);",
        1,
        "sprint_symbol's buffer: exactly SYMBOL_BUF (1024) bytes",
    ),
    r(
        "src/kallsyms.rs",
        "KVec::from_elem(0u8, SYMBOL_BUF, GFP_KERNEL)",
        1,
        "SYMBOL_BUF (1024) bytes",
    ),
    r(
        "src/kallsyms.rs",
        "pub(crate) name: KVec<u8>,",
        1,
        "a kallsyms name, < KSYM_NAME_LEN",
    ),
    r(
        "src/kallsyms.rs",
        "let mut name = KVec::new();",
        1,
        "a kallsyms name, < KSYM_NAME_LEN",
    ),
    // src/direct/modules.rs
    r(
        "src/direct/modules.rs",
        "current: Option<(KVec<u8>, ModulePrototypes)>,",
        1,
        "a module's name, < MODULE_NAME_LEN (56) bytes",
    ),
    // src/kallsyms/held.rs
    r(
        "src/kallsyms/held.rs",
        "name: KVec<u8>,",
        1,
        "a module's name, < MODULE_NAME_LEN (56) bytes",
    ),
    r(
        "src/kallsyms/held.rs",
        "pub(crate) fn copy(name: &[u8]) -> Result<KVec<u8>> {",
        1,
        "a module's name, < MODULE_NAME_LEN (56) bytes",
    ),
    r(
        "src/kallsyms/held.rs",
        "let mut v = KVec::with_capacity(name.len(), GFP_KERNEL)?;",
        1,
        "a module's name, < MODULE_NAME_LEN (56) bytes",
    ),
    r(
        "src/kallsyms/held.rs",
        "held: KVec<Held>,",
        1,
        "one entry per loaded module a backend attached to: the loaded modules (a few hundred at most), not the input",
    ),
    r(
        "src/kallsyms/held.rs",
        "Self { held: KVec::new() }",
        1,
        "one entry per loaded module a backend attached to: the loaded modules (a few hundred at most), not the input",
    ),
    // src/probe/meta.rs
    r(
        "src/probe/meta.rs",
        "pub(crate) struct Symbol(KVec<u8>);",
        1,
        PROBE_NAMES,
    ),
    r(
        "src/probe/meta.rs",
        "name: Option<KVec<u8>>,",
        1,
        PROBE_NAMES,
    ),
    r(
        "src/probe/meta.rs",
        "let mut v = KVec::with_capacity(name.len() + 1, GFP_KERNEL)?;",
        1,
        PROBE_NAMES,
    ),
    r(
        "src/probe/meta.rs",
        "let mut v = KVec::new();",
        1,
        PROBE_NAMES,
    ),
    // src/probe/chunk.rs
    r(
        "src/probe/chunk.rs",
        "slots: KVec<Slot<B>>,",
        1,
        "a chunk: CHUNK (64) slots, never grown (the vector of chunks, which \
         grows with the set, is a KVVec)",
    ),
    r(
        "src/probe/chunk.rs",
        "KVec::with_capacity(CHUNK, GFP_KERNEL)",
        1,
        "one chunk: CHUNK (64) slots",
    ),
    // src/events/symbols.rs: each element is one @SYM's name (the vector
    // of them is a KVVec).
    r(
        "src/events/symbols.rs",
        "names: KVVec<(KVec<u8>, u64)>,",
        1,
        LINE_PART,
    ),
    r(
        "src/events/symbols.rs",
        "let mut n = KVec::new();",
        1,
        LINE_PART,
    ),
    // src/engine/registry.rs
    r("src/engine/registry.rs", "set: KVec<u8>,", 1, LINE_PART),
    r(
        "src/engine/registry.rs",
        "name: Option<KVec<u8>>,",
        1,
        LINE_PART,
    ),
    r("src/engine/registry.rs", "target: KVec<u8>,", 1, LINE_PART),
    r(
        "src/engine/registry.rs",
        "skip: Option<KVec<u8>>,",
        1,
        LINE_PART,
    ),
    r(
        "src/engine/registry.rs",
        "text: KVec<u8>,",
        1,
        "a staged line's text, for last_error: one control line \
         (<= command::MAX_LINE bytes; the staged lines themselves are a KVVec)",
    ),
    r(
        "src/engine/registry.rs",
        "last_error: KVec<u8>,",
        1,
        SENTENCE,
    ),
    r(
        "src/engine/registry.rs",
        "last_error: KVec::new(),",
        1,
        SENTENCE,
    ),
    r(
        "src/engine/registry.rs",
        "fn to_vec(s: &[u8]) -> Result<KVec<u8>>",
        1,
        "its callers copy parts of one staged line",
    ),
    r(
        "src/engine/registry.rs",
        "let mut v = KVec::new();",
        1,
        "to_vec's copy of a part of one line",
    ),
    r(
        "src/engine/registry.rs",
        "fn address_symbol(addr: u64) -> Result<(KVec<u8>, u32)>",
        1,
        PROBE_NAMES,
    ),
    r(
        "src/engine/registry.rs",
        "let mut t = Text(KVec::new());",
        1,
        "an address in hex: \"0x\" and at most 16 digits",
    ),
    // src/set.rs
    r(
        "src/set.rs",
        "name: KVec<u8>,",
        1,
        "a set name: <= MAX_NAME, or OWNER.NAME for an API set (<= 64 + 1 + \
         BATCHPROBE_MAX_NAME)",
    ),
    r(
        "src/set.rs",
        "tally: KVec<(&'static str, usize)>,",
        1,
        "one entry per backend field of a set (a fixed list, backends!)",
    ),
    // src/set/build.rs
    r(
        "src/set/build.rs",
        "let mut owned_name = KVec::new();",
        1,
        "the set name, as above",
    ),
    r(
        "src/set/build.rs",
        "tally: KVec<(&'static str, usize)>,",
        1,
        "one entry per backend field, as above",
    ),
    r(
        "src/set/build.rs",
        "-> Result<KVec<(&'static str, usize)>, Failed>",
        1,
        "one entry per backend field, as above",
    ),
    r(
        "src/set/build.rs",
        "let mut tally = KVec::new();",
        1,
        "one entry per backend field",
    ),
    r(
        "src/set/build.rs",
        "named: KVec<(KVec<u8>, Error)>,",
        1,
        "at most SKIPPED_SHOWN (256) refused glob members named, each a \
         kallsyms name (< KSYM_NAME_LEN); the rest only counted",
    ),
    r(
        "src/set/build.rs",
        "named: KVec::new(),",
        1,
        "at most SKIPPED_SHOWN (256) entries",
    ),
    r(
        "src/set/build.rs",
        "let mut v = KVec::new();",
        1,
        "one refused member's symbol, < KSYM_NAME_LEN",
    ),
    // src/events/tracefs.rs
    r(
        "src/events/tracefs.rs",
        "fn c_string(s: &[u8]) -> Result<KVec<u8>, Failed> {",
        1,
        "a set name or an event name (<= MAX_NAME, or an EventName's 63 bytes), and its NUL",
    ),
    r(
        "src/events/tracefs.rs",
        "let mut v = KVec::with_capacity(s.len() + 1, GFP_KERNEL).map_err(|_| Failed::oom())?;",
        1,
        "as above",
    ),
    // rust/events.c
    r(
        "rust/events.c",
        "link = kzalloc(sizeof(*link), GFP_KERNEL);",
        1,
        "one fixed-size link per tracefs instance that enables the event",
    ),
];

/// What names a kmalloc-backed vector or slice in Rust code.
const RUST_TOKENS: &[&str] = &["KVec", "Kmalloc"];
/// ... and a kmalloc'd slice or array, found as text.
const RUST_TEXT: &[&str] = &["KBox<["];
/// The kmalloc family in C (every one of these is an identifier prefix:
/// `kmalloc_array`, `kzalloc_node`, `krealloc_array`, ...). `kvmalloc`,
/// `kvzalloc`, `vmalloc` fall back or are vmalloc, and are fine.
const C_PREFIXES: &[&str] = &[
    "kmalloc", "kzalloc", "kcalloc", "krealloc", "kmemdup", "kstrdup", "kstrndup",
];

/// The lines of one file that allocate from kmalloc: (line number, code).
fn kmalloc_lines(text: &str, c: bool) -> Vec<(usize, String)> {
    code_lines(text)
        .into_iter()
        .enumerate()
        .filter(|(_, code)| {
            if c {
                C_PREFIXES.iter().any(|w| has_ident(code, w, true))
            } else {
                RUST_TOKENS.iter().any(|w| has_ident(code, w, false))
                    || RUST_TEXT.iter().any(|t| code.contains(t))
            }
        })
        .map(|(i, code)| (i + 1, code.trim().to_string()))
        .collect()
}

/// Checks `found` ((file, line, code) for every kmalloc line) against
/// `reviewed`: the problems, one line each.
fn check(found: &[(String, usize, String)], reviewed: &[Reviewed]) -> Vec<String> {
    let mut problems = Vec::new();
    for (file, line, code) in found {
        if !reviewed
            .iter()
            .any(|r| r.file == file && code.contains(r.code))
        {
            problems.push(format!(
                "{}:{}: kmalloc-backed, not reviewed: `{}` (if its size follows the \
                 input, make it a KVVec; if it has a small fixed bound, add it to \
                 REVIEWED saying why)",
                file, line, code
            ));
        }
    }
    for r in reviewed {
        assert!(
            !r.bound.is_empty(),
            "{}: `{}`: no bound given",
            r.file,
            r.code
        );
        let n = found
            .iter()
            .filter(|(file, _, code)| file == r.file && code.contains(r.code))
            .count();
        if n != r.lines {
            problems.push(format!(
                "{}: `{}` is on {} line(s), REVIEWED says {}: review it again",
                r.file, r.code, n, r.lines
            ));
        }
    }
    problems
}

fn scan() -> Vec<(String, usize, String)> {
    let mut found = Vec::new();
    for (rel, text) in sources(&["src", "rust"], &["rs", "c", "h"]) {
        let c = !rel.ends_with(".rs");
        for (line, code) in kmalloc_lines(&text, c) {
            found.push((rel.clone(), line, code));
        }
    }
    found
}

#[test]
fn every_kmalloc_vector_is_reviewed() {
    let found = scan();
    assert!(
        found.len() >= REVIEWED.len(),
        "the scan found only {} lines: is it reading the sources?",
        found.len()
    );
    let problems = check(&found, REVIEWED);
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// The scanner itself.

#[test]
fn finds_a_growing_kmalloc_vector() {
    let src = "pub(crate) struct Int3Set<B: Int3Kind> {\n    chunks: KVVec<KVec<Slot<B>>>,\n    ptrs: KVec<*mut B::Raw>,\n}\n";
    let found: Vec<_> = kmalloc_lines(src, false)
        .into_iter()
        .map(|(l, c)| ("src/probe.rs".to_string(), l, c))
        .collect();
    assert_eq!(found.len(), 2);
    let reviewed = [r(
        "src/probe.rs",
        "chunks: KVVec<KVec<Slot<B>>>,",
        1,
        "chunks",
    )];
    let problems = check(&found, &reviewed);
    assert_eq!(problems.len(), 1, "{:?}", problems);
    assert!(problems[0].starts_with("src/probe.rs:3:"), "{:?}", problems);
}

#[test]
fn vmalloc_vectors_and_comments_are_not_kmalloc() {
    let src = "let v: KVVec<u8> = KVVec::new(); // a KVec in a comment\n\
               /// The `KVec` header moves.\n\
               /* KVec\n KVec */ let s = \"// not a comment\"; let t = MyKVec::new();\n\
               fn f<'a>(x: &'a u8) -> char { '\"' } let k: KVec<u8>;\n";
    let found = kmalloc_lines(src, false);
    assert_eq!(found.len(), 1, "{:?}", found);
    assert_eq!(found[0].0, 5);
}

#[test]
fn finds_kmalloc_family_in_c() {
    let src = "buf = kvmalloc(len, GFP_KERNEL);\n/* kmalloc(n) */\np = kmalloc_array(n, 8, GFP_KERNEL);\nq = kzalloc(sizeof(*q), GFP_KERNEL);\n";
    let found = kmalloc_lines(src, true);
    let lines: Vec<_> = found.iter().map(|f| f.0).collect();
    assert_eq!(lines, [3, 4]);
}

#[test]
fn counts_must_match() {
    let found = vec![
        (
            "src/a.rs".to_string(),
            1,
            "let mut v = KVec::new();".to_string(),
        ),
        (
            "src/a.rs".to_string(),
            9,
            "let mut v = KVec::new();".to_string(),
        ),
    ];
    let once = [r("src/a.rs", "let mut v = KVec::new();", 1, "a name")];
    assert_eq!(check(&found, &once).len(), 1);
    let gone = [
        r("src/a.rs", "let mut v = KVec::new();", 2, "names"),
        r("src/a.rs", "tally: KVec<u8>,", 1, "fields"),
    ];
    assert_eq!(check(&found, &gone).len(), 1);
}
