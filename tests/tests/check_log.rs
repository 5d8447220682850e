// SPDX-License-Identifier: GPL-2.0

//! The check's verdict, tested: `scripts/check-log.sh` on console logs built
//! here, one per way a run can go wrong. Each must fail the check and name
//! what went wrong; a clean log must pass with its counts, skips included.
//! (Real logs look like these: the kselftest runner's plan and one line per
//! program, each program's KTAP nested under "# ", kernel lines between.)

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// What `check-log.sh` made of a log: its exit status, stdout, stderr and
/// the skips file.
struct Verdict {
    ok: bool,
    out: String,
    err: String,
    skips: String,
    /// LOG.first-splat: the first splat as shown, kept for check.sh's end.
    first_splat: Option<String>,
}

/// Runs `check-log.sh` on `log` (2 CPUs asked for) in a fresh file.
fn judge(name: &str, log: &str) -> Verdict {
    let dir = std::env::temp_dir().join(format!("bp-check-log-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(format!("{name}.log"));
    fs::write(&path, log).unwrap();
    let script = common::root().join("scripts/check-log.sh");
    let o = Command::new("sh")
        .arg(&script)
        .arg(&path)
        .arg("2")
        .output()
        .expect("sh runs");
    let skips = fs::read_to_string(path.with_extension("log.skips")).unwrap_or_default();
    let first_splat = fs::read_to_string(path.with_extension("log.first-splat")).ok();
    Verdict {
        ok: o.status.success(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        skips,
        first_splat,
    }
}

/// One program's part of the log: its KTAP (`cases`: "ok 1 a" ...), its
/// totals and the runner's line (`result`: "ok 1 selftests: ...").
fn program(
    name: &str,
    plan: usize,
    cases: &[&str],
    totals: (u32, u32, u32),
    result: &str,
) -> String {
    let mut s = format!("# selftests: batchprobe: {name}\n# TAP version 13\n# 1..{plan}\n");
    for c in cases {
        s += &format!("# {c}\n");
    }
    s += &format!(
        "# # Totals: pass:{} fail:{} xfail:0 xpass:0 skip:{} error:0\n",
        totals.0, totals.1, totals.2
    );
    s += result;
    s += "\n";
    s
}

const START: &str =
    "[    1.0] Linux version 6.12\nBATCHPROBE-GUEST-START mode=check nproc=2 kernel=6.12\n";
const DONE: &str = "BATCHPROBE-GUEST-DONE rc=0\n";

fn a_ok() -> String {
    program(
        "test_a.sh",
        2,
        &["ok 1 first", "ok 2 second (no CONFIG_X) # SKIP"],
        (1, 0, 1),
        "ok 1 selftests: batchprobe: test_a.sh",
    )
}

fn b_ok() -> String {
    program(
        "test_b.sh",
        2,
        &["ok 1 one", "ok 2 two"],
        (2, 0, 0),
        "ok 2 selftests: batchprobe: test_b.sh",
    )
}

/// A program that skips whole, as the runner reports it.
fn c_skip() -> String {
    "# selftests: batchprobe: test_c.sh\n# TAP version 13\n\
     # 1..0 # SKIP requires /proc/cmdline:bp.inject=fail\n\
     ok 3 selftests: batchprobe: test_c.sh # SKIP\n"
        .to_string()
}

fn log(runner_plan: usize, body: &str, done: &str) -> String {
    format!("{START}TAP version 13\n1..{runner_plan}\n{body}{done}")
}

#[test]
fn a_clean_run_passes_with_its_counts_and_skips() {
    let v = judge("clean", &log(3, &(a_ok() + &b_ok() + &c_skip()), DONE));
    assert!(v.ok, "{}{}", v.out, v.err);
    assert_eq!(v.out.trim(), "guest: 3 passed, 0 failed, 2 skipped");
    assert!(
        v.skips.contains("test_a.sh: second (no CONFIG_X)\n"),
        "{}",
        v.skips
    );
    assert!(
        v.skips
            .contains("test_c.sh: the whole program: requires /proc/cmdline:bp.inject=fail"),
        "{}",
        v.skips
    );
}

#[test]
fn a_failed_case_fails() {
    let bad = program(
        "test_b.sh",
        2,
        &[
            "# ok 1's note",
            "ok 1 one",
            "# kprobe_events: bphit d.... two: (f+0x4/0x40) (3)",
            "# batchprobe:    bphit dN... two: (f+0x4/0x40) (3)",
            "not ok 2 two",
        ],
        (1, 1, 0),
        "not ok 2 selftests: batchprobe: test_b.sh # exit=1",
    );
    let v = judge(
        "notok",
        &log(
            3,
            &(a_ok() + &bad + &c_skip()),
            "BATCHPROBE-GUEST-DONE rc=1\n",
        ),
    );
    assert!(!v.ok);
    assert!(v.out.contains("1 failed"), "{}", v.out);
    assert!(v.err.contains("test_b.sh: not ok 2 two"), "{}", v.err);
    // What the program said about the failed case comes with it; what it
    // said about the case before does not.
    assert!(
        v.err.contains(
            "not ok 2 two\n        kprobe_events: bphit d.... two: (f+0x4/0x40) (3)\n        batchprobe:    bphit dN..."
        ),
        "{}",
        v.err
    );
    assert!(!v.err.contains("ok 1's note"), "{}", v.err);
}

#[test]
fn a_missing_program_fails() {
    let v = judge("missing", &log(3, &(a_ok() + &b_ok()), DONE));
    assert!(!v.ok);
    assert!(
        v.err.contains("the runner planned 3 programs, 2 reported"),
        "{}",
        v.err
    );
}

#[test]
fn a_program_that_never_ended_fails() {
    let half = "# selftests: batchprobe: test_c.sh\n# TAP version 13\n# 1..4\n# ok 1 x\n";
    let v = judge("unended", &log(3, &(a_ok() + &b_ok() + half), DONE));
    assert!(!v.ok);
    assert!(
        v.err.contains("test_c.sh: started, never ended"),
        "{}",
        v.err
    );
}

#[test]
fn a_result_line_broken_by_the_console_fails() {
    // The kernel's line cut "# ok 2 two" inside its "ok": the result is lost,
    // one case fewer than planned.
    let broken = program(
        "test_b.sh",
        2,
        &["ok 1 one", "o[  12.3] batchprobe: loaded\nk 2 two"],
        (2, 0, 0),
        "ok 2 selftests: batchprobe: test_b.sh",
    );
    let v = judge("broken", &log(3, &(a_ok() + &broken + &c_skip()), DONE));
    assert!(!v.ok);
    assert!(
        v.err.contains("test_b.sh: planned 2 cases, reported 1"),
        "{}",
        v.err
    );
}

/// A splat fails the run, and is shown in ten lines: the line before its
/// banner (a WARN's message), the banner, its RIP line and the first sure
/// frames of its trace (not the "?" ones), with the selftest that ran.
#[test]
fn a_splat_fails_and_is_shown_in_ten_lines() {
    let splat = "------------[ cut here ]------------\n\
                 Failed to disarm kprobe-ftrace at vfs_read+0x4/0x100 (error -2)\n\
                 WARNING: CPU: 0 PID: 10 at kernel/kprobes.c:1131 disarm_kprobe_ftrace+0xbf/0xe0\n\
                 Modules linked in: batchprobe(OE)\n\
                 RIP: 0010:disarm_kprobe_ftrace+0xbf/0xe0\n\
                 RSP: 0018:ffffc90000abbd58 EFLAGS: 00010282\n\
                 Call Trace:\n <TASK>\n ? __warn+0x80/0x120\n\
                 \x20__disable_kprobe+0x6a/0x90\n disable_kprobe+0x20/0x40\n\
                 \x20? kfree+0x10/0x20\n f3+0x1/0x2\n f4+0x1/0x2\n f5+0x1/0x2\n\
                 \x20f6+0x1/0x2\n f7+0x1/0x2\n ---[ end trace 0000000000000000 ]---\n";
    let header = "# selftests: batchprobe: test_b.sh\n";
    let body = a_ok() + header + splat + &b_ok().replacen(header, "", 1) + &c_skip();
    let v = judge("splat", &log(3, &body, DONE));
    assert!(!v.ok);
    assert!(
        v.err.contains("kernel splat in the console log"),
        "{}",
        v.err
    );
    let shown = v
        .err
        .split("the first splat, at line ")
        .nth(1)
        .unwrap_or_else(|| panic!("no first splat shown: {}", v.err));
    assert!(
        shown.contains("selftests: batchprobe: test_b.sh"),
        "{}",
        v.err
    );
    for line in [
        "(error -2)",
        "WARNING: CPU: 0 PID: 10 at kernel/kprobes.c:1131",
        "RIP: 0010:disarm_kprobe_ftrace+0xbf/0xe0",
        "__disable_kprobe+0x6a/0x90",
        "f6+0x1/0x2",
    ] {
        assert!(shown.contains(line), "{line} not in: {}", v.err);
    }
    for line in [
        "cut here",
        "Modules linked in",
        "? __warn",
        "? kfree",
        "f7+0x1",
    ] {
        assert!(!shown.contains(line), "{line} in: {}", v.err);
    }
    // Kept for check.sh to print last of all: the same lines.
    let kept = v.first_splat.expect("LOG.first-splat written");
    assert!(!kept.is_empty() && shown.contains(kept.trim()), "{kept}");
}

/// A clean run leaves no first splat for check.sh to print.
#[test]
fn a_clean_run_keeps_no_first_splat() {
    let body = a_ok() + &b_ok() + &c_skip();
    let v = judge("clean-splat", &log(3, &body, DONE));
    assert!(v.ok, "{}", v.err);
    assert!(v.first_splat.is_none());
}

#[test]
fn a_guest_that_never_finished_fails() {
    let v = judge("timeout", &log(3, &(a_ok() + &b_ok() + &c_skip()), ""));
    assert!(!v.ok);
    assert!(v.err.contains("guest did not finish its run"), "{}", v.err);
}

#[test]
fn a_nonzero_guest_rc_fails() {
    let v = judge(
        "rc",
        &log(
            3,
            &(a_ok() + &b_ok() + &c_skip()),
            "BATCHPROBE-GUEST-DONE rc=1\n",
        ),
    );
    assert!(!v.ok);
    assert!(v.err.contains("ended with rc=1"), "{}", v.err);
}

/// An RCU stall report whose lines carry none of the other banners (its
/// stack dump may come later, or be lost) fails on its own line.
#[test]
fn an_rcu_stall_fails() {
    let stall = "[  99.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n";
    let body = a_ok() + stall + &b_ok() + &c_skip();
    let v = judge("stall", &log(3, &body, DONE));
    assert!(!v.ok);
    assert!(v.err.contains("detected stalls"), "{}", v.err);
}

/// Console output the kernel dropped may have held a splat: the run
/// cannot be judged clean.
#[test]
fn dropped_console_messages_fail() {
    let dropped = "** 37 printk messages dropped **\n";
    let body = a_ok() + dropped + &b_ok() + &c_skip();
    let v = judge("dropped", &log(3, &body, DONE));
    assert!(!v.ok);
    assert!(v.err.contains("messages dropped"), "{}", v.err);
}

/// A program that printed nothing of its own (no plan, no case) yet
/// exited 0: the runner says "ok", the check must not.
#[test]
fn a_program_without_a_plan_fails() {
    let silent = "# selftests: batchprobe: test_b.sh\nok 2 selftests: batchprobe: test_b.sh\n";
    let v = judge("silent", &log(3, &(a_ok() + silent + &c_skip()), DONE));
    assert!(!v.ok);
    assert!(
        v.err.contains("test_b.sh: printed no KTAP plan"),
        "{}",
        v.err
    );
}

/// `check-skips.sh` on `skips` for `flavor`, against `expected`: its exit
/// status and what it printed (the skips no line allows).
fn skips_check(expected: &str, flavor: &str, skips: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("bp-check-skips-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let (e, s) = (dir.join("expected"), dir.join(format!("{flavor}.skips")));
    fs::write(&e, expected).unwrap();
    fs::write(&s, skips).unwrap();
    let o = Command::new("sh")
        .arg(common::root().join("scripts/check-skips.sh"))
        .arg(&e)
        .arg(flavor)
        .arg(&s)
        .output()
        .expect("sh runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn a_skip_the_list_does_not_allow_fails() {
    let expected = "# why\n*  a.sh: the whole program: requires X\n\
                    test,debug b.sh: one (no Y)\n";
    let skips = "a.sh: the whole program: requires X: no X here\nb.sh: one (no Y)\n";
    assert_eq!(skips_check(expected, "test", skips), (0, String::new()));
    assert_eq!(skips_check(expected, "debug", skips), (0, String::new()));
    // Not allowed on this flavor, nor a prefix of another flavor's name.
    assert_eq!(
        skips_check(expected, "debug-7.3", skips),
        (1, "b.sh: one (no Y)\n".to_string())
    );
    // A whole program hidden for a reason no line gives.
    let (rc, out) = skips_check(
        expected,
        "test",
        "c.sh: the whole program: ftracetest absent\n",
    );
    assert_eq!(rc, 1);
    assert_eq!(out, "c.sh: the whole program: ftracetest absent\n");
}

/// The kernel flavors `make check` can boot (scripts/check.sh), which
/// skips.expected and the `# speed: slow on` marks may name.
const CHECK_FLAVORS: [&str; 6] = [
    "test",
    "debug",
    "distro",
    "distro-7.3",
    "debug-7.3",
    "stock-7.3",
];

#[test]
fn the_expected_skips_name_programs_that_exist() {
    let text = fs::read_to_string(common::root().join("selftests/skips.expected")).unwrap();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut w = line.split_whitespace();
        let flavors = w.next().unwrap();
        let prog = w.next().unwrap_or("").trim_end_matches(':');
        for f in flavors.split(',').filter(|f| *f != "*") {
            assert!(
                CHECK_FLAVORS.contains(&f),
                "skips.expected: unknown flavor {f} in: {line}"
            );
        }
        assert!(
            common::root().join("selftests").join(prog).exists(),
            "skips.expected names {prog}, which selftests/ does not have: {line}"
        );
    }
}

#[test]
fn the_race_programs_exist() {
    let text = fs::read_to_string(common::root().join("selftests/races")).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert!(!names.is_empty(), "selftests/races lists no program");
    for name in names {
        assert!(
            name.starts_with("test_") && name.ends_with(".sh"),
            "selftests/races: {name} is not a selftest program's name"
        );
        assert!(
            common::root().join("selftests").join(name).exists(),
            "selftests/races names {name}, which selftests/ does not have"
        );
    }
}

/// `# speed:` (KUnit's attribute) says `slow`, or `slow on` and the
/// flavors it is slow on, once, in a program's header (before its first
/// command), where guest-init.sh's `bp.speed=normal` and check.sh's
/// `slow_on` look for it; and `make check` still runs most programs.
#[test]
fn speed_marks_are_slow_and_in_the_header() {
    let dir = common::root().join("selftests");
    let (mut slow, mut all) = (0, 0);
    for e in fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("test_") && name.ends_with(".sh")) {
            continue;
        }
        all += 1;
        let text = fs::read_to_string(&path).unwrap();
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
        let marks: Vec<&str> = header
            .iter()
            .filter_map(|l| l.strip_prefix("# speed: "))
            .collect();
        assert!(marks.len() <= 1, "{name}: more than one `# speed:` line");
        match marks.first().copied() {
            None => {}
            Some("slow") => slow += 1,
            Some(m) => {
                let on = m.strip_prefix("slow on ").unwrap_or_else(|| {
                    panic!("{name}: `# speed: {m}`: slow, or slow on FLAVOR...")
                });
                assert!(!on.trim().is_empty(), "{name}: `slow on` names no flavor");
                for f in on.split(' ') {
                    assert!(
                        CHECK_FLAVORS.contains(&f),
                        "{name}: `slow on {on}`: no flavor {f:?}"
                    );
                }
            }
        }
        let elsewhere = text
            .lines()
            .skip(header.len())
            .any(|l| l.starts_with("# speed:"));
        assert!(!elsewhere, "{name}: a `# speed:` line below the header");
    }
    assert!(
        slow > 0 && slow * 3 < all,
        "{slow} of {all} programs slow everywhere"
    );
}
