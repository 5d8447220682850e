// SPDX-License-Identifier: GPL-2.0

//! `batchkeys`: groups found by sorting match the quadratic definition
//! they replace.

use batchprobe_host_tests::batchkeys::group;
use proptest::prelude::*;

fn group_naive<K: Eq>(keys: &[K]) -> (Vec<u32>, usize) {
    let mut firsts: Vec<usize> = Vec::new();
    let mut ids = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        match firsts.iter().position(|&f| keys[f] == *k) {
            Some(g) => ids.push(g as u32),
            None => {
                ids.push(firsts.len() as u32);
                firsts.push(i);
            }
        }
    }
    (ids, firsts.len())
}

#[test]
fn examples() {
    let mut order = vec![0; 5];
    assert_eq!(group::<&str>(&[], &mut [], &mut []), 0);
    let mut ids = vec![0; 5];
    let n = group(&["x", "y", "x", "z", "y"], &mut order, &mut ids);
    assert_eq!((n, ids), (3, vec![0, 1, 0, 2, 1]));
}

#[test]
fn large_batch_is_fast() {
    // 200,000 keys: the quadratic scan would take minutes.
    let keys: Vec<(u32, u32)> = (0..200_000u32).map(|i| (i % 50_000, i / 50_000)).collect();
    let mut order = vec![0; keys.len()];
    let mut ids = vec![0; keys.len()];
    assert_eq!(group(&keys, &mut order, &mut ids), 200_000);
    let dup: Vec<u32> = (0..200_000u32).map(|i| i % 150_000).collect();
    assert_eq!(group(&dup, &mut order, &mut ids), 150_000);
    assert_eq!(ids[150_000], 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn group_matches_naive(keys in prop::collection::vec("[ab]{0,3}", 0..40)) {
        let mut order = vec![0; keys.len()];
        let mut ids = vec![0; keys.len()];
        let n = group(&keys, &mut order, &mut ids);
        prop_assert_eq!((ids, n), group_naive(&keys));
    }
}
