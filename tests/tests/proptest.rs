// SPDX-License-Identifier: GPL-2.0

//! Property tests: the parser never panics, and what it accepts round-trips.

use batchprobe_host_tests::command::*;
use batchprobe_host_tests::symname::glob_match;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..1200)) {
        let _ = parse_line(&bytes);
        for (_, r) in parse_batch(&bytes) {
            let _ = r;
        }
    }

    #[test]
    fn never_panics_on_command_like_text(s in "[prdc]?[0-9]{0,3}:?[a-z_/]{0,8} ?[a-z_.*?\\[\\]!+0-9x-]{0,12} ?-{0,2}[a-z]{0,5}") {
        let _ = parse_line(s.as_bytes());
    }

    #[test]
    fn kprobe_lines_round_trip(set in "[A-Za-z_][A-Za-z0-9_]{0,20}",
                               name in proptest::option::of("[A-Za-z_][A-Za-z0-9_]{0,20}"),
                               sym in "[A-Za-z_][A-Za-z0-9_.]{0,40}",
                               off in any::<u32>(), hex in any::<bool>(), int3 in any::<bool>()) {
        let group = format!("{set}/{}", name.as_deref().unwrap_or(""));
        let off_s = if hex { format!("{off:#x}") } else { off.to_string() };
        let kind = if int3 { "p!" } else { "p" };
        let line = format!("{kind}:{group} {sym}+{off_s}");
        let parsed = parse_line(line.as_bytes());
        prop_assert_eq!(parsed, Ok(Some(Command::Probe(ProbeSpec {
            kind: ProbeKind::Kprobe,
            int3,
            set: &set,
            name: name.as_deref(),
            target: Target::Symbol { name: &sym, offset: off },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        }))));
    }

    /// A line on an address reads back from its canonical form, whatever
    /// base it was written in.
    #[test]
    fn address_lines_round_trip(addr in 1u64.., base in 0u8..3, ret in any::<bool>()) {
        let word = match base {
            0 => format!("{addr:#x}"),
            1 => format!("0{addr:o}"),
            _ => addr.to_string(),
        };
        let line = format!("{} {word}", if ret { "r" } else { "p" });
        let kind = if ret { ProbeKind::Kretprobe { maxactive: None } } else { ProbeKind::Kprobe };
        let spec = ProbeSpec {
            kind,
            int3: true,
            set: DEFAULT_SET,
            name: None,
            target: Target::Address { addr },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        };
        prop_assert_eq!(parse_line(line.as_bytes()), Ok(Some(Command::Probe(spec))));
        let canonical = Command::Probe(spec).to_string();
        prop_assert_eq!(parse_line(canonical.as_bytes()), Ok(Some(Command::Probe(spec))));
    }

    /// kprobe_events' own forms: a line with no group is a probe of the
    /// set `kprobes`, named by the line or after its symbol; `%return`
    /// makes a return probe of a `p:` line.
    #[test]
    fn lines_without_a_set_join_kprobes(name in proptest::option::of("[A-Za-z_][A-Za-z0-9_]{0,20}"),
                                        sym in "[A-Za-z_][A-Za-z0-9_.]{0,40}",
                                        ret in any::<bool>()) {
        let head = match &name { Some(n) => format!("p:{n}"), None => "p".to_string() };
        let suffix = if ret { "%return" } else { "" };
        let line = format!("{head} {sym}{suffix}");
        let kind = if ret { ProbeKind::Kretprobe { maxactive: None } } else { ProbeKind::Kprobe };
        let spec = ProbeSpec {
            kind,
            int3: false,
            set: DEFAULT_SET,
            name: name.as_deref(),
            target: Target::Symbol { name: &sym, offset: 0 },
            limit: None,
            skip: None,
            args: FetchArgs::default(),
        };
        prop_assert_eq!(parse_line(line.as_bytes()), Ok(Some(Command::Probe(spec))));
        // Its canonical form names the set.
        let canonical = Command::Probe(spec).to_string();
        prop_assert!(canonical.contains("kprobes/"));
        prop_assert_eq!(parse_line(canonical.as_bytes()), Ok(Some(Command::Probe(spec))));
    }

    #[test]
    fn glob_star_matches_any_suffix(prefix in "[a-z_]{0,10}", rest in "[a-z_]{0,10}") {
        let pattern = format!("{prefix}*");
        let name = format!("{prefix}{rest}");
        prop_assert!(glob_match(&pattern, &name));
        prop_assert!(glob_match(&name, &name));
    }
}

/// A slow, obviously right matcher for `*`, `?` and literals.
fn reference(p: &[u8], n: &[u8]) -> bool {
    match (p.first(), n.first()) {
        (None, None) => true,
        (Some(b'*'), _) => reference(&p[1..], n) || (!n.is_empty() && reference(p, &n[1..])),
        (Some(b'?'), Some(_)) => reference(&p[1..], &n[1..]),
        (Some(a), Some(b)) if a == b => reference(&p[1..], &n[1..]),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8192))]

    #[test]
    fn glob_agrees_with_reference(p in "[ab*?]{0,8}", n in "[ab]{0,10}") {
        prop_assert_eq!(glob_match(&p, &n), reference(p.as_bytes(), n.as_bytes()));
    }
}

