// SPDX-License-Identifier: GPL-2.0

//! Equal keys in a batch, found by sorting instead of comparing every pair.
//!
//! Validating a control write must not be quadratic in its lines: a 1 MiB
//! write holds tens of thousands of them, and validation runs under the
//! registry lock. [`group`] gives equal keys one dense id, in
//! O(n log n) with caller-provided scratch space (so that the kernel can
//! allocate it with `KVVec`). Pure: `tests/` compiles it for the host.

use core::cmp::Ordering;

use crate::sort;

/// Fills `order` with `0..n` sorted by `(keys[i], i)`. `order` must have
/// `keys.len()` entries (extra entries are left alone, missing ones skipped).
fn sort_indices<K: Ord>(keys: &[K], order: &mut [u32]) {
    for (i, o) in order.iter_mut().enumerate().take(keys.len()) {
        *o = i as u32;
    }
    let n = order.len().min(keys.len());
    let order = order.get_mut(..n).unwrap_or(&mut []);
    sort::sort_by(order, |&a, &b| cmp_at(keys, a, b).then(a.cmp(&b)));
}

fn cmp_at<K: Ord>(keys: &[K], a: u32, b: u32) -> Ordering {
    keys.get(a as usize).cmp(&keys.get(b as usize))
}

/// Gives each key the id of its group of equal keys: ids are dense
/// (`0..groups`), numbered in the order of each group's first key in the
/// batch, and written to `ids`. Returns the number of groups. `order` and
/// `ids` are scratch/output space of `keys.len()` each.
pub fn group<K: Ord>(keys: &[K], order: &mut [u32], ids: &mut [u32]) -> usize {
    sort_indices(keys, order);
    let n = order.len().min(keys.len()).min(ids.len());
    let order = order.get(..n).unwrap_or(&[]);
    // First pass: the group's representative is its first (smallest) index.
    let mut rep = 0u32;
    for (k, &i) in order.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|p| order.get(p)).copied();
        let first = match prev {
            Some(p) => cmp_at(keys, p, i) != Ordering::Equal,
            None => true,
        };
        if first {
            rep = i;
        }
        if let Some(id) = ids.get_mut(i as usize) {
            *id = rep;
        }
    }
    // Second pass, in batch order: number the representatives densely.
    // A representative is its own first index, so it is met before (or
    // as) any member, and its slot already holds its dense id then.
    let mut groups = 0u32;
    for i in 0..n {
        let r = ids.get(i).copied().unwrap_or(0) as usize;
        if r == i {
            if let Some(id) = ids.get_mut(i) {
                *id = groups;
            }
            groups += 1;
        } else if let Some(&dense) = ids.get(r) {
            if let Some(id) = ids.get_mut(i) {
                *id = dense;
            }
        }
    }
    groups as usize
}
