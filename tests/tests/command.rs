// SPDX-License-Identifier: GPL-2.0

//! Tests of the control-file parser (`src/command.rs`).

use batchprobe_host_tests::command::*;
use batchprobe_host_tests::errno::{E2BIG, EINVAL};
use batchprobe_host_tests::symname::glob_match;

fn one(line: &str) -> Result<Option<Command<'_>>, ParseError> {
    parse_line(line.as_bytes())
}

fn kprobe<'a>(set: &'a str, name: Option<&'a str>, sym: &'a str, offset: u32) -> Command<'a> {
    Command::Probe(ProbeSpec {
        int3: false,
        kind: ProbeKind::Kprobe,
        set,
        name,
        target: Target::Symbol { name: sym, offset },
        limit: None,
        skip: None,
        args: FetchArgs::default(),
    })
}

/// A probe line's glob limit and fetch-argument words.
fn args(line: &str) -> (Option<u32>, Vec<&str>) {
    match one(line) {
        Ok(Some(Command::Probe(p))) => (p.limit, p.args.words().collect()),
        other => panic!("{line}: {other:?}"),
    }
}

/// A probe line on an address (`kprobe_events`' `MEMADDR`).
fn at_address<'a>(kind: ProbeKind, set: &'a str, name: Option<&'a str>, addr: u64) -> Command<'a> {
    Command::Probe(ProbeSpec {
        int3: true,
        kind,
        set,
        name,
        target: Target::Address { addr },
        limit: None,
        skip: None,
        args: FetchArgs::default(),
    })
}

#[test]
fn address_targets() {
    let p = ProbeKind::Kprobe;
    let r = ProbeKind::Kretprobe { maxactive: None };
    // kstrtoul(word, 0): hex, octal, decimal; always an int3 probe.
    let taken = [
        (
            "p 0xffffffff81000000",
            at_address(p, "kprobes", None, 0xffff_ffff_8100_0000),
        ),
        (
            "p:io/a 0XFFFFFFFF81000010",
            at_address(p, "io", Some("a"), 0xffff_ffff_8100_0010),
        ),
        ("p!:io/ 1234", at_address(p, "io", None, 1234)),
        ("p:io/ 0777", at_address(p, "io", None, 0o777)),
        (
            "r:io/b 0xffffffff81000000",
            at_address(r, "io", Some("b"), 0xffff_ffff_8100_0000),
        ),
        (
            "r3:io/ 0xffffffff81000000",
            at_address(
                ProbeKind::Kretprobe { maxactive: Some(3) },
                "io",
                None,
                0xffff_ffff_8100_0000,
            ),
        ),
    ];
    for (line, want) in taken {
        assert_eq!(one(line), Ok(Some(want)), "{line}");
        // The canonical form reads back as the same line.
        let canonical = want.to_string();
        assert_eq!(one(&canonical), Ok(Some(want)), "{canonical}");
    }
    // A leading '+' is kstrtoul's too.
    assert_eq!(
        one("p:io/ +0x10"),
        Ok(Some(at_address(p, "io", None, 0x10)))
    );
    // What kstrtoul does not read is a symbol: a module's name may start
    // with a digit (kprobe_events takes 8021q:SYM), a symbol's may not.
    assert_eq!(
        one("p:io/ 8021q:vlan_dev_hard_start_xmit"),
        Ok(Some(kprobe(
            "io",
            None,
            "8021q:vlan_dev_hard_start_xmit",
            0
        )))
    );
    assert_eq!(one("p:io/ 8021q:9x"), Err(ParseError::BadSymbol));
    // Every word after it is a fetch argument, max= too (not a glob).
    assert_eq!(
        args("p:io/ 0xffffffff81000000 %di max=3"),
        (None, vec!["%di", "max=3"])
    );
    let refused = [
        // The whole word is the address: no offset, no %return (as
        // kstrtoul() fails on both in trace_kprobe_create()).
        ("p:io/ 0xffffffff81000000+4", ParseError::BadAddress),
        ("p:io/ 0xffffffff81000000%return", ParseError::BadAddress),
        ("p:io/ 0x", ParseError::BadAddress),
        ("p:io/ 0xfffffffff810000000", ParseError::BadAddress),
        ("p:io/ 089", ParseError::BadAddress),
        ("p:io/ 12ab", ParseError::BadAddress),
        ("p:io/ 0", ParseError::BadAddress),
        // A direct call is made on a function, by name.
        ("d:io/ 0xffffffff81000000", ParseError::DirectAddress),
        // No symbol starts with a digit: skip= takes none.
        ("p:io/ vfs_* skip=0x10", ParseError::BadSkip),
    ];
    for (line, want) in refused {
        assert_eq!(one(line), Err(want), "{line}");
    }
    assert_eq!(ParseError::BadAddress.errno(), EINVAL);
    assert_eq!(ParseError::DirectAddress.errno(), EINVAL);
}

