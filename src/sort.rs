// SPDX-License-Identifier: GPL-2.0

//! Sorting on a kernel stack: an introsort that never recurses.
//!
//! `core`'s `sort_unstable` recurses into each left partition (to twice
//! the length's log2 deep), and a level's frame can hold a small-sort
//! scratch array (`core` caps it at 4 KiB; 856 bytes a level for
//! `(usize, usize)` on distro-7.3): sorting a few thousand such names from
//! the write path ran off a 16-KiB kernel stack into its guard page (CI of
//! f7ae6ed, Debian's 7.3 image: `Blacklist::read` under `kptr_restrict=2`).
//! The kernel's own `sort()` (`lib/sort.c`) is a heapsort, which never
//! recurses either.
//!
//! This one keeps its pending ranges in a fixed array: whatever the input,
//! it uses [`PENDING`] entries and a few locals of stack, `O(n log n)`
//! comparisons (quicksort with a median-of-three pivot; a range split too
//! deeply, 2 log2 n levels, is heapsorted), and allocates nothing. Equal
//! elements split evenly (both scans stop at them), so a slice of one value
//! sorts in `O(n log n)` as well. Not stable, as `sort_unstable`.

use core::cmp::Ordering;

/// Ranges this short are insertion-sorted.
const INSERTION: usize = 16;

/// The most ranges waiting: the larger part of each split waits, the
/// smaller is sorted first, so each one waiting at least halves the range
/// in hand; 32 serve any slice shorter than `INSERTION << 32` elements.
/// Past that (never, in a kernel) the larger part is heapsorted.
const PENDING: usize = 32;

/// Sorts `v` (as `<[T]>::sort_unstable`).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp)
}

/// Sorts `v` by the key `f` gives (as `<[T]>::sort_unstable_by_key`).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)))
}

/// Sorts `v` by `cmp`, a total order (as `<[T]>::sort_unstable_by`). An
/// order that is not total leaves `v` in some order of its elements.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut less = |a: &T, b: &T| cmp(a, b) == Ordering::Less;
    introsort(v, &mut less)
}

fn introsort<T, F: FnMut(&T, &T) -> bool>(v: &mut [T], less: &mut F) {
    // Each entry: a range of `v` and the levels of splits it may still take.
    let mut pending = [(0usize, 0usize, 0u32); PENDING];
    let mut waiting = 0usize;
    let (mut lo, mut hi) = (0usize, v.len());
    let mut limit = 2 * (v.len() | 1).ilog2();
    loop {
        let Some(r) = v.get_mut(lo..hi) else {
            return;
        };
        if r.len() <= INSERTION {
            insertion_sort(r, less);
        } else if limit == 0 {
            heapsort(r, less);
        } else {
            limit -= 1;
            let p = lo + partition(r, less);
            // The pivot is in place at `p`: the parts are either side.
            let (left, right) = ((lo, p), (p + 1, hi));
            let (small, large) = if p - lo <= hi - (p + 1) {
                (left, right)
            } else {
                (right, left)
            };
            match pending.get_mut(waiting) {
                Some(slot) => {
                    *slot = (large.0, large.1, limit);
                    waiting += 1;
                }
                None => {
                    if let Some(r) = v.get_mut(large.0..large.1) {
                        heapsort(r, less);
                    }
                }
            }
            (lo, hi) = small;
            continue;
        }
        let Some(next) = waiting.checked_sub(1) else {
            return;
        };
        waiting = next;
        (lo, hi, limit) = pending[next];
    }
}

/// Puts a pivot (the median of the first, middle and last elements) at
/// its place and returns it: none before it is greater, none after it
/// less. `v` has more than `INSERTION` elements.
fn partition<T, F: FnMut(&T, &T) -> bool>(v: &mut [T], less: &mut F) -> usize {
    let (mid, last) = (v.len() / 2, v.len() - 1);
    if less(&v[mid], &v[0]) {
        v.swap(mid, 0);
    }
    if less(&v[last], &v[mid]) {
        v.swap(last, mid);
        if less(&v[mid], &v[0]) {
            v.swap(mid, 0);
        }
    }
    v.swap(0, mid);
    let (pivot, rest) = v.split_at_mut(1);
    let pivot = &pivot[0];
    // rest[..i] is not greater than the pivot, rest[j..] not less.
    let (mut i, mut j) = (0usize, rest.len());
    loop {
        while i < j && less(&rest[i], pivot) {
            i += 1;
        }
        while i < j && less(pivot, &rest[j - 1]) {
            j -= 1;
        }
        if i >= j {
            break;
        }
        j -= 1;
        rest.swap(i, j);
        i += 1;
    }
    // rest[..i] is not greater, and rest[i..] (within rest[j..]) not less:
    // the pivot goes to v[i], what was there (rest[i - 1], if i > 0) to v[0].
    v.swap(0, i);
    i
}

fn insertion_sort<T, F: FnMut(&T, &T) -> bool>(v: &mut [T], less: &mut F) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

fn heapsort<T, F: FnMut(&T, &T) -> bool>(v: &mut [T], less: &mut F) {
    for node in (0..v.len() / 2).rev() {
        sift_down(v, node, less);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0, less);
    }
}

/// Moves `v[node]` down the max-heap below it.
fn sift_down<T, F: FnMut(&T, &T) -> bool>(v: &mut [T], mut node: usize, less: &mut F) {
    loop {
        let mut child = 2 * node + 1;
        if child >= v.len() {
            return;
        }
        if child + 1 < v.len() && less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !less(&v[node], &v[child]) {
            return;
        }
        v.swap(node, child);
        node = child;
    }
}
