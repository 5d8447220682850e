// SPDX-License-Identifier: GPL-2.0

//! What 6.12's `KVec` and `KVVec` lack and the registry needs: in-place
//! `truncate`, `clear`, `retain` and `pop`, none of which allocates.

use kernel::alloc::{Allocator, Vec};

/// Drops every element from `new_len` on.
pub(crate) fn truncate<T, A: Allocator>(v: &mut Vec<T, A>, new_len: usize) {
    let len = v.len();
    if new_len >= len {
        return;
    }
    // SAFETY: Elements `new_len..len` are initialised. The length is lowered
    // first, so they are unreachable through `v` when they are dropped,
    // exactly once, here.
    unsafe {
        let tail = core::ptr::slice_from_raw_parts_mut(v.as_mut_ptr().add(new_len), len - new_len);
        v.set_len(new_len);
        core::ptr::drop_in_place(tail);
    }
}

/// Drops every element.
pub(crate) fn clear<T, A: Allocator>(v: &mut Vec<T, A>) {
    truncate(v, 0);
}

/// Keeps the elements for which `keep` is true, in order.
pub(crate) fn retain<T, A: Allocator>(v: &mut Vec<T, A>, mut keep: impl FnMut(&T) -> bool) {
    let s = v.as_mut_slice();
    let mut kept = 0;
    for i in 0..s.len() {
        if s.get(i).is_some_and(&mut keep) {
            s.swap(kept, i);
            kept += 1;
        }
    }
    truncate(v, kept);
}

/// Removes and returns the last element (a `Copy` one: read, then truncated).
pub(crate) fn pop<T: Copy, A: Allocator>(v: &mut Vec<T, A>) -> Option<T> {
    let last = *v.last()?;
    truncate(v, v.len() - 1);
    Some(last)
}