#[test]
fn module_symbols() {
    // The target keeps `MOD:SYM` whole: the kernel resolves it so.
    assert_eq!(
        one("p:io/a ext4:ext4_sync_fs"),
        Ok(Some(kprobe("io", Some("a"), "ext4:ext4_sync_fs", 0)))
    );
    assert_eq!(
        one("p:io/a nf_conntrack-x:nf_ct_delete+4"),
        Ok(Some(kprobe(
            "io",
            Some("a"),
            "nf_conntrack-x:nf_ct_delete",
            4
        )))
    );
    let long = format!("p:io/a {}:f", "m".repeat(56));
    assert_eq!(one(&long), Err(ParseError::BadModule));
}

#[test]
fn kprobe_lines() {
    assert_eq!(
        one("p:s1/open do_sys_open"),
        Ok(Some(kprobe("s1", Some("open"), "do_sys_open", 0)))
    );
    assert_eq!(
        one("p:s1/ vfs_read+5"),
        Ok(Some(kprobe("s1", None, "vfs_read", 5)))
    );
    assert_eq!(
        one("  p:s1/ vfs_read+0x10  "),
        Ok(Some(kprobe("s1", None, "vfs_read", 16)))
    );
    assert_eq!(
        one("p:s1/\tfoo.isra.0"),
        Ok(Some(kprobe("s1", None, "foo.isra.0", 0)))
    );
}

#[test]
fn kretprobe_and_direct_lines() {
    assert_eq!(
        one("r:s/ret vfs_write"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            kind: ProbeKind::Kretprobe { maxactive: None },
            set: "s",
            name: Some("ret"),
            target: Target::Symbol {
                name: "vfs_write",
                offset: 0
            },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        })))
    );
    assert_eq!(
        one("r16:s/ vfs_write"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            kind: ProbeKind::Kretprobe {
                maxactive: Some(16)
            },
            set: "s",
            name: None,
            target: Target::Symbol {
                name: "vfs_write",
                offset: 0
            },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        })))
    );
    assert_eq!(one("r0:s/ vfs_write"), Err(ParseError::BadMaxActive));
    assert_eq!(one("r4097:s/ vfs_write"), Err(ParseError::BadMaxActive));
    assert_eq!(one("rx:s vfs_write"), Err(ParseError::BadMaxActive));
    assert_eq!(one("r:s/ vfs_write+4"), Err(ParseError::OffsetNotAllowed));
    assert_eq!(one("d:s/ vfs_write+4"), Err(ParseError::OffsetNotAllowed));
    assert!(matches!(
        one("d:s/x __x64_sys_getpid"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            kind: ProbeKind::Direct,
            ..
        })))
    ));
}

#[test]
fn glob_targets() {
    assert_eq!(
        one("p:vfs/ vfs_*"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            kind: ProbeKind::Kprobe,
            set: "vfs",
            name: None,
            target: Target::Glob {
                pattern: "vfs_*",
                offset: 0
            },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        })))
    );
    assert!(matches!(
        one("p:s/ __x64_sys_[gs]et*+5"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            target: Target::Glob { offset: 5, .. },
            ..
        })))
    ));
}

