// SPDX-License-Identifier: GPL-2.0

//! Tests of what `last_error` says (`src/errtext.rs`), and of where the
//! parser says a refused line went wrong (`command::parse_error_at`).

use batchprobe_host_tests::command::{parse_batch, parse_batch_lines, parse_error_at, ParseError};
use batchprobe_host_tests::errtext::*;

fn report(origin: &Origin<'_>, what: &str, errno: i32) -> String {
    let mut s = String::new();
    write_report(&mut s, origin, what, errno).unwrap();
    s
}

#[test]
fn errno_names() {
    assert_eq!(name(2), Some("ENOENT"));
    assert_eq!(name(22), Some("EINVAL"));
    assert_eq!(name(84), Some("EILSEQ"));
    assert_eq!(name(16), Some("EBUSY"));
    assert_eq!(name(95), Some("EOPNOTSUPP"));
    assert_eq!(name(0), None);
    assert_eq!(name(4242), None);
    // Either sign: the kernel's are negative.
    assert_eq!(Errno(-2).to_string(), "(ENOENT)");
    assert_eq!(Errno(17).to_string(), "(EEXIST)");
    assert_eq!(Errno(-4242).to_string(), "(errno 4242)");
    assert_eq!(Errno(i32::MIN).to_string(), "(errno 0)");
}

#[test]
fn every_kernel_errno_has_its_headers_name() {
    // Spot values from include/uapi/asm-generic/errno*.h and
    // include/linux/errno.h: the error returns an exit set counts by name.
    assert_eq!(name(39), Some("ENOTEMPTY"));
    assert_eq!(name(11), Some("EAGAIN"));
    assert_eq!(name(35), Some("EDEADLK"));
    assert_eq!(name(133), Some("EHWPOISON"));
    assert_eq!(name(516), Some("ERESTART_RESTARTBLOCK"));
    assert_eq!(name(41), None); // no errno 41 (EWOULDBLOCK's old slot)
    assert_eq!(name(58), None);
    let named: Vec<(i32, &str)> = (1..1024).filter_map(|e| name(e).map(|n| (e, n))).collect();
    // 1..=40, 42..=57, 59..=134 and 512..=531 less 517 and 520.
    assert_eq!(named.len(), 40 + 16 + 76 + 18);
    let mut names: Vec<&str> = named.iter().map(|e| e.1).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), named.len(), "a name for two numbers");
    assert!(names.iter().all(|n| n.starts_with('E')));
}

#[test]
fn every_errno_batchprobe_returns_has_a_name() {
    use batchprobe_host_tests::errno::*;
    for e in [ENOENT, E2BIG, EBUSY, EINVAL, EOPNOTSUPP, EALREADY] {
        assert!(name(e).is_some(), "{e}");
    }
    // ENOMEM, EEXIST, ENOSPC, EILSEQ, EACCES, EPERM, ENODEV, EAGAIN.
    for e in [12, 17, 28, 84, 13, 1, 19, 11] {
        assert!(name(e).is_some(), "{e}");
    }
}

#[test]
fn refusals_in_words_per_site() {
    assert_eq!(refusal(Site::Kprobe, -2), "unknown symbol");
    assert_eq!(refusal(Site::Kretprobe, -2), "unknown symbol");
    assert!(refusal(Site::Kprobe, -22).contains("blacklisted"));
    assert!(refusal(Site::Kretprobe, -22).contains("blacklisted"));
    assert!(refusal(Site::Kprobe, -84).starts_with("mid-instruction"));
    // The same errno means something else from ftrace's filter.
    assert!(refusal(Site::Ftrace, -22).starts_with("not ftrace-able"));
    assert!(refusal(Site::Ftrace, -2).starts_with("not ftrace-able"));
    assert!(refusal(Site::Direct, -16).contains("another tracer holds it"));
    assert!(refusal(Site::ExitWatch, -16).contains("ftrace_enabled is 0"));
    assert!(refusal(Site::ExitWatch, -95).contains("unwinder"));
    assert!(refusal(Site::KprobeEnable, -16).contains("another tracer holds it"));
    // Anything else: plain words, never a number.
    assert_eq!(refusal(Site::Kprobe, -12), "out of memory");
    assert_eq!(refusal(Site::Fprobe, -4242), "failed");
    for site in [
        Site::Kprobe,
        Site::Kretprobe,
        Site::KprobeEnable,
        Site::Ftrace,
        Site::Direct,
        Site::Fprobe,
    ] {
        for e in 0..600 {
            let w = refusal(site, -e);
            assert!(!w.is_empty() && !w.contains("errno"), "{site:?} {e}: {w}");
            assert!(!w.chars().any(|c| c.is_ascii_digit()), "{site:?} {e}: {w}");
        }
    }
}

