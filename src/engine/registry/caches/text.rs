// SPDX-License-Identifier: GPL-2.0

//! The kernel's text symbols, walked once per module life: ahead of use,
//! on the engine's fill queue right after load, or by the first `create`
//! that needs them before that walk began.
//!
//! The walk is the largest part of a module's first `create` of explicit
//! names: one `sprint_symbol()` per core-kernel text symbol, 121,847 on
//! Debian's 7.3 image (1.7 s of a 1.9 s first `create` of 1,000 `p:` lines
//! there, under TCG, against 0.2 s for the same `create` once the table
//! was made). Made after load, it is ready by the time a user, who loads
//! the module and then writes a set, asks; a `create` that comes while the
//! walk is under way waits for it, not for a walk of its own.
//!
//! Measured again on 2026-12-07 (Debian's 7.3 image, TCG, a Xeon host),
//! the decoding of each `sprint_symbol()` line made cheaper since: the walk
//! took 557 and 603 ms, the name index 20 ms more. Reading the same symbols
//! from `/proc/kallsyms` instead (up to its `_etext` line, formatted by the
//! kernel a line at a time, then decoded) made the same table, symbol for
//! symbol, in 536 and 502 ms in the same boots (125 and 102 ms against the
//! walk's 216 and 157 on the test kernel's 22,214 symbols): too little on a
//! distribution's kernel to be worth a second reader, and one that pays for
//! nothing where the file hides its addresses (`kptr_restrict=2`).

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

use crate::kallsyms::TextTable;

/// The slot the table is made in, shared by the registry's caches and
/// the work that fills it after load.
///
/// # Invariants
///
/// `symbols` is 0, or the length of the table `table` holds (it is
/// written once, after the table is).
#[pin_data]
pub(crate) struct TextSlot {
    /// The table once made; held by whoever walks (the fill work, or a
    /// `create` that came first), so that the other waits for that walk.
    #[pin]
    table: Mutex<Option<Arc<TextTable>>>,
    /// How many symbols the table holds, 0 before it is made: read
    /// without the lock (`stats`), which a walk holds for its duration.
    symbols: AtomicUsize,
    /// Set on unload: a walk under way gives up (`EINTR`).
    stop: AtomicBool,
}

impl TextSlot {
    /// An empty slot.
    pub(crate) fn new() -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                table <- new_mutex!(None, "batchprobe::text"),
                symbols: AtomicUsize::new(0),
                stop: AtomicBool::new(false),
            }),
            GFP_KERNEL,
        )
    }

    /// The table: the one made already, the one a walk under way makes
    /// (waited for), or one made now. Process context; may take seconds
    /// under TCG or KASAN. `EINTR` once [`TextSlot::stop`] was called.
    pub(crate) fn get(&self) -> Result<Arc<TextTable>> {
        let mut table = self.table.lock();
        if let Some(t) = &*table {
            return Ok(t.clone());
        }
        let t = Arc::new(TextTable::new_unless(&self.stop)?, GFP_KERNEL)?;
        self.symbols.store(t.len(), Ordering::Relaxed);
        Ok(table.insert(t).clone())
    }

    /// Makes the table if nobody has: the fill work's job, run once after
    /// load. A walk that fails (no memory, or unload) leaves the slot
    /// empty, and the first `create` that needs the table walks again.
    pub(crate) fn fill(&self) {
        let _ = self.get();
    }

    /// How many symbols the table holds; 0 while it is not made.
    pub(crate) fn symbols(&self) -> usize {
        self.symbols.load(Ordering::Relaxed)
    }

    /// Makes a walk under way, and every later one, give up: for unload,
    /// before the fill queue is flushed.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
