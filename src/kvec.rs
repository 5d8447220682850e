// SPDX-License-Identifier: GPL-2.0

//! What 6.12's `KVec` and `KVVec` lack and the registry needs: in-place
//! `truncate`, `clear`, `retain` and `pop`, none of which allocates, and
//! `take`.
//!
//! 7.3 has them as inherent methods but no longer a public `set_len`, so
//! these are written with `into_raw_parts`/`from_raw_parts`, which both
//! kernels have: one version, no cfg.

use kernel::alloc::{Allocator, Vec};

/// Takes `v`'s elements, leaving it empty: `core::mem::take`, which 6.12's
/// `Vec` (no `Default`) does not allow.
// `allow`, not `expect`: only 7.3's `Vec` has `Default`, so it fires on 7.3 only.
#[allow(clippy::mem_replace_with_default)]
pub(crate) fn take<T, A: Allocator>(v: &mut Vec<T, A>) -> Vec<T, A> {
    core::mem::replace(v, Vec::new())
}

/// Drops every element from `new_len` on.
pub(crate) fn truncate<T, A: Allocator>(v: &mut Vec<T, A>, new_len: usize) {
    let len = v.len();
    if new_len >= len {
        return;
    }
    let (ptr, _, cap) = take(v).into_raw_parts();
    // SAFETY: `ptr` and `cap` come from `into_raw_parts` of a vector of the
    // same allocator, and `new_len < len <= cap`, so its first `new_len`
    // elements are initialised. Elements `new_len..len` are initialised too
    // and no longer reachable through `v`; they are dropped exactly once,
    // here.
    unsafe {
        *v = Vec::from_raw_parts(ptr, new_len, cap);
        core::ptr::drop_in_place(core::ptr::slice_from_raw_parts_mut(
            ptr.add(new_len),
            len - new_len,
        ));
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
