//! Property tests: the parser never panics, and what it accepts round-trips.

use batchprobe_host_tests::command::*;
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
                               off in any::<u32>(), hex in any::<bool>()) {
        let group = match &name { Some(n) => format!("{set}/{n}"), None => set.clone() };
        let off_s = if hex { format!("{off:#x}") } else { off.to_string() };
        let line = format!("p:{group} {sym}+{off_s}");
        let parsed = parse_line(line.as_bytes());
        prop_assert_eq!(parsed, Ok(Some(Command::Probe(ProbeSpec {
            kind: ProbeKind::Kprobe,
            set: &set,
            name: name.as_deref(),
            target: Target::Symbol { name: &sym, offset: off },
            limit: None,
            skip: None,
        }))));
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
