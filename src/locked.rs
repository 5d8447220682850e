// SPDX-License-Identifier: GPL-2.0

//! Evidence that the registry lock (the engine's mutex) is held.
//!
//! Sets and backends take a [`Locked`] where they need the registry lock,
//! as `kernel/kprobes.c` asserts `lockdep_assert_held(&kprobe_mutex)` at run
//! time: here the compiler checks it. Only the registry mints one
//! (`Registry::locked`), from a reference to itself that only the mutex's
//! guard hands out. A leaf: it names no other part of the crate, so a
//! backend reads without the registry.

use core::marker::PhantomData;

/// Proof that the registry lock is held for `'a`.
///
/// # Invariants
///
/// The engine's mutex is held for the whole of `'a`.
#[derive(Clone, Copy)]
pub(crate) struct Locked<'a>(PhantomData<&'a ()>);

impl<'a> Locked<'a> {
    /// Mints the proof for as long as `holder` is borrowed.
    ///
    /// # Safety
    ///
    /// The caller holds the engine's mutex for as long as `holder` is
    /// borrowed (`holder` is reachable only through the mutex's guard).
    #[inline(always)]
    pub(crate) unsafe fn assume<T: ?Sized>(holder: &'a T) -> Self {
        let _ = holder;
        // INVARIANT: The caller holds the mutex for `'a` (safety contract).
        Locked(PhantomData)
    }
}
