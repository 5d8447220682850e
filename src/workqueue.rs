// SPDX-License-Identifier: GPL-2.0

//! A workqueue owned by the module.
//!
//! Shaped like the later upstream `kernel::workqueue::OwnedQueue`: allocated
//! by the module, dereferences to [`kernel::workqueue::Queue`] for enqueueing,
//! flushed on demand, drained and destroyed on drop.

use core::ptr::NonNull;

use kernel::prelude::*;
use kernel::str::CStr;
use kernel::workqueue::Queue;

use crate::bindings;

/// An ordered workqueue (one item at a time, in queueing order).
///
/// # Invariants
///
/// `self.0` was returned by `alloc_workqueue` and is destroyed only on drop.
pub(crate) struct OwnedQueue(NonNull<bindings::workqueue_struct>);

// SAFETY: A workqueue may be used and destroyed from any thread.
unsafe impl Send for OwnedQueue {}
// SAFETY: All workqueue operations through `&OwnedQueue` are thread-safe.
unsafe impl Sync for OwnedQueue {}

impl OwnedQueue {
    /// Allocates an ordered, unbound workqueue named `name`.
    pub(crate) fn new_ordered(name: &'static CStr) -> Result<Self> {
        // SAFETY: `name` is a valid NUL-terminated string that outlives the
        // queue (it is `'static`).
        let raw = unsafe { bindings::bp_alloc_ordered_workqueue(name.as_char_ptr()) };
        // INVARIANT: `raw` is a fresh workqueue when not NULL.
        NonNull::new(raw).map(Self).ok_or(ENOMEM)
    }

    /// Waits until every work item queued before this call has finished.
    pub(crate) fn flush(&self) {
        // SAFETY: By the type invariant the queue is alive.
        unsafe { bindings::bp_flush_workqueue(self.0.as_ptr()) };
    }
}

impl core::ops::Deref for OwnedQueue {
    type Target = Queue;

    fn deref(&self) -> &Queue {
        // SAFETY: By the type invariant the queue stays alive as long as `self`.
        unsafe { Queue::from_raw(self.0.as_ptr()) }
    }
}

impl Drop for OwnedQueue {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the queue is alive and nobody else
        // destroys it; `destroy_workqueue` drains pending items first.
        unsafe { bindings::destroy_workqueue(self.0.as_ptr()) };
    }
}
