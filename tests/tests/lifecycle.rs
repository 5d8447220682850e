// SPDX-License-Identifier: GPL-2.0

//! Tests of the set state machine (`src/lifecycle.rs`).

use batchprobe_host_tests::lifecycle::{next, Op, Refusal, SetState::*, *};

const ALL: [SetState; 5] = [Registered, Enabled, Disabled, Retiring, Freed];
const OPS: [Op; 5] = [
    Op::Enable,
    Op::Disable,
    Op::Retarget,
    Op::Unregister,
    Op::TeardownDone,
];

#[test]
fn normal_life() {
    assert_eq!(next(Registered, Op::Enable), Ok(Some(Enabled)));
    assert_eq!(next(Enabled, Op::Disable), Ok(Some(Disabled)));
    assert_eq!(next(Disabled, Op::Enable), Ok(Some(Enabled)));
    assert_eq!(next(Enabled, Op::Unregister), Ok(Some(Retiring)));
    assert_eq!(next(Retiring, Op::TeardownDone), Ok(Some(Freed)));
}

#[test]
fn retarget_keeps_state_but_not_when_retiring() {
    for s in [Registered, Enabled, Disabled] {
        assert_eq!(next(s, Op::Retarget), Ok(None));
    }
    assert_eq!(next(Retiring, Op::Retarget), Err(Refusal::Retiring));
}

#[test]
fn idempotent_enable_disable() {
    assert_eq!(next(Enabled, Op::Enable), Ok(None));
    assert_eq!(next(Disabled, Op::Disable), Ok(None));
    assert_eq!(next(Registered, Op::Disable), Ok(None));
}

#[test]
fn retiring_refuses_everything_but_teardown() {
    assert_eq!(next(Retiring, Op::Enable), Err(Refusal::Retiring));
    assert_eq!(next(Retiring, Op::Disable), Err(Refusal::Retiring));
    assert_eq!(
        next(Retiring, Op::Unregister),
        Err(Refusal::AlreadyRetiring)
    );
    assert_eq!(Refusal::Retiring.errno(), 16);
    assert_eq!(Refusal::AlreadyRetiring.errno(), 114);
}

#[test]
fn freed_is_final_and_teardown_needs_retiring() {
    for op in OPS {
        assert_eq!(next(Freed, op), Err(Refusal::Gone));
    }
    for s in [Registered, Enabled, Disabled] {
        assert_eq!(next(s, Op::TeardownDone), Err(Refusal::NotRetiring));
        assert_eq!(next(s, Op::Unregister), Ok(Some(Retiring)));
    }
}

#[test]
fn every_transition_is_defined_and_round_trips() {
    for s in ALL {
        assert_eq!(SetState::from_u8(s as u8), Some(s));
        assert!(!s.as_str().is_empty());
        assert_eq!(s.is_live(), matches!(s, Registered | Enabled | Disabled));
        for op in OPS {
            if let Ok(Some(t)) = next(s, op) {
                // No transition ever leads back out of retirement.
                assert!(!(matches!(s, Retiring | Freed) && t.is_live()));
            }
        }
    }
    assert_eq!(SetState::from_u8(5), None);
}

/// Each state the module writes (src/set.rs), by the call that writes it:
/// all of them come from `next` or `retire_now`.
#[test]
fn every_transition_the_module_makes_is_legal() {
    // `Set::enable` and `Set::disable`.
    assert_eq!(next(Registered, Op::Enable), Ok(Some(Enabled)));
    assert_eq!(next(Disabled, Op::Enable), Ok(Some(Enabled)));
    assert_eq!(next(Enabled, Op::Disable), Ok(Some(Disabled)));
    for s in [Registered, Enabled, Disabled] {
        // `Set::begin_unregister`.
        assert_eq!(next(s, Op::Unregister), Ok(Some(Retiring)));
        // `Set::discard` and the drop safety net, on a live set.
        assert_eq!(retire_now(s), Ok(Some(Retiring)));
    }
    // The drop safety net on a set whose teardown is still due: it stays
    // retiring, and the teardown runs.
    assert_eq!(retire_now(Retiring), Ok(None));
    // `Set::teardown`: only on a retiring set, which it leaves freed.
    assert_eq!(next(Retiring, Op::TeardownDone), Ok(Some(Freed)));
    for s in [Registered, Enabled, Disabled, Freed] {
        assert!(next(s, Op::TeardownDone).is_err());
    }
}

#[test]
fn retire_now_is_unregister_but_for_a_retiring_set() {
    for s in ALL {
        match s {
            Retiring => assert_eq!(retire_now(s), Ok(None)),
            _ => assert_eq!(retire_now(s), next(s, Op::Unregister)),
        }
    }
    assert_eq!(retire_now(Freed), Err(Refusal::Gone));
}
