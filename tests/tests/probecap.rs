// SPDX-License-Identifier: GPL-2.0

//! The probe caps (src/probecap.rs): which cap binds a new set, and what
//! a set being built admits: explicit targets first, whatever order the
//! walk hands targets in; glob members up to what they leave.

use batchprobe_host_tests::probecap::*;
use proptest::prelude::*;

const SET: usize = 1 << 22;
const LIVE: usize = 1 << 23;

#[test]
fn the_set_cap_binds_while_the_others_leave_room() {
    assert_eq!(
        room(SET, LIVE, 0),
        Room {
            probes: SET,
            cap: Cap::Set(SET)
        }
    );
    // Exactly the set's cap left: the set's own cap is named.
    assert_eq!(room(SET, LIVE, LIVE - SET).cap, Cap::Set(SET));
    // A lowered max_set_probes.
    assert_eq!(room(100, LIVE, LIVE - 1000).probes, 100);
}

#[test]
fn the_live_cap_binds_when_the_others_hold_most() {
    assert_eq!(
        room(SET, LIVE, LIVE - 10),
        Room {
            probes: 10,
            cap: Cap::Live(LIVE)
        }
    );
    // Full, or past it (a cap lowered while sets live): no room at all.
    assert_eq!(room(SET, LIVE, LIVE).probes, 0);
    assert_eq!(room(SET, LIVE, usize::MAX).probes, 0);
}

#[test]
fn caps_read_as_last_error_and_stats_show_them() {
    assert_eq!(
        Cap::Set(100).to_string(),
        "100 probes per set (max_set_probes)"
    );
    assert_eq!(
        Cap::Live(8388608).to_string(),
        "8388608 probes in all sets together"
    );
}

fn budget(probes: usize, explicit: usize) -> Budget {
    let mut b = Budget::new(Room {
        probes,
        cap: Cap::Set(probes),
    });
    b.hold(explicit);
    b
}

#[test]
fn glob_members_past_the_cap_are_skipped_and_counted() {
    let mut b = budget(3, 0);
    let mut kept = 0;
    for _ in 0..10 {
        if b.admit(false) == Admit::Yes {
            b.added();
            kept += 1;
        }
    }
    assert_eq!((kept, b.probes(), b.skipped()), (3, 3, 7));
}

#[test]
fn a_member_the_backend_refused_leaves_its_room() {
    let mut b = budget(2, 0);
    assert_eq!(b.admit(false), Admit::Yes); // refused by the kernel: no added()
    assert_eq!(b.admit(false), Admit::Yes);
    b.added();
    assert_eq!(b.admit(false), Admit::Yes);
    b.added();
    assert_eq!(b.admit(false), Admit::Skip);
}

#[test]
fn glob_members_met_first_leave_the_explicit_lines_their_room() {
    // Two explicit lines, room for three: a glob the walk meets first
    // gets one, and both explicit lines still fit.
    let mut b = budget(3, 2);
    assert_eq!(b.admit(false), Admit::Yes);
    b.added();
    assert_eq!(b.admit(false), Admit::Skip);
    for _ in 0..2 {
        assert_eq!(b.admit(true), Admit::Yes);
        b.added();
    }
    assert_eq!((b.probes(), b.skipped()), (3, 1));
}

#[test]
fn explicit_lines_past_the_cap_are_refused() {
    let mut b = budget(2, 3);
    for _ in 0..2 {
        assert_eq!(b.admit(true), Admit::Yes);
        b.added();
    }
    assert_eq!(b.admit(true), Admit::Refuse);
    // Explicit lines alone fill the set: no glob member gets in.
    let mut b = budget(2, 2);
    assert_eq!(b.admit(false), Admit::Skip);
}

proptest! {
    /// Whatever the order of explicit targets and glob members, and
    /// whichever the backends take: the set never holds more than its
    /// room; an explicit target is refused only when the explicit ones
    /// alone are more than the room; every glob member not admitted is
    /// counted as skipped.
    #[test]
    fn never_past_the_room(
        room_n in 0usize..50,
        targets in proptest::collection::vec((any::<bool>(), any::<bool>()), 0..120),
    ) {
        let explicit = targets.iter().filter(|t| t.0).count();
        let mut b = budget(room_n, explicit);
        let (mut refused, mut skipped) = (false, 0);
        for (is_explicit, taken) in targets {
            match b.admit(is_explicit) {
                Admit::Yes => {
                    if taken || is_explicit {
                        b.added();
                    }
                }
                Admit::Skip => {
                    prop_assert!(!is_explicit);
                    skipped += 1;
                }
                Admit::Refuse => {
                    prop_assert!(is_explicit);
                    refused = true;
                    break;
                }
            }
            prop_assert!(b.probes() <= room_n);
        }
        prop_assert_eq!(refused, explicit > room_n);
        prop_assert_eq!(b.skipped(), skipped);
    }
}
