// SPDX-License-Identifier: GPL-2.0

//! [`Chunk`]: where an [`Int3Set`](super::Int3Set)'s slots live, never
//! moving while the kernel points into them.

use core::pin::Pin;

use kernel::alloc::AllocError;
use kernel::prelude::*;

use super::{Int3Kind, Slot};
use crate::kvec;

/// Slots per chunk; a chunk is allocated whole and never grows.
pub(super) const CHUNK: usize = 64;

/// Up to [`CHUNK`] slots in one allocation that never grows: a slot stays
/// where it is from its push until it is dropped, in place, so the kernel
/// may point into it meanwhile. Hands out its slots pinned or shared,
/// never `&mut`.
///
/// # Invariants
///
/// `slots` was allocated with capacity [`CHUNK`] and never holds more, so
/// its buffer is never reallocated; slots leave it only by being dropped
/// in place (`truncate`, or the chunk's own drop).
pub(super) struct Chunk<B: Int3Kind> {
    slots: KVec<Slot<B>>,
}

impl<B: Int3Kind> Chunk<B> {
    /// An empty chunk, with room for [`CHUNK`] slots.
    pub(super) fn new() -> Result<Self, AllocError> {
        // INVARIANT: capacity `CHUNK`.
        Ok(Self {
            slots: KVec::with_capacity(CHUNK, GFP_KERNEL)?,
        })
    }

    /// Whether it holds [`CHUNK`] slots already.
    pub(super) fn is_full(&self) -> bool {
        self.slots.len() >= CHUNK
    }

    /// Puts `slot` last, where it stays: pinned. `None` (and `slot`
    /// dropped) if the chunk is full.
    pub(super) fn push(&mut self, slot: Slot<B>) -> Option<Pin<&Slot<B>>> {
        if self.is_full() {
            return None;
        }
        let index = self.slots.len();
        // INVARIANT: there is room, so this push neither reallocates nor
        // allocates (hence cannot fail); the chunk holds at most `CHUNK`.
        self.slots.push(slot, GFP_ATOMIC).ok()?;
        // SAFETY: `index` is the slot just pushed; only a shared reference
        // to it is made, and other slots (possibly live) are not touched.
        let slot = unsafe { &*self.slots.as_ptr().add(index) };
        // SAFETY: The slot stays where it is until it is dropped in place
        // (type invariant).
        Some(unsafe { Pin::new_unchecked(slot) })
    }

    /// Drops the last slot, in place: the kernel holds no pointer into it
    /// (never registered, or unregistered and its grace period passed).
    pub(super) fn drop_last(&mut self) {
        let len = self.slots.len();
        kvec::truncate(&mut self.slots, len.saturating_sub(1));
    }

    /// Every slot, shared.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Slot<B>> {
        self.slots.iter()
    }
}
