// SPDX-License-Identifier: GPL-2.0

//! The names `kprobe_events` gives unnamed events (`src/events/name.rs`),
//! against `trace_kprobe_create()`'s `snprintf("%c_%s_%ld")` and
//! `sanitize_event_name()`.

use batchprobe_host_tests::event_name::{auto_event_name, MAX_EVENT_NAME_LEN};

#[test]
fn names_as_kprobe_events_makes_them() {
    let name = |ret, sym, off| auto_event_name(ret, sym, off).as_str().to_string();
    assert_eq!(name(false, "vfs_read", 0), "p_vfs_read_0");
    assert_eq!(name(false, "vfs_read", 4), "p_vfs_read_4");
    assert_eq!(name(false, "vfs_read", 0x10), "p_vfs_read_16");
    assert_eq!(name(true, "vfs_read", 0), "r_vfs_read_0");
    assert_eq!(name(false, "x", u32::MAX), "p_x_4294967295");
    // sanitize_event_name(): ':', '.' and '*' become '_'.
    assert_eq!(name(false, "foo.isra.0", 0), "p_foo_isra_0_0");
    assert_eq!(
        name(false, "ext4:ext4_file_open", 0),
        "p_ext4_ext4_file_open_0"
    );
}

#[test]
fn long_symbols_are_cut_as_snprintf_cuts() {
    let sym = "a".repeat(100);
    let n = auto_event_name(false, &sym, 12);
    assert_eq!(n.as_str().len(), MAX_EVENT_NAME_LEN - 1);
    assert_eq!(n.as_str(), format!("p_{}", "a".repeat(61)));
    // Cut inside the offset: its leading digits stay.
    let sym = "b".repeat(58);
    assert_eq!(
        auto_event_name(true, &sym, 123456).as_str(),
        format!("r_{}_12", "b".repeat(58))
    );
}

#[test]
fn made_names_are_sanitized() {
    use batchprobe_host_tests::event_name::made_event_name;
    // "%c_0x%p": a hashed pointer is hex digits, left alone; what %p
    // prints before its key is ready keeps its parentheses, as in the
    // kernel (sanitize_event_name() turns only ':', '.' and '*').
    assert_eq!(
        made_event_name("p_0x00000000c0ffee11").as_str(),
        "p_0x00000000c0ffee11"
    );
    assert_eq!(
        made_event_name("r_0x(____ptrval____)").as_str(),
        "r_0x(____ptrval____)"
    );
    assert_eq!(made_event_name(".a:b*c").as_str(), ".a_b_c");
}
