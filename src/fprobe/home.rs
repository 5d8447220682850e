// SPDX-License-Identifier: GPL-2.0

//! Where an entry side lives: vmalloc memory, half a page into its
//! allocation (see "Stale return frames" in the parent's documentation).

use core::pin::Pin;

use kernel::alloc::AllocError;
use kernel::prelude::*;

use super::Side;

/// Where an entry side lies in its vmalloc allocation (page-aligned): past
/// half a page, where no return side, at the start of its own, ever lies.
pub(super) const ENTRY_OFFSET: usize = 2048;

/// An entry side's allocation: [`ENTRY_OFFSET`] bytes of nothing, then the
/// side (see "Stale return frames" in the module documentation).
#[repr(C)]
pub(super) struct EntryHome {
    _gap: core::mem::MaybeUninit<[u8; ENTRY_OFFSET]>,
    pub(super) side: Side,
}

impl EntryHome {
    /// The side, pinned as its home is.
    pub(super) fn side(self: Pin<&mut Self>) -> Pin<&mut Side> {
        // SAFETY: `side` is structurally pinned: it is never moved out of
        // a pinned `EntryHome`, nor handed out unpinned.
        unsafe { self.map_unchecked_mut(|h| &mut h.side) }
    }
}

impl Side {
    /// A new entry side, in vmalloc memory at [`ENTRY_OFFSET`]: never at
    /// an address that kmalloc (other users' fprobes) hands out, nor at a
    /// return side's.
    pub(super) fn entry(bare: bool) -> Result<Pin<VBox<EntryHome>>, AllocError> {
        const { assert!(core::mem::offset_of!(EntryHome, side) == ENTRY_OFFSET) };
        let mut home = VBox::<EntryHome>::new_uninit(GFP_KERNEL)?;
        // SAFETY: `home` is valid for writing an `EntryHome`; only its
        // `side` is written, in place (the gap, 2 KiB, never on the stack).
        unsafe {
            core::ptr::addr_of_mut!((*home.as_mut_ptr()).side).write(Self::new(true, bare));
        }
        // SAFETY: `side` was written just above; `_gap` may stay
        // uninitialised (`MaybeUninit`).
        Ok(Pin::from(unsafe { home.assume_init() }))
    }
}