/// Lines near the control language: real commands and options with random
/// names, symbols, globs, offsets and counts, plus junk in any position.
fn command_like() -> impl Strategy<Value = String> {
    let word = "[A-Za-z_][A-Za-z0-9_]{0,6}";
    let target = prop_oneof![
        4 => "[a-z_]{1,12}",
        3 => "[a-z_]{1,4}[*?][a-z_*]{0,4}",
        1 => "[a-z_]{1,6}\\[[a-z]{1,3}\\][a-z_*]{0,4}",
        1 => "[a-z_.]{1,10}",
    ];
    let off = prop_oneof![
        6 => Just(String::new()),
        3 => "\\+[0-9]{1,5}",
        2 => "\\+0x[0-9a-f]{1,4}",
        1 => "\\+[a-z]{1,2}"
    ];
    let kind = prop_oneof![
        4 => Just("p".to_string()),
        3 => Just("d".to_string()),
        3 => Just("r".to_string()),
        2 => "r[0-9]{1,4}",
        1 => "[a-z]{1,2}"
    ];
    let extra = prop_oneof![
        6 => Just(String::new()),
        2 => " max=[1-9][0-9]{0,5}",
        2 => " skip=[a-z_*]{1,6}",
        2 => " max=[1-9][0-9]{0,2} skip=[a-z*]{1,4}",
        1 => " --[a-z-]{1,10}",
        1 => " [a-z]{1,4}"
    ];
    let probe = (kind, word, proptest::option::of(word), target, off, extra).prop_map(
        |(k, s, n, t, o, e)| match n {
            Some(n) => format!("{k}:{s}/{n} {t}{o}{e}"),
            None => format!("{k}:{s} {t}{o}{e}"),
        },
    );
    let create = (
        word,
        proptest::sample::subsequence(
            vec!["--noopt", "--one-by-one", "--bare", "--fprobe", "--exit"],
            0..=5,
        ),
    )
        .prop_map(|(s, o)| format!("create {s} {}", o.join(" ")));
    let simple = (
        prop_oneof![
            Just("enable"),
            Just("disable"),
            Just("unregister"),
            Just("unregister")
        ],
        word,
        prop_oneof![4 => Just(""), 2 => Just(" --sync"), 1 => Just(" x")],
    )
        .prop_map(|(v, s, o)| format!("{v} {s}{o}"));
    let direct = (
        word,
        prop_oneof![Just("count"), Just("record"), Just("empty"), Just("fast")],
    )
        .prop_map(|(s, m)| format!("direct {s} {m}"));
    let junk = prop_oneof![
        Just("flush".to_string()),
        Just("flush now".to_string()),
        "-:[A-Za-z_0-9]{0,8}( x)?",
        "# [a-z ]{0,10}",
        "(creat|enable|direct|unregister)( [A-Za-z_0-9]{0,8})?( --[a-z]{1,5})?",
    ];
    let spaces = prop_oneof![Just(""), Just(" "), Just("\t"), Just("  ")];
    (
        prop_oneof![5 => probe, 2 => create, 2 => simple, 1 => direct, 1 => junk],
        spaces.clone(),
        spaces,
    )
        .prop_map(|(l, a, b)| format!("{a}{l}{b}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20000))]

    /// Every accepted command prints back to a line that parses to the same
    /// command; nothing panics on near-valid input.
    #[test]
    fn accepted_commands_print_back(line in command_like()) {
        if let Ok(Some(cmd)) = parse_line(line.as_bytes()) {
            let text = cmd.to_string();
            prop_assert_eq!(parse_line(text.as_bytes()), Ok(Some(cmd)), "{} -> {}", line, text);
        }
    }

    /// Whole batches of near-valid lines mixed with junk: every line gets a
    /// result, numbered in order, and nothing panics.
    #[test]
    fn batches_of_near_valid_lines(lines in proptest::collection::vec(
        prop_oneof![command_like(), "[\\x00-\\x7f]{0,30}", Just("\u{00e9}t\u{00e9}".to_string())], 0..40)) {
        let text = lines.join("\n");
        let mut last = 0;
        for (n, r) in parse_batch(text.as_bytes()) {
            prop_assert!(n > last);
            last = n;
            if let Ok(cmd) = r {
                let back = cmd.to_string();
                prop_assert_eq!(parse_line(back.as_bytes()), Ok(Some(cmd)));
            }
        }
    }
}

/// The generator is not vacuous: a good share of its lines are accepted
/// commands of every kind, so the print-back property is exercised.
#[test]
fn near_valid_generator_covers_every_command() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = command_like();
    let (mut accepted, mut kinds) = (0, std::collections::BTreeSet::new());
    for _ in 0..5000 {
        let line = strategy.new_tree(&mut runner).unwrap().current();
        if let Ok(Some(cmd)) = parse_line(line.as_bytes()) {
            accepted += 1;
            kinds.insert(
                cmd.to_string()
                    .split([' ', ':'])
                    .next()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    assert!(accepted > 1000, "only {accepted} of 5000 accepted");
    for k in [
        "p",
        "d",
        "r",
        "create",
        "enable",
        "disable",
        "unregister",
        "direct",
        "flush",
        "-",
    ] {
        assert!(kinds.contains(k), "no accepted {k} line in {kinds:?}");
    }
}
