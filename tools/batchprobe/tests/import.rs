// SPDX-License-Identifier: GPL-2.0

//! Probe lines' first words, and kprobe_events / dynamic_events files as
//! one batch.

use batchprobe::import::{head, sets_of, to_batch};

#[test]
fn a_line_names_its_set_as_tracefs_names_the_group() {
    let h = |l: &str| head(l).unwrap().unwrap();
    assert_eq!(h("p:io/open do_sys_openat2 $arg1").set, "io");
    assert_eq!(h("p:io/open do_sys_openat2").event, "open");
    assert_eq!(h("p:io.open do_sys_openat2").set, "io");
    assert_eq!(h("p:myprobe vfs_read").set, "kprobes");
    assert_eq!(h("p vfs_read").set, "kprobes");
    assert_eq!(h("r16:rr/ vfs_read").set, "rr");
    assert_eq!(h("r!:rr/x vfs_read").kind, 'r');
    assert_eq!(h("p!:cnt/x vfs_read").set, "cnt");
    assert_eq!(h("d:lat/ vfs_*").kind, 'd');
    assert_eq!(h("f:vfs_read_entry vfs_read").set, "fprobes");
    assert_eq!(head("   ").unwrap(), None);
    assert_eq!(head("# a comment").unwrap(), None);
    assert!(head("-:io/open").unwrap_err().contains("removal"));
    assert!(head("t:sched/ss sched_switch")
        .unwrap_err()
        .contains("tracepoint"));
    assert!(head("e:ee syscalls.sys_enter_openat")
        .unwrap_err()
        .contains("event probe"));
    assert!(head("x:io/open f")
        .unwrap_err()
        .contains("not a probe line"));
    assert!(head("rx:io/open f").is_err());
}

#[test]
fn sets_are_listed_once_in_first_line_order() {
    let s = sets_of(["p:b/x f", "d:a/ g", "r:b/y f", "# c", "p:a/z h"]).unwrap();
    assert_eq!(s, [("b".to_string(), false), ("a".to_string(), true)]);
    let e = sets_of(["p:a/x f", "-:a/x"]).unwrap_err();
    assert_eq!((e.line, e.word.as_str()), (2, "-:a/x"));
}

#[test]
fn a_kprobe_events_file_is_one_batch() {
    let file = "# from kprobe_events\n\
                p:kprobes/p_vfs_read_0 vfs_read\n\
                r:io/ret do_sys_openat2 $retval\n\
                \n\
                p:io/open do_sys_openat2 dfd=$arg1 name=+0($arg2):ustring\n";
    assert_eq!(
        to_batch(file).unwrap(),
        "p:kprobes/p_vfs_read_0 vfs_read\n\
         r:io/ret do_sys_openat2 $retval\n\
         p:io/open do_sys_openat2 dfd=$arg1 name=+0($arg2):ustring\n\
         create kprobes\nenable kprobes\ncreate io\nenable io\n"
    );
}

#[test]
fn fprobe_lines_become_the_lines_an_fprobe_serves() {
    let file = "f:fprobes/vfs_read__entry vfs_read\n\
                f:fprobes/vfs_read__exit vfs_read%return $retval\n\
                f:my/open do_sys_openat2 $arg1\n\
                f:vfs_write\n";
    // The last line names no function: refused.
    let e = to_batch(file).unwrap_err();
    assert_eq!((e.line, e.word.as_str()), (4, "f:vfs_write"));
    let file = "f:fprobes/vfs_read__entry vfs_read\n\
                f:fprobes/vfs_read__exit vfs_read%return $retval\n\
                f:my/open do_sys_openat2 $arg1\n\
                f vfs_write\n\
                f vfs_write%return\n";
    assert_eq!(
        to_batch(file).unwrap(),
        "p:fprobes/vfs_read__entry vfs_read\n\
         r:fprobes/vfs_read__exit vfs_read $retval\n\
         p:my/open do_sys_openat2 $arg1\n\
         p:fprobes/vfs_write__entry vfs_write\n\
         r:fprobes/vfs_write__exit vfs_write\n\
         create fprobes\nenable fprobes\ncreate my\nenable my\n"
    );
}

#[test]
fn what_batchprobe_does_not_probe_is_refused_by_line() {
    let e = to_batch("p:a/x vfs_read\n-:a/x\n").unwrap_err();
    assert_eq!(e.to_string(), "line 2: `-:a/x`: a removal: it removes what the lines make; remove a set with `batchprobe rm SET`");
    let e = to_batch("p:u/x /bin/sh:0x1234\n").unwrap_err();
    assert_eq!((e.line, e.word.as_str()), (1, "/bin/sh:0x1234"));
    assert!(e.why.contains("uprobe"));
    let e = to_batch("t:sched/ss sched_switch\n").unwrap_err();
    assert!(e.why.contains("tracepoint"));
    assert!(to_batch("# nothing\n\n")
        .unwrap_err()
        .why
        .contains("no probe line"));
}