#[test]
fn glob_limits() {
    assert!(matches!(
        one("p:seed/ *+5 max=256"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            limit: Some(256),
            target: Target::Glob { offset: 5, .. },
            ..
        })))
    ));
    assert!(matches!(
        one("r:s/ vfs_* max=0x10"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            limit: Some(16),
            ..
        })))
    ));
    assert_eq!(one("p:s/ vfs_* max=0"), Err(ParseError::BadLimit));
    assert_eq!(one("p:s/ vfs_* max="), Err(ParseError::BadLimit));
    // On a plain symbol's line `max=3` is a fetch argument named max, as
    // in kprobe_events; on a glob's, the options stand anywhere among the
    // arguments.
    assert_eq!(args("p:s/ vfs_read max=3"), (None, vec!["max=3"]));
    assert_eq!(args("p:s/ vfs_* max=3 x"), (Some(3), vec!["x"]));
    assert_eq!(
        args("p:s/ vfs_* a=%di max=3 b"),
        (Some(3), vec!["a=%di", "b"])
    );
    assert_eq!(args("p:s/ vfs_* 3"), (None, vec!["3"]));
    // A `d:` line's arguments fill its records (entry, or an exit set's
    // return records), as a `p:` line's.
    assert_eq!(args("d:s/ vfs_* max=3 x"), (Some(3), vec!["x"]));
}

#[test]
fn glob_skips() {
    assert!(matches!(
        one("p:s/ *+5 max=8 skip=*lock*"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            limit: Some(8),
            skip: Some("*lock*"),
            ..
        })))
    ));
    assert!(matches!(
        one("p:s/ vfs_* skip=vfs_read"),
        Ok(Some(Command::Probe(ProbeSpec {
            int3: false,
            skip: Some("vfs_read"),
            limit: None,
            ..
        })))
    ));
    assert_eq!(args("p:s/ vfs_read skip=x"), (None, vec!["skip=x"]));
    assert_eq!(one("p:s/ vfs_* skip="), Err(ParseError::BadSkip));
    assert_eq!(one("p:s/ vfs_* skip=a+5"), Err(ParseError::BadSkip));
    assert_eq!(one("p:s/ vfs_* skip=a skip=b"), Err(ParseError::BadSkip));
    assert_eq!(one("p:s/ vfs_* max=1 max=2"), Err(ParseError::BadLimit));
}

