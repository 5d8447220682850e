// SPDX-License-Identifier: GPL-2.0

//! `src/sort.rs`, the module's sort: the order `std`'s sort gives, on any
//! input; comparisons `O(n log n)` on the inputs that make a quicksort
//! quadratic; and stack use that does not grow with the input, where
//! `core`'s `sort_unstable` (which ran off a kernel stack) grows.

use std::cell::Cell;
use std::cmp::Ordering;

use batchprobe_host_tests::sort;
use proptest::prelude::*;

/// Inputs a quicksort can go wrong on, `n` long.
fn patterns(n: usize) -> Vec<(&'static str, Vec<u32>)> {
    let n32 = n as u32;
    let mut killer: Vec<u32> = (0..n32).collect();
    // Musser's median-of-3 killer: each pivot of first/middle/last is the
    // second smallest.
    let k = n / 2;
    for i in 0..k {
        killer[i] = if i % 2 == 0 {
            i as u32 + 1
        } else {
            (k + i) as u32
        };
        killer[k + i] = (2 * i + 2) as u32;
    }
    let mut lcg = 12345u64;
    let random: Vec<u32> = (0..n)
        .map(|_| {
            lcg = lcg
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (lcg >> 33) as u32
        })
        .collect();
    vec![
        ("sorted", (0..n32).collect()),
        ("reversed", (0..n32).rev().collect()),
        ("all equal", vec![7; n]),
        ("two values", (0..n32).map(|i| i % 2).collect()),
        ("organ pipe", (0..n32).map(|i| i.min(n32 - i)).collect()),
        ("sawtooth", (0..n32).map(|i| i % 97).collect()),
        ("median-of-3 killer", killer),
        ("random", random.clone()),
        ("few distinct", random.iter().map(|x| x % 5).collect()),
    ]
}

fn sorted_by_std(v: &[u32]) -> Vec<u32> {
    let mut s = v.to_vec();
    s.sort();
    s
}

#[test]
fn sorts_every_pattern_and_length() {
    for n in (0..300).chain([1000, 4096, 4097, 65_536]) {
        for (name, v) in patterns(n) {
            let mut got = v.clone();
            sort::sort(&mut got);
            assert_eq!(got, sorted_by_std(&v), "{name}, {n} elements");
        }
    }
}

#[test]
fn comparisons_stay_n_log_n() {
    // A quadratic quicksort on the killer makes about n * n / 4
    // comparisons (10^9 here); introsort's bound is a small multiple of
    // n * log2(n).
    let n = 1 << 16;
    let bound = 8 * n * 16;
    for (name, v) in patterns(n) {
        let count = Cell::new(0usize);
        let mut got = v.clone();
        sort::sort_by(&mut got, |a, b| {
            count.set(count.get() + 1);
            a.cmp(b)
        });
        assert_eq!(got, sorted_by_std(&v), "{name}");
        assert!(
            count.get() <= bound,
            "{name}: {} comparisons, bound {bound}",
            count.get()
        );
    }
}

/// The deepest the stack went below the caller's frame during a sort of
/// `v` by `sorter`, in bytes (read in the comparison, the deepest call).
fn stack_depth(
    v: &[(usize, usize)],
    sorter: fn(&mut [(usize, usize)], &mut dyn FnMut(&(usize, usize), &(usize, usize)) -> Ordering),
) -> usize {
    let top = Cell::new(0usize);
    let marker = 0u8;
    let base = std::hint::black_box(&marker) as *const u8 as usize;
    let mut s = v.to_vec();
    let mut cmp = |a: &(usize, usize), b: &(usize, usize)| {
        let here = 0u8;
        let at = std::hint::black_box(&here) as *const u8 as usize;
        top.set(top.get().max(base.saturating_sub(at)));
        a.cmp(b)
    };
    sorter(&mut s, &mut cmp);
    top.get()
}

fn by_crate_sort(
    v: &mut [(usize, usize)],
    cmp: &mut dyn FnMut(&(usize, usize), &(usize, usize)) -> Ordering,
) {
    sort::sort_by(v, cmp)
}

fn by_core_sort(
    v: &mut [(usize, usize)],
    cmp: &mut dyn FnMut(&(usize, usize), &(usize, usize)) -> Ordering,
) {
    v.sort_unstable_by(cmp)
}

#[test]
fn stack_use_does_not_grow_with_the_input() {
    let input = |n: usize| -> Vec<(usize, usize)> {
        // Blacklist-like pairs: offsets into a text and name lengths, in
        // an order a median-of-3 pivot splits badly.
        patterns(n)
            .into_iter()
            .find(|(name, _)| *name == "median-of-3 killer")
            .unwrap()
            .1
            .into_iter()
            .map(|x| (x as usize, 17))
            .collect()
    };
    let small = stack_depth(&input(64), by_crate_sort);
    let large = stack_depth(&input(1 << 18), by_crate_sort);
    assert!(small > 0);
    // The same few frames at any length (a path's frame may differ by a
    // few bytes from another's: 256 of slack).
    assert!(
        large <= small + 256,
        "crate::sort's stack grew: {small} bytes at 64 elements, {large} at 2^18"
    );
    // The harness reads what it should: core's sort goes deeper at 2^18.
    let core_small = stack_depth(&input(64), by_core_sort);
    let core_large = stack_depth(&input(1 << 18), by_core_sort);
    assert!(
        core_large > core_small + 256,
        "core: {core_small} then {core_large} bytes"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_std(v in prop::collection::vec(0u16..64, 0..600)) {
        let mut got = v.clone();
        sort::sort(&mut got);
        let mut want = v;
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn by_key_agrees_with_std(v in prop::collection::vec((0u8..8, any::<u32>()), 0..400)) {
        let mut got = v.clone();
        sort::sort_by_key(&mut got, |e| e.0);
        let keys: Vec<u8> = got.iter().map(|e| e.0).collect();
        let mut want: Vec<u8> = v.iter().map(|e| e.0).collect();
        want.sort_unstable();
        prop_assert_eq!(keys, want);
        // A permutation of the input.
        let (mut a, mut b) = (got, v);
        a.sort_unstable();
        b.sort_unstable();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn an_order_that_is_not_total_keeps_the_elements(v in prop::collection::vec(any::<u32>(), 0..400), seed in any::<u64>()) {
        // A comparison that answers at random: no panic, no element lost.
        let state = Cell::new(seed | 1);
        let mut got = v.clone();
        sort::sort_by(&mut got, |_, _| {
            let s = state.get();
            let s = s ^ (s << 13) ^ (s >> 7) ^ (s << 17);
            state.set(s);
            [Ordering::Less, Ordering::Equal, Ordering::Greater][(s % 3) as usize]
        });
        got.sort_unstable();
        let mut want = v;
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }
}
