// SPDX-License-Identifier: GPL-2.0

//! An [`Int3Set`]'s unregistering at retire, and the check that the kernel
//! let go of every probe.

use kernel::ffi::c_int;
use kernel::prelude::*;

use super::{slot_of, Int3Kind, Int3Set};
use crate::error::BStr;

impl<B: Int3Kind> Int3Set<B> {
    /// Unregisters every probe: one batch (one grace period), or one call
    /// each (`one_by_one`, the naive baseline batchprobe exists to avoid).
    /// Runs once (`retire`).
    pub(super) fn unregister_all(&self, one_by_one: bool) {
        if one_by_one {
            for &raw in self.ptrs.iter() {
                // SAFETY: The type invariant: registered, and `retire`
                // runs once.
                unsafe { B::unregister_one(raw) };
            }
        } else {
            let n = c_int::try_from(self.ptrs.len()).unwrap_or(c_int::MAX);
            // SAFETY: As above; the kernel only reads the array.
            unsafe { B::unregister_many(self.ptrs.as_ptr().cast_mut(), n) };
        }
    }

    /// Whether the kernel let go of every probe just unregistered (see
    /// [`Int3Kind::let_go`]); if not, says which it kept, and the set's
    /// memory stays for good (`retire` returns `false`).
    pub(super) fn all_let_go(ptrs: &[*mut B::Raw]) -> bool {
        let mut kept = 0usize;
        for &raw in ptrs.iter() {
            // SAFETY: Live (the set frees its slots only after `retire`),
            // and just handed to the kernel's unregister.
            if unsafe { B::let_go(raw) } {
                continue;
            }
            if kept == 0 {
                // SAFETY: The pointers are the `raw` fields of live slots.
                let slot = unsafe { slot_of::<B>(raw) };
                pr_err!(
                    "{} {}: the kernel did not unregister it (its disarm failed: see the \
                     WARNING above); the set's memory is kept for good\n",
                    B::NAME,
                    BStr(slot.symbol()).as_str()
                );
            }
            kept += 1;
        }
        if kept > 1 {
            pr_err!("{} more {}s kept the same way\n", kept - 1, B::NAME);
        }
        kept == 0
    }
}