#[test]
fn set_commands() {
    let create = |one_by_one, bare| {
        Ok(Some(Command::Create {
            set: "s",
            options: CreateOptions {
                one_by_one,
                bare,
                ..CreateOptions::default()
            },
        }))
    };
    assert!(matches!(
        one("create s --fprobe"),
        Ok(Some(Command::Create {
            options: CreateOptions { fprobe: true, .. },
            ..
        }))
    ));
    assert!(matches!(
        one("create s --noopt"),
        Ok(Some(Command::Create {
            options: CreateOptions {
                noopt: true,
                one_by_one: false,
                ..
            },
            ..
        }))
    ));
    assert_eq!(one("create s"), create(false, false));
    assert_eq!(one("create s --one-by-one"), create(true, false));
    assert_eq!(one("create s --bare --one-by-one"), create(true, true));
    assert_eq!(one("create s --fast"), Err(ParseError::UnknownOption));
    assert_eq!(one("create s t"), Err(ParseError::TooManyArguments));
    assert_eq!(one("enable s"), Ok(Some(Command::Enable("s"))));
    assert_eq!(one("disable s"), Ok(Some(Command::Disable("s"))));
    assert_eq!(
        one("unregister s"),
        Ok(Some(Command::Unregister {
            set: "s",
            sync: false
        }))
    );
    assert_eq!(
        one("unregister s --sync"),
        Ok(Some(Command::Unregister {
            set: "s",
            sync: true
        }))
    );
    assert_eq!(one("flush"), Ok(Some(Command::Flush)));
    assert_eq!(
        one("create s --exit --one-by-one"),
        Ok(Some(Command::Create {
            set: "s",
            options: CreateOptions {
                exit: true,
                one_by_one: true,
                ..Default::default()
            }
        }))
    );
    assert_eq!(
        one("create s --exit --fprobe"),
        Err(ParseError::ConflictingOptions)
    );
    assert_eq!(
        one("create s --events"),
        Ok(Some(Command::Create {
            set: "s",
            options: CreateOptions {
                events: Events::All,
                ..Default::default()
            }
        }))
    );
    assert_eq!(
        one("create s --no-events --bare"),
        Ok(Some(Command::Create {
            set: "s",
            options: CreateOptions {
                events: Events::Off,
                bare: true,
                ..Default::default()
            }
        }))
    );
    // Neither: what kprobe_events would make ([`Events::Lines`]); with
    // --bare, none.
    let opts = |l| match one(l) {
        Ok(Some(Command::Create { options, .. })) => options,
        other => panic!("{l}: {other:?}"),
    };
    assert_eq!(opts("create s").events(), Events::Lines);
    assert_eq!(opts("create s --bare").events(), Events::Off);
    assert_eq!(opts("create s --events --events").events(), Events::All);
    assert_eq!(
        one("create s --events --no-events"),
        Err(ParseError::ConflictingOptions)
    );
    assert_eq!(
        one("create s --no-events --events"),
        Err(ParseError::ConflictingOptions)
    );
    for l in [
        "create s --no-events",
        "create s --events --noopt",
        "create s --bare",
    ] {
        let c = one(l).unwrap().unwrap();
        assert_eq!(one(&c.to_string()), Ok(Some(c)), "{l}");
    }
    // `--bare` handlers write no record: the two do not go together.
    assert_eq!(
        one("create s --bare --events"),
        Err(ParseError::ConflictingOptions)
    );
    // The aggregates count returns: with --exit only, never --bare.
    let o = opts("create s --exit --hist --errors");
    assert!(o.exit && o.hist && o.errors);
    let o = opts("create s --errors --exit");
    assert!(o.exit && !o.hist && o.errors);
    for l in [
        "create s --hist",
        "create s --errors",
        "create s --hist --exit --bare",
    ] {
        assert_eq!(one(l), Err(ParseError::NeedsExit), "{l}");
    }
    for l in ["create s --exit --hist", "create s --exit --errors --hist"] {
        let c = one(l).unwrap().unwrap();
        assert_eq!(one(&c.to_string()), Ok(Some(c)), "{l}");
    }
    assert_eq!(
        one("direct s exit"),
        Ok(Some(Command::Retarget {
            set: "s",
            mode: DirectMode::Exit
        }))
    );
    assert_eq!(one("-:s"), Ok(Some(Command::Unstage("s"))));
    assert_eq!(Command::Unstage("s").set(), Some("s"));
    assert_eq!(Command::Unstage("s").to_string(), "-:s");
    assert_eq!(one("-:"), Err(ParseError::BadName));
    assert_eq!(one("-:9s"), Err(ParseError::BadName));
    let one_event = Command::UnstageEvent {
        set: "s",
        event: "p",
    };
    assert_eq!(one("-:s/p"), Ok(Some(one_event)));
    assert_eq!(one("-:s.p"), Ok(Some(one_event)));
    assert_eq!(one_event.set(), Some("s"));
    assert_eq!(one_event.to_string(), "-:s/p");
    assert_eq!(one("-:s/"), Err(ParseError::BadName));
    assert_eq!(one("-:s/9p"), Err(ParseError::BadName));
    assert_eq!(one("-:s/p x"), Err(ParseError::TooManyArguments));
    assert_eq!(one("-:9/p"), Err(ParseError::BadName));
    assert_eq!(one("-:s x"), Err(ParseError::TooManyArguments));
    for mode in [DirectMode::Count, DirectMode::Record, DirectMode::Empty] {
        let line = format!("direct s {}", mode.as_str());
        assert_eq!(one(&line), Ok(Some(Command::Retarget { set: "s", mode })));
    }
    assert_eq!(one("direct s"), Err(ParseError::MissingArgument));
    assert_eq!(one("direct s fast"), Err(ParseError::UnknownOption));
    assert_eq!(one("direct s count x"), Err(ParseError::TooManyArguments));
    assert_eq!(one("unregister s --now"), Err(ParseError::UnknownOption));
    assert_eq!(one("unregister s t"), Err(ParseError::TooManyArguments));
    assert_eq!(one("enable"), Err(ParseError::MissingArgument));
    assert_eq!(one("enable a b"), Err(ParseError::TooManyArguments));
    assert_eq!(one("flush now"), Err(ParseError::TooManyArguments));
}

#[test]
fn blank_and_comments() {
    assert_eq!(one(""), Ok(None));
    assert_eq!(one("   \t "), Ok(None));
    assert_eq!(one("# p:s/ foo"), Ok(None));
}

