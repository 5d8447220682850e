// SPDX-License-Identifier: GPL-2.0

//! A set's enable gate, and the handler of an in-kernel client behind it.
//!
//! Every probe slot of a set points to the set's [`Gate`]. A handler counts
//! a hit only while the gate is open and then, for sets created through the
//! in-kernel API ([`crate::api`]), calls the client's handler with the
//! target's index in the client's array.

use core::sync::atomic::{AtomicBool, Ordering};

use kernel::ffi::c_void;

use crate::bindings;

/// A client's handler and its context (`batchprobe_set_desc`).
///
/// # Invariants
///
/// `handler` stays callable, and `ctx` stays whatever the handler expects,
/// until the set's teardown has completed: the client's module is pinned
/// until then ([`crate::api`]).
#[derive(Clone, Copy)]
pub(crate) struct Client {
    pub(crate) handler: unsafe extern "C" fn(*mut c_void, u32, *const bindings::batchprobe_hit),
    pub(crate) ctx: *mut c_void,
}

/// The enable gate.
pub(crate) struct Gate {
    open: AtomicBool,
    client: Option<Client>,
}

impl Gate {
    /// A closed gate, calling `client` (if any) once opened.
    pub(crate) fn new(client: Option<Client>) -> Self {
        Self {
            open: AtomicBool::new(false),
            client,
        }
    }

    /// Opens or closes the gate.
    pub(crate) fn set(&self, open: bool) {
        self.open.store(open, Ordering::Release);
    }

    /// Whether hits are counted.
    #[inline(always)]
    pub(crate) fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }

    /// Whether hits go to a client's handler.
    #[inline(always)]
    pub(crate) fn has_client(&self) -> bool {
        self.client.is_some()
    }

    /// Calls the client's handler, if any, for target `index`. Called from
    /// probe handlers, after the gate was found open.
    #[inline(always)]
    pub(crate) fn deliver(&self, index: u32, hit: &bindings::batchprobe_hit) {
        if let Some(c) = self.client {
            // SAFETY: By the type invariant of `Client` the handler is live
            // while the set's probes can fire; `hit` lives for the call.
            unsafe { (c.handler)(c.ctx, index, hit) };
        }
    }
}

// SAFETY: `ctx` is only passed back to the client's handler, which the
// client documents as callable on any CPU; the rest is atomic or immutable.
unsafe impl Send for Gate {}
// SAFETY: See `Send`.
unsafe impl Sync for Gate {}
