// SPDX-License-Identifier: GPL-2.0

//! Tests of the `sprint_symbol()` and `/proc/kallsyms` line decoders
//! (`src/symname.rs`).

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

/// The decoder before its byte scans (string searches over the whole
/// line), as the model the byte decoder must agree with: a hex field is
/// `0x` and hex digits only (the old one took a sign after `0x`, which
/// `sprint_symbol()` never prints).
fn model(s: &str) -> Option<SymbolAt<'_>> {
    fn hex(s: &str) -> Option<u64> {
        let d = s.strip_prefix("0x")?;
        if d.is_empty() || !d.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(d, 16).ok()
    }
    let s = s.trim_end_matches(['\0', '\n']);
    let (head, module) = match s.split_once(" [") {
        Some((h, m)) => {
            let m = m.strip_suffix(']')?;
            (h, Some(m.split(' ').next().unwrap_or(m)))
        }
        None => (s, None),
    };
    let (name, rest) = head.rsplit_once('+')?;
    let (off, size) = rest.split_once('/')?;
    if name.is_empty() {
        return None;
    }
    Some(SymbolAt {
        name,
        offset: hex(off)?,
        size: hex(size)?,
        module,
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8192))]

    /// Lines shaped like `sprint_symbol()`'s, and near misses of them.
    #[test]
    fn byte_decoder_agrees_with_the_model(
        s in "[a-z_.+/ \\[\\]]{0,12}(\\+0x[0-9a-fA-FxX+]{0,17}/0x[0-9a-fg]{0,17})?( \\[[a-z_ 0-9]{0,10}\\]?)?[\\x00\n]{0,2}"
    ) {
        proptest::prop_assert_eq!(parse_sprint_symbol(&s), model(&s));
        proptest::prop_assert_eq!(parse_sprint_symbol_bytes(s.as_bytes()), model(&s));
    }

    /// Any bytes: no panic, and where they are UTF-8, the model's answer.
    #[test]
    fn byte_decoder_on_any_bytes(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
        let got = parse_sprint_symbol_bytes(&b);
        if let Ok(s) = core::str::from_utf8(&b) {
            proptest::prop_assert_eq!(got, model(s));
        }
    }
}

#[test]
fn byte_decoder_on_the_walks_lines() {
    for line in [
        "vfs_read+0x0/0x1a0",
        "do_sys_open+0x1f/0x80\0\0",
        "f+0x4/0x10 [m 0123abcd]",
        "__pfx_x+0x0/0x10 [batchprobe]\n",
        "a+b+0x1/0x2",
        "f+0xffffffffffffffff/0x1",
    ] {
        assert_eq!(
            parse_sprint_symbol_bytes(line.as_bytes()),
            model(line),
            "{line}"
        );
        assert!(model(line).is_some(), "{line}");
    }
    // Past 64 bits, a sign, and a name that is not UTF-8.
    assert_eq!(parse_sprint_symbol("f+0x10000000000000000/0x1"), None);
    assert_eq!(parse_sprint_symbol("f+0x+1/0x1"), None);
    assert_eq!(parse_sprint_symbol_bytes(b"\xff+0x0/0x10"), None);
}

#[test]
fn kallsyms_lines() {
    assert_eq!(
        parse_kallsyms_line("ffffffff81e00040 D jiffies"),
        Some(KallsymsLine {
            addr: 0xffff_ffff_81e0_0040,
            name: "jiffies",
            module: None
        })
    );
    assert_eq!(
        parse_kallsyms_line("ffffffffc0a01230 t ext4_sync_fs\t[ext4]"),
        Some(KallsymsLine {
            addr: 0xffff_ffff_c0a0_1230,
            name: "ext4_sync_fs",
            module: Some("ext4")
        })
    );
    // Build ids shown after the module's name.
    assert_eq!(
        parse_kallsyms_line("ffffffffc0a01230 t f\t[m 1234abcd]").map(|l| l.module),
        Some(Some("m"))
    );
    // Hidden addresses read as zero, and are decoded as such.
    assert_eq!(
        parse_kallsyms_line("0000000000000000 T vfs_read").map(|l| l.addr),
        Some(0)
    );
    for bad in [
        "",
        "ffffffff81e00040",
        "ffffffff81e00040 D",
        "ffffffff81e00040 D ",
        "zz D x",
        "ffffffff81e00040 DD x",
        "1ffffffff81e00040 D x",
        "ffffffff81e00040 t f\text4",
        "ffffffff81e00040 t a b",
    ] {
        assert_eq!(parse_kallsyms_line(bad), None, "{bad:?}");
    }
}

/// kprobes' debugfs `blacklist` lines, as `kprobe_blacklist_seq_show()`
/// prints them (`0x%px-0x%px\t%ps`).
#[test]
fn blacklist_lines() {
    assert_eq!(
        parse_blacklist_line("0xffffffff81042a10-0xffffffff81042b30\tperf_event_nmi_handler"),
        Some(BlacklistLine {
            start: 0xffffffff81042a10,
            end: 0xffffffff81042b30,
            name: "perf_event_nmi_handler",
            module: None
        })
    );
    // Addresses hidden from the reader: zeroes, the name still there.
    assert_eq!(
        parse_blacklist_line("0x0000000000000000-0x0000000000000000\texc_int3"),
        Some(BlacklistLine {
            start: 0,
            end: 0,
            name: "exc_int3",
            module: None
        })
    );
    // A module's, with or without a build id.
    assert_eq!(
        parse_blacklist_line("0xffffffffc0001000-0xffffffffc0001040\tfoo_nmi [foo]")
            .and_then(|l| l.module),
        Some("foo")
    );
    assert_eq!(
        parse_blacklist_line("0xffffffffc0001000-0xffffffffc0001040\tfoo_nmi [foo 0123abcd]")
            .map(|l| (l.name, l.module)),
        Some(("foo_nmi", Some("foo")))
    );
    // Not a line of it.
    for bad in [
        "",
        "0xffffffff81042a10-0xffffffff81042b30",
        "0xffffffff81042b30-0xffffffff81042a10\tbackwards",
        "ffffffff81042a10-ffffffff81042b30\tno_prefix",
        "0xffffffff81042a10-0xffffffff81042b30\t",
        "0xffffffff81042a10-0xffffffff81042b30\tfoo [foo",
        "0xffffffff81042a10 0xffffffff81042b30\tfoo",
    ] {
        assert_eq!(parse_blacklist_line(bad), None, "{bad:?}");
    }
}

/// `MOD:SYM` and `MOD:GLOB` split at the first colon; a core-kernel name
/// has none.
#[test]
fn split_module_at_the_first_colon() {
    assert_eq!(
        split_module(b"ext4:ext4_file_open"),
        Some((&b"ext4"[..], &b"ext4_file_open"[..]))
    );
    assert_eq!(split_module(b"*:vfs_*"), Some((&b"*"[..], &b"vfs_*"[..])));
    assert_eq!(split_module(b":x"), Some((&b""[..], &b"x"[..])));
    assert_eq!(split_module(b"a:b:c"), Some((&b"a"[..], &b"b:c"[..])));
    assert_eq!(split_module(b"vfs_read"), None);
}