#[test]
fn bad_input() {
    assert_eq!(one("x:s foo"), Err(ParseError::UnknownCommand));
    assert_eq!(one("pp:s foo"), Err(ParseError::UnknownCommand));
    assert_eq!(one("rr:s foo"), Err(ParseError::UnknownCommand));
    assert_eq!(one("p: foo"), Err(ParseError::NoName));
    assert_eq!(one("p:/e foo"), Err(ParseError::NoSet));
    assert_eq!(one("p:1s foo"), Err(ParseError::BadName));
    assert_eq!(one("p:s/a/b foo"), Err(ParseError::BadName));
    assert_eq!(one("p:s-x foo"), Err(ParseError::BadName));
    assert_eq!(one("p:s"), Err(ParseError::MissingArgument));
    // kprobe_events' fetch arguments: kept as written (compiled when the
    // line is staged); on d: lines refused as not supported yet.
    let words = |line| match one(line) {
        Ok(Some(Command::Probe(p))) => p.args.words().collect::<Vec<_>>(),
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(words("p:s/ foo bar"), ["bar"]);
    assert_eq!(
        words("p:io/read vfs_read file=$arg1  count=$arg3:u64\t"),
        ["file=$arg1", "count=$arg3:u64"]
    );
    assert_eq!(words("r:io/read vfs_read $retval"), ["$retval"]);
    assert_eq!(
        words("d:io/read vfs_read $arg1 $retval"),
        ["$arg1", "$retval"]
    );
    assert_eq!(one("p:s/ foo+"), Err(ParseError::BadOffset));
    assert_eq!(one("p:s/ foo+-1"), Err(ParseError::BadOffset));
    assert_eq!(one("p:s/ foo+0x"), Err(ParseError::BadOffset));
    assert_eq!(one("p:s/ foo+4294967296"), Err(ParseError::BadOffset));
    assert_eq!(one("p:s/ foo+1+2"), Err(ParseError::BadOffset));
    assert_eq!(one("p:s/ fo/o"), Err(ParseError::BadSymbol));
    // kstrtoul() reads "+5": an address (which no symbol contains: refused
    // when the write runs).
    assert!(matches!(
        one("p:s/ +5"),
        Ok(Some(Command::Probe(ProbeSpec {
            target: Target::Address { addr: 5 },
            ..
        })))
    ));
    // "+x5": a symbol "" at offset "x5".
    assert_eq!(one("p:s/ +x5"), Err(ParseError::BadOffset));
    let long_name = format!("p:{} foo", "a".repeat(MAX_NAME + 1));
    assert_eq!(one(&long_name), Err(ParseError::BadName));
    let long_sym = format!("p:s/ {}", "a".repeat(MAX_SYMBOL + 1));
    assert_eq!(one(&long_sym), Err(ParseError::BadSymbol));
    let long_line = format!("# {}", "a".repeat(MAX_LINE));
    assert_eq!(one(&long_line), Err(ParseError::LineTooLong));
    assert_eq!(ParseError::LineTooLong.errno(), E2BIG);
    assert_eq!(ParseError::BadSymbol.errno(), EINVAL);
}

#[test]
fn binary_junk() {
    assert_eq!(parse_line(b"p:s/ \xff\xfe"), Err(ParseError::NotText));
    assert_eq!(parse_line(b"p:s/ foo\0"), Err(ParseError::NotText));
    assert_eq!(parse_line(b"\x1b[2Jflush"), Err(ParseError::NotText));
}

#[test]
fn batches_number_lines() {
    let buf = b"# header\np:s/ a\n\nbogus\nflush\n";
    let got: Vec<_> = parse_batch(buf).collect();
    assert_eq!(
        got,
        vec![
            (2, Ok(kprobe("s", None, "a", 0))),
            (4, Err(ParseError::UnknownCommand)),
            (5, Ok(Command::Flush)),
        ]
    );
    assert_eq!(Command::Flush.set(), None);
    assert_eq!(kprobe("s", None, "a", 0).set(), Some("s"));
}

#[test]
fn globs() {
    assert!(glob_match("vfs_*", "vfs_read"));
    assert!(glob_match("*", ""));
    assert!(glob_match("*read*", "vfs_readv"));
    assert!(!glob_match("vfs_*", "do_vfs_read"));
    assert!(glob_match("a?c", "abc"));
    assert!(!glob_match("a?c", "ac"));
    assert!(glob_match("[a-c]x", "bx"));
    assert!(!glob_match("[!a-c]x", "bx"));
    assert!(glob_match("[!a-c]x", "dx"));
    assert!(glob_match("[]]", "]"));
    assert!(glob_match("a[", "a["));
    assert!(glob_match("*a*b*c", "xxaxxbxxbc"));
    assert!(!glob_match("*a*b*c", "xxaxxbxxb"));
}

/// `OWNER.NAME` names a set an in-kernel client made: `enable`, `disable`
/// and `unregister` accept it; probe lines, `create` and `direct` do not, so
/// a control-file set can never take an API set's name.
#[test]
fn owned_set_names() {
    assert_eq!(
        one("enable bpclient_c.main"),
        Ok(Some(Command::Enable("bpclient_c.main")))
    );
    assert_eq!(
        one("disable 8021q.s"),
        Ok(Some(Command::Disable("8021q.s")))
    );
    assert_eq!(
        one("unregister bpclient_rs.live --sync"),
        Ok(Some(Command::Unregister {
            set: "bpclient_rs.live",
            sync: true
        }))
    );
    for bad in [
        "enable .s",
        "enable m.",
        "enable m.1s",
        "enable m.s.t",
        "enable m-x.s",
        "unregister m..s",
    ] {
        assert_eq!(one(bad), Err(ParseError::BadName), "{bad}");
    }
    let long_owner = format!("enable {}.s", "m".repeat(MAX_MODULE_NAME + 1));
    assert_eq!(one(&long_owner), Err(ParseError::BadName));
    let max_owner = format!("enable {}.s", "m".repeat(MAX_MODULE_NAME));
    assert!(one(&max_owner).is_ok());
    assert_eq!(one("create m.s"), Err(ParseError::BadName));
    // kprobe_events' GROUP.EVENT: set m, probe s (not the set m.s).
    assert_eq!(one("p:m.s foo"), Ok(Some(kprobe("m", Some("s"), "foo", 0))));
    assert_eq!(one("d:m.s/x foo"), Err(ParseError::BadName));
    assert_eq!(one("direct m.s count"), Err(ParseError::BadName));
}

#[test]
fn forced_int3_lines() {
    let spec = |l| match one(l) {
        Ok(Some(Command::Probe(s))) => Some((s.kind, s.int3, s.target)),
        _ => None,
    };
    let sym = |name, offset| Target::Symbol { name, offset };
    assert_eq!(
        spec("p!:s/ vfs_read"),
        Some((ProbeKind::Kprobe, true, sym("vfs_read", 0)))
    );
    assert_eq!(
        spec("p!:s/n vfs_read+4"),
        Some((ProbeKind::Kprobe, true, sym("vfs_read", 4)))
    );
    assert_eq!(
        spec("r!:s/ vfs_read"),
        Some((
            ProbeKind::Kretprobe { maxactive: None },
            true,
            sym("vfs_read", 0)
        ))
    );
    assert_eq!(
        spec("r16!:s/ vfs_read"),
        Some((
            ProbeKind::Kretprobe {
                maxactive: Some(16)
            },
            true,
            sym("vfs_read", 0)
        ))
    );
    assert_eq!(
        spec("p:s/ vfs_read"),
        Some((ProbeKind::Kprobe, false, sym("vfs_read", 0)))
    );
    // Direct calls have no int3 form; the mark goes right before the colon.
    assert_eq!(one("d!:s/ vfs_read"), Err(ParseError::UnknownCommand));
    assert_eq!(one("p!!:s vfs_read"), Err(ParseError::UnknownCommand));
    assert_eq!(one("!p:s vfs_read"), Err(ParseError::UnknownCommand));
    assert_eq!(one("r!16:s vfs_read"), Err(ParseError::BadMaxActive));
}

#[test]
fn direct_mode_round_trips_through_its_u8() {
    for mode in [
        DirectMode::Count,
        DirectMode::Record,
        DirectMode::Empty,
        DirectMode::Exit,
    ] {
        assert_eq!(DirectMode::from_u8(mode as u8), Some(mode));
    }
    assert_eq!(DirectMode::from_u8(4), None);
    assert_eq!(DirectMode::from_u8(u8::MAX), None);
}

#[test]
fn kprobe_events_forms() {
    let ret = |set, name, sym| {
        Command::Probe(ProbeSpec {
            int3: false,
            kind: ProbeKind::Kretprobe { maxactive: None },
            set,
            name,
            target: Target::Symbol {
                name: sym,
                offset: 0,
            },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        })
    };
    let taken = [
        // No group: the set kprobes, as kprobe_events' group.
        ("p vfs_read", kprobe("kprobes", None, "vfs_read", 0)),
        (
            "p:myread vfs_read+4",
            kprobe("kprobes", Some("myread"), "vfs_read", 4),
        ),
        ("r vfs_read", ret("kprobes", None, "vfs_read")),
        // GROUP/EVENT, GROUP.EVENT, GROUP/ (named after the symbol).
        ("p:io/rd vfs_read", kprobe("io", Some("rd"), "vfs_read", 0)),
        ("p:io.rd vfs_read", kprobe("io", Some("rd"), "vfs_read", 0)),
        ("p:io/ vfs_read", kprobe("io", None, "vfs_read", 0)),
        // SYM%return, also after +0.
        ("p:io/rr vfs_read%return", ret("io", Some("rr"), "vfs_read")),
        (
            "p:io/rr vfs_read+0%return",
            ret("io", Some("rr"), "vfs_read"),
        ),
        ("r:io/rr vfs_read%return", ret("io", Some("rr"), "vfs_read")),
    ];
    for (line, want) in taken {
        assert_eq!(one(line), Ok(Some(want)), "{line}");
    }
    let refused = [
        // %return: not with an offset, not on a direct line; no other suffix.
        ("p:io/rr vfs_read+4%return", ParseError::OffsetNotAllowed),
        ("p:io/rr vfs_read%ret", ParseError::BadSuffix),
        ("d:io/rr vfs_read%return", ParseError::BadSuffix),
        // A glob's probes are named after their symbols.
        ("p:io/rd vfs_*", ParseError::NamedGlob),
        ("p:rd vfs_*", ParseError::NamedGlob),
        // MOD:SYM: a module name kallsyms could hold; MOD:GLOB not named.
        ("p:io/a :ext4_sync_fs", ParseError::BadModule),
        ("p:io/a ex/t4:ext4_sync_fs", ParseError::BadModule),
        ("p:io/a ext4:ext4:sync_fs", ParseError::BadSymbol),
        ("p:io/a ext4:", ParseError::BadSymbol),
        ("p:io/ *:ext4_sync_fs", ParseError::BadModule),
        ("p:io/ e*t4:ext4_*", ParseError::BadModule),
        ("p:io/a ext4:ext4_*", ParseError::NamedGlob),
        ("p:io/ vfs_* skip=ext4:ext4_sync_fs", ParseError::BadSkip),
    ];
    for (line, want) in refused {
        assert_eq!(one(line), Err(want), "{line}");
    }
    // MOD:GLOB on every line kind: a module's functions, with an offset
    // (p: lines), max= and skip= as any glob.
    for line in [
        "p:io/ ext4:ext4_*",
        "r:io/ ext4:ext4_*",
        "p:io/ ext4:ext4_*%return",
        "p!:io/ ext4:ext4_?ync*+4 max=3 skip=ext4_sync_fs",
        "p:io/ *:ext4_*",
        "d:io/ ext4:ext4_*",
        "d:io/ *:ext4_* max=10",
    ] {
        match one(line) {
            Ok(Some(Command::Probe(ProbeSpec {
                target: Target::Glob { pattern, .. },
                ..
            }))) => assert!(
                pattern.ends_with(":ext4_*") || pattern.starts_with("ext4:ext4_"),
                "{line}: {pattern}"
            ),
            other => panic!("{line}: {other:?}"),
        }
    }
    assert_eq!(ParseError::BadModule.errno(), EINVAL);
    // The canonical form keeps p!:'s bang.
    let forced = Command::Probe(ProbeSpec {
        int3: true,
        kind: ProbeKind::Kretprobe { maxactive: None },
        set: "io",
        name: None,
        target: Target::Glob {
            pattern: "vfs_*",
            offset: 0,
        },
        limit: None,
        skip: None,
        args: FetchArgs::default(),
    });
    assert_eq!(forced.to_string(), "r!:io/ vfs_*");
    assert_eq!(one("r!:io/ vfs_*"), Ok(Some(forced)));
}

/// The address word of a probe line: where the kernel's caret goes for a
/// refusal at registration (an `@SYM` it cannot resolve).
#[test]
fn address_word_of_a_line() {
    assert_eq!(address_word("p:bpx/e122 vfs_read @jiffies+x"), Some(11));
    assert_eq!(address_word("r:s/  \tvfs_read $retval"), Some(7));
    assert_eq!(address_word("p:s/"), None);
    assert_eq!(address_word("p:s/   "), None);
}