#[test]
fn a_refused_probe_is_blamed_on_its_line_then_the_create() {
    // The example: printf 'p:oops/a vfs_read\np:oops/b no_such_function\ncreate oops\n'
    let o = Origin::Line {
        number: 3,
        text: Some("create oops"),
        probe: Some(ProbeLine {
            number: 2,
            earlier: false,
            text: "p:oops/b no_such_function",
        }),
        column: None,
    };
    assert_eq!(
        report(&o, refusal(Site::Kprobe, -2), -2),
        "line 2: p:oops/b no_such_function: unknown symbol (ENOENT), at create on line 3\n"
    );
}

#[test]
fn a_line_staged_by_an_earlier_write() {
    let o = Origin::Line {
        number: 1,
        text: Some("create oops --noopt"),
        probe: Some(ProbeLine {
            number: 4,
            earlier: true,
            text: "p:oops/ version_proc_show+1",
        }),
        column: None,
    };
    assert_eq!(
        report(&o, refusal(Site::Kprobe, -84), -84),
        "line 4 of an earlier write: p:oops/ version_proc_show+1: mid-instruction: not an \
         instruction boundary kprobes can probe (EILSEQ), at create on line 1\n"
    );
}

#[test]
fn a_failed_command_names_its_own_line() {
    let o = Origin::Line {
        number: 2,
        text: Some("create dup"),
        probe: None,
        column: None,
    };
    assert_eq!(
        report(&o, "set dup already exists", 17),
        "line 2: create dup: set dup already exists (EEXIST)\n"
    );
    // A line that cannot be shown (not text) is left out.
    let o = Origin::Line {
        number: 1,
        text: None,
        probe: None,
        column: None,
    };
    assert_eq!(
        report(&o, "not a text line", -22),
        "line 1: not a text line (EINVAL)\n"
    );
}

#[test]
fn api_calls() {
    assert_eq!(
        report(&Origin::Api, "no owner module", -22),
        "api: no owner module (EINVAL)\n"
    );
}

#[test]
fn the_errno_is_said_once() {
    let o = Origin::Line {
        number: 3,
        text: Some("create oops"),
        probe: Some(ProbeLine {
            number: 2,
            earlier: false,
            text: "p:oops/b no_such_function",
        }),
        column: None,
    };
    let r = report(&o, refusal(Site::Kprobe, -2), -2);
    assert_eq!(r.matches("ENOENT").count(), 1);
    assert!(!r.contains("errno"));
    assert!(!r.contains("-2"));
}

fn parse_report(line: &str) -> String {
    let (e, column) = parse_error_at(line.as_bytes()).expect("a refused line");
    let o = Origin::Line {
        number: 1,
        text: Some(line.trim()),
        probe: None,
        column,
    };
    report(&o, e.as_str(), e.errno())
}

#[test]
fn parse_errors_put_a_caret_under_the_word() {
    assert_eq!(
        parse_report("p:e3/ vfs_read+zz"),
        "line 1: p:e3/ vfs_read+zz: bad offset (EINVAL)\n  p:e3/ vfs_read+zz\n                 ^\n"
    );
    assert_eq!(
        parse_report("  create s --nope"),
        "line 1: create s --nope: unknown option (EINVAL)\n  create s --nope\n           ^\n"
    );
    assert_eq!(
        parse_report("r:s/ vfs_read+4"),
        "line 1: r:s/ vfs_read+4: offset not allowed on this probe kind (EINVAL)\n  \
         r:s/ vfs_read+4\n                ^\n"
    );
    // A missing word: the caret at the end of the line.
    assert_eq!(
        parse_report("enable"),
        "line 1: enable: missing argument (EINVAL)\n  enable\n        ^\n"
    );
    // Tabs stay tabs under the line.
    assert_eq!(
        parse_report("r:s/\tvfs_read+4"),
        "line 1: r:s/\tvfs_read+4: offset not allowed on this probe kind (EINVAL)\n  \
         r:s/\tvfs_read+4\n      \t         ^\n"
    );
}

