// SPDX-License-Identifier: GPL-2.0

//! What the fprobe backend keeps for the whole module rather than per set:
//! the fgraph anchor, which keeps the kernel's return-fprobe `fgraph_ops`
//! (and its index) registered from the first return fprobe until unload,
//! and the count of sets with fprobe-served `r:`, which fgraph's
//! return-data limit caps (see the parent module).

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kernel::error::to_result;
use kernel::prelude::*;
use kernel::types::Opaque;

use crate::bindings;
use crate::error::{refusal, Failed};
use crate::errtext::Site;
use crate::kcompat;

/// The sets whose return side holds fprobe-served `r:` (built, not yet
/// retired): on fgraph at most [`kcompat::RETURN_FPROBE_SETS`].
/// Sets are built under the registry lock, one at a time, so `fit` and the
/// reservation in `attach` see no other builder; retiring only lowers it.
static RETURN_SIDES: AtomicUsize = AtomicUsize::new(0);

/// Counts a built set's return side among [`RETURN_SIDES`] (once per side,
/// given back once with [`uncount_return_side`]).
pub(super) fn count_return_side() {
    RETURN_SIDES.fetch_add(1, Ordering::Relaxed);
}

/// Gives back a place [`count_return_side`] took.
pub(super) fn uncount_return_side() {
    RETURN_SIDES.fetch_sub(1, Ordering::Relaxed);
}

/// Whether one more set may have fprobe-served `r:` (on fgraph, fewer than
/// [`kcompat::RETURN_FPROBE_SETS`] have; before fgraph, always).
pub(super) fn return_side_free() -> bool {
    match kcompat::RETURN_FPROBE_SETS {
        Some(max) => RETURN_SIDES.load(Ordering::Relaxed) < max,
        None => true,
    }
}

/// On fgraph, the kernel's one `fgraph_ops` for every return fprobe, held
/// registered from the first return fprobe batchprobe arms until unload.
///
/// fprobe unregisters that ops when its last return fprobe goes, and the
/// next registration gives it another index (fgraph hands indices out
/// least recently used first) while entry handlers on other CPUs may still
/// be running on the old one: such a call reserves its return data under
/// one index and marks the frame with the other, and its return then finds
/// no data (`WARNING: kernel/trace/fprobe.c:676 at fprobe_return`). The
/// fuzz selftest, which arms and retires return fprobes on `vfs_write`
/// from several writers, met it in 2 of 3 boots on 7.3. A return fprobe of
/// ours on a function nothing calls (`bp_fgraph_anchor`, C) keeps the ops,
/// and its index, for the module's lifetime: what batchprobe's own sets
/// come and go no longer moves it.
///
/// # Invariants
///
/// `held` says whether `fp` is registered; both change only under the
/// registry lock (arming) or at unload, after every set is gone.
struct FgraphAnchor {
    fp: Opaque<bindings::fprobe>,
    held: AtomicBool,
}

// SAFETY: `fp` is only handed to the kernel's own locked fprobe API, under
// the registry lock or at unload (type invariant).
unsafe impl Sync for FgraphAnchor {}

static ANCHOR: FgraphAnchor = FgraphAnchor {
    fp: Opaque::uninit(),
    held: AtomicBool::new(false),
};

impl FgraphAnchor {
    /// Registers the anchor if this kernel's fprobe runs on fgraph and it
    /// is not registered yet. Called under the registry lock, before a
    /// set's return fprobe is armed.
    fn hold(&self) -> Result<(), Failed> {
        if !kcompat::FPROBE_FGRAPH || self.held.load(Ordering::Relaxed) {
            return Ok(());
        }
        let mut ip = 0;
        let anchor: unsafe extern "C" fn() = bindings::bp_fgraph_anchor;
        // SAFETY: Only asks ftrace whether the never-called C function
        // `bp_fgraph_anchor` has a call site, and where.
        let ret = unsafe { bindings::bp_ftrace_check_ip(anchor as usize, &mut ip) };
        // SAFETY: Not registered (`held` is false, under the registry
        // lock): nothing else reads `fp`.
        unsafe {
            self.fp.get().write(bindings::fprobe {
                exit_handler: Some(super::handlers::bare_exit),
                ..Default::default()
            })
        };
        let res = to_result(ret).and_then(|()| {
            // SAFETY: As above; `fp` is static, so it never moves, and the
            // kernel only reads the one-address array.
            to_result(unsafe { bindings::register_fprobe_ips(self.fp.get(), &mut { ip }, 1) })
        });
        if let Err(e) = res {
            return Err(Failed::new(
                e,
                format_args!(
                    "fretprobe: holding fgraph's fprobe ops (bp_fgraph_anchor) failed: {}",
                    refusal(Site::Fprobe, e)
                ),
            ));
        }
        // INVARIANT: registered just now.
        self.held.store(true, Ordering::Relaxed);
        Ok(())
    }
}

/// Unregisters the fgraph anchor, if held: at unload, once every set is
/// gone (one RCU grace period).
pub(crate) fn release_fgraph_anchor() {
    if ANCHOR.held.swap(false, Ordering::Relaxed) {
        // SAFETY: Registered (`held`); no set is left to arm another.
        if let Err(e) = to_result(unsafe { bindings::unregister_fprobe(ANCHOR.fp.get()) }) {
            pr_warn!(
                "fretprobe: releasing the fgraph anchor failed, errno {}\n",
                e.to_errno()
            );
        }
    }
}

/// Holds the fgraph anchor (registers it if this kernel's fprobe runs on
/// fgraph and it is not held yet): under the registry lock, before a set's
/// return fprobe is armed.
pub(super) fn hold() -> Result<(), Failed> {
    ANCHOR.hold()
}
