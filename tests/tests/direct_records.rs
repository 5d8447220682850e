// SPDX-License-Identifier: GPL-2.0

//! What a `d:` line's records look like (issue 36): its arguments compiled
//! as an fprobe event's (`trace_fprobe_create()`: no `%REG`), its unnamed
//! events named as fprobe events' (`SYM__entry`, `SYM__exit`), and an exit
//! set's return record's `print fmt` (a return's, the duration last).

use batchprobe_host_tests::event_name::{fprobe_event_name, MAX_EVENT_NAME_LEN};
use batchprobe_host_tests::fetch::{
    Compiler, Dialect, ErrorKind, FetchError, NoBtf, ProbeArg, Site,
};
use batchprobe_host_tests::format::{print_fmt, Head};

const V6: Dialect = Dialect::linux_6_12(16384, true);
const V7: Dialect = Dialect::linux_7_3(16384, true);

fn fprobe(d: Dialect, site: Site, word: &str) -> Result<ProbeArg<'_>, FetchError> {
    Compiler::new(d, site, &NoBtf).fprobe().compile(word, &[])
}

#[test]
fn fprobe_events_take_no_register() {
    for site in [Site::Entry, Site::Return] {
        // 7.3 stops at BAD_VAR; 6.12 logs it, then BAD_FETCH_ARG at the
        // same byte, the one its error_log shows last.
        let e = fprobe(V7, site, "%di").unwrap_err();
        assert_eq!((e.kind, e.pos), (ErrorKind::BadVar, 0));
        let e = fprobe(V6, site, "%di").unwrap_err();
        assert_eq!((e.kind, e.pos), (ErrorKind::BadFetchArg, 0));
        // Inside a dereference too, the caret at the register.
        let e = fprobe(V7, site, "+8(%si)").unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadVar);
        // The same words a kprobe's compiler takes.
        assert!(Compiler::new(V7, site, &NoBtf).compile("%di", &[]).is_ok());
        // Everything else is a function entry's (or return's) grammar.
        for w in [
            "$arg1",
            "+8($arg2):x32",
            "$stack0",
            "$stack",
            "$comm",
            "\\42",
            "x=$arg3:u8",
        ] {
            assert!(fprobe(V7, site, w).is_ok(), "{w}");
            assert!(fprobe(V6, site, w).is_ok(), "{w}");
        }
    }
    assert!(fprobe(V7, Site::Return, "$retval").is_ok());
    assert_eq!(
        fprobe(V7, Site::Entry, "$retval").unwrap_err().kind,
        ErrorKind::RetvalOnProbe
    );
}

#[test]
fn unnamed_events_are_named_as_fprobe_events() {
    let name = |exit, sym| fprobe_event_name(exit, sym).as_str().to_string();
    assert_eq!(name(false, "vfs_read"), "vfs_read__entry");
    assert_eq!(name(true, "vfs_read"), "vfs_read__exit");
    // sanitize_event_name(): '.' becomes '_'.
    assert_eq!(name(true, "foo.isra.0"), "foo_isra_0__exit");
    // Cut as snprintf cuts, at 63 bytes.
    let long = "a".repeat(70);
    assert_eq!(name(false, &long).len(), MAX_EVENT_NAME_LEN - 1);
}

#[test]
fn exit_print_fmt_ends_with_the_duration() {
    let mut c = Compiler::new(V7, Site::Return, &NoBtf).fprobe();
    let a = c.compile("r=$retval:x32", &[]).unwrap();
    let mut s = String::new();
    print_fmt(Head::Exit, &[a.clone()], &mut s).unwrap();
    assert_eq!(
        s,
        "\"(%lx <- %lx) r=0x%x duration=%llu\", REC->__probe_func, REC->__probe_ret_ip, REC->r, REC->duration"
    );
    let mut r = String::new();
    print_fmt(Head::Return, &[a], &mut r).unwrap();
    assert_eq!(
        r,
        "\"(%lx <- %lx) r=0x%x\", REC->__probe_func, REC->__probe_ret_ip, REC->r"
    );
    // Its arguments are where a return's are; the duration follows them.
    assert_eq!(Head::Exit.bytes(), Head::Return.bytes());
    assert_eq!(Head::Entry.bytes(), 16);
}