#[test]
fn parse_error_columns() {
    let at = |l: &str| parse_error_at(l.as_bytes());
    assert_eq!(at("p:s/ vfs_read"), None);
    assert_eq!(at("# comment"), None);
    assert_eq!(at("bogus s"), Some((ParseError::UnknownCommand, Some(0))));
    assert_eq!(at("p vfs_read"), None);
    assert_eq!(at("p: vfs_read"), Some((ParseError::NoName, Some(2))));
    assert_eq!(at("p:/e vfs_read"), Some((ParseError::NoSet, Some(2))));
    assert_eq!(at("p:s/ vfs%read"), Some((ParseError::BadSuffix, Some(8))));
    assert_eq!(
        at("d:s/ vfs_read%return"),
        Some((ParseError::BadSuffix, Some(5)))
    );
    assert_eq!(at("p:s/e vfs_*"), Some((ParseError::NamedGlob, Some(0))));
    assert_eq!(at("p:s/ 0xffff"), None);
    assert_eq!(at("p:s/ 0xffff+4"), Some((ParseError::BadAddress, Some(5))));
    assert_eq!(
        at("d:s/ 0xffff"),
        Some((ParseError::DirectAddress, Some(5)))
    );
    assert_eq!(at("p:s/ ext/4:x"), Some((ParseError::BadModule, Some(5))));
    assert_eq!(at("d:s/ ext4:x*"), None);
    assert_eq!(at("p:s/ ext4:x*"), None);
    assert_eq!(at("-:s/9e"), Some((ParseError::BadName, Some(4))));
    assert_eq!(at("p:1bad vfs_read"), Some((ParseError::BadName, Some(2))));
    assert_eq!(at("p:s/9 vfs_read"), Some((ParseError::BadName, Some(4))));
    assert_eq!(at("p:s/ vfs-read"), Some((ParseError::BadSymbol, Some(5))));
    assert_eq!(
        at("r5000:s/ vfs_read"),
        Some((ParseError::BadMaxActive, Some(1)))
    );
    assert_eq!(
        at("p:s/ vfs_* max=0"),
        Some((ParseError::BadLimit, Some(11)))
    );
    assert_eq!(
        at("p:s/ vfs_* skip=a+1"),
        Some((ParseError::BadSkip, Some(11)))
    );
    assert_eq!(
        at("create s --exit --fprobe"),
        Some((ParseError::ConflictingOptions, Some(16)))
    );
    assert_eq!(
        at("create s --events --noopt --bare"),
        Some((ParseError::ConflictingOptions, Some(26)))
    );
    assert_eq!(
        at("direct s sideways"),
        Some((ParseError::UnknownOption, Some(9)))
    );
    assert_eq!(at("-:9"), Some((ParseError::BadName, Some(2))));
    assert_eq!(
        at("flush now"),
        Some((ParseError::TooManyArguments, Some(6)))
    );
    // The line as a whole.
    assert_eq!(at("p:s/ \u{7f}"), Some((ParseError::NotText, None)));
    assert_eq!(
        parse_error_at(b"p:s/ \xff"),
        Some((ParseError::NotText, None))
    );
    let long = format!("p:s/ {}", "a".repeat(2000));
    assert_eq!(at(&long), Some((ParseError::LineTooLong, None)));
}

#[test]
fn parse_errors_are_the_same_with_or_without_columns() {
    for l in [
        "bogus",
        "p:s",
        "create",
        "create s x",
        "create s --exit --fprobe --bogus",
        "unregister s --x",
        "r0:s/ f",
        "d!:s/ f",
        "p:s/ f+0x",
        "p:s/ f skip=g",
    ] {
        let plain = batchprobe_host_tests::command::parse_line(l.as_bytes()).err();
        assert_eq!(parse_error_at(l.as_bytes()).map(|(e, _)| e), plain, "{l}");
    }
}

#[test]
fn long_lines_are_cut() {
    let text = "p:s/ ".to_string() + &"x".repeat(600);
    let o = Origin::Line {
        number: 1,
        text: Some(&text),
        probe: None,
        column: None,
    };
    let r = report(&o, "bad symbol", 22);
    assert!(r.len() < TEXT_SHOWN + 64, "{}", r.len());
    assert!(r.contains("xxx...: bad symbol (EINVAL)"));
}

#[test]
fn batch_lines_keep_their_text() {
    let buf = b"p:a/ f\n\n  create a  \nbogus\n";
    let lines: Vec<_> = parse_batch_lines(buf)
        .map(|(n, t, r)| (n, t, r.is_ok()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (1, &b"p:a/ f"[..], true),
            (3, &b"  create a  "[..], true),
            (4, &b"bogus"[..], false),
        ]
    );
    assert_eq!(parse_batch(buf).count(), 3);
    assert_eq!(command_word("create a --noopt"), "create");
}
