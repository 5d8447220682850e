// SPDX-License-Identifier: GPL-2.0

//! The address set used to find a function named twice in a set build.

use batchprobe_host_tests::addrset::{contains, grown_len, insert, needs_growth, Inserted};
use proptest::prelude::*;
use std::collections::HashSet;

/// The kernel side's policy: grow (rehash) before the table is half full.
fn add(table: &mut Vec<usize>, count: &mut usize, key: usize) -> Inserted {
    if needs_growth(*count, table.len()) {
        let mut bigger = vec![0; grown_len(table.len())];
        for &k in table.iter().filter(|&&k| k != 0) {
            assert_eq!(insert(&mut bigger, k), Inserted::New);
        }
        *table = bigger;
    }
    let r = insert(table, key);
    if r == Inserted::New {
        *count += 1;
    }
    r
}

#[test]
fn new_then_present() {
    let mut t = vec![0; 64];
    assert_eq!(insert(&mut t, 0xffff_ffff_8100_0000), Inserted::New);
    assert_eq!(insert(&mut t, 0xffff_ffff_8100_0000), Inserted::Present);
    assert!(contains(&t, 0xffff_ffff_8100_0000));
    assert!(!contains(&t, 0xffff_ffff_8100_0010));
}

#[test]
fn zero_and_bad_tables_are_refused() {
    let mut t = vec![0; 64];
    assert_eq!(insert(&mut t, 0), Inserted::Full);
    assert!(!contains(&t, 0));
    assert_eq!(insert(&mut [], 5), Inserted::Full);
    assert_eq!(insert(&mut [0, 0, 0], 5), Inserted::Full);
    assert!(!contains(&[], 5));
}

#[test]
fn full_table_says_so() {
    let mut t = vec![0; 4];
    for k in 1..=4 {
        assert_eq!(insert(&mut t, k * 16), Inserted::New);
    }
    assert_eq!(insert(&mut t, 80), Inserted::Full);
    assert_eq!(insert(&mut t, 32), Inserted::Present);
    assert!(!contains(&t, 80));
}

#[test]
fn growth_keeps_half_free() {
    assert!(needs_growth(0, 0));
    assert!(!needs_growth(31, 64));
    assert!(needs_growth(32, 64));
    assert_eq!(grown_len(0), 64);
    assert_eq!(grown_len(64), 128);
    assert_eq!(grown_len(usize::MAX), usize::MAX);
}

#[test]
fn fifty_thousand_aligned_addresses() {
    let (mut t, mut n) = (Vec::new(), 0);
    for i in 0..50_000usize {
        assert_eq!(
            add(&mut t, &mut n, 0xffff_ffff_8100_0000 + i * 16),
            Inserted::New
        );
    }
    for i in 0..50_000usize {
        assert_eq!(
            add(&mut t, &mut n, 0xffff_ffff_8100_0000 + i * 16),
            Inserted::Present
        );
    }
    assert_eq!(n, 50_000);
    assert!(t.len() <= 131_072);
}

proptest! {
    /// Same answers as std's HashSet, whatever the order and repeats.
    #[test]
    fn agrees_with_hashset(keys in proptest::collection::vec(1usize..5000, 0..600)) {
        let (mut t, mut n) = (Vec::new(), 0);
        let mut reference = HashSet::new();
        for k in keys {
            let want = if reference.insert(k) { Inserted::New } else { Inserted::Present };
            prop_assert_eq!(add(&mut t, &mut n, k), want);
        }
        prop_assert_eq!(n, reference.len());
        for k in 1usize..5000 {
            prop_assert_eq!(contains(&t, k), reference.contains(&k));
        }
    }
}
