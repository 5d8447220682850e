// SPDX-License-Identifier: GPL-2.0

//! The no-op post handler that keeps the kprobe optimizer off a kprobe
//! (`--noopt`): whether a probe gets one ([`Post`]), and the registration
//! again with one of a probe the kernel did not make ftrace-based.

use kernel::prelude::*;

use super::{How, Int3Kind};
use crate::backend::Refused;
use crate::error;

/// Whether a kprobe gets a (no-op) post handler: the kernel never
/// optimizes a kprobe with one (`--noopt`).
///
/// Never at a function's ftrace call site (`SYM+0`, or `SYM+4` after the
/// endbr64 under IBT), where kprobes makes the probe ftrace-based, which is
/// never optimized anyway. There a post handler would make it an IPMODIFY
/// ftrace user, and worse: kprobes arms an ftrace-based probe through
/// `kprobe_ftrace_ops` or, when its aggregate has a post handler,
/// `kprobe_ipmodify_ops`, and disarms it through whichever the post handler
/// names at disarm time. A probe with one that joins a probe armed there
/// without one (`add_new_kprobe()`) switches that, and the last disarm
/// looks the address up in the ops that never had it: "Failed to disarm
/// kprobe-ftrace" (a WARNING), and the kprobe stays registered after its
/// owner freed it (6.12 and 7.3 alike; `test_noopt_ftrace_site.sh`).
/// `SYM+OFF` past SYM's end is that too where it is the next function's
/// first byte, which the kernel moves to its call site: a name the kernel
/// resolves is known to land past the call site only where the walk met
/// the symbol it resolves to (test_fuzz.sh's `vfs_read+4096`, the next
/// function's +0 on the test kernel, left a kretprobe there registered
/// for good, its module held).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Post {
    /// None: not `--noopt`, or at the ftrace call site.
    No,
    /// One: past the deepest the call site can be, or past it in fact.
    Yes,
    /// Not known before registering (the kernel resolves the symbol and
    /// its address is not known here): registered without one, and
    /// registered again with one if the kernel did not make it
    /// ftrace-based ([`super::Int3Set::register`]).
    IfNotFtrace,
}

/// Registers a probe that the kernel did not make ftrace-based again, with
/// its post handler ([`Post::IfNotFtrace`]): an int3 kprobe after all
/// (`SYM+4` of a function ftrace does not trace). One grace period, for
/// this case only. Again at the address the kernel resolved the first
/// time, not by name: a name may resolve elsewhere meanwhile (a module
/// that just came, searched before the others), and a probe with a post
/// handler that joined an armed one at a call site would leave the
/// kernel's aggregate unable to disarm, even once unregistered again. On
/// failure `raw` is left unregistered (`EAGAIN`: ftrace-based after all).
///
/// # Safety
///
/// `raw` is registered, disarmed, and no one but the caller registers,
/// arms or unregisters it meanwhile (listings may read its counters).
unsafe fn register_with_post<B: Int3Kind>(raw: *mut B::Raw, how: How) -> Result {
    // SAFETY: `raw` is registered (caller): the kernel resolved its address.
    let addr = unsafe { B::addr(raw) };
    // SAFETY: `raw` is registered and only the caller acts on it (caller).
    unsafe { B::unregister_one(raw) };
    let mut again = B::Raw::default();
    let how = How {
        post: Post::Yes,
        addr,
        ..how
    };
    // By address: no symbol name.
    B::init(&mut again, core::ptr::null(), how);
    // SAFETY: Unregistered, and its grace period has passed: the kernel
    // holds no pointer into it, and no one but the caller writes it; a
    // listing's volatile read of its counters may see a torn value (caller).
    unsafe { raw.write(again) };
    // SAFETY: Set up by `init`, not registered, and it stays allocated
    // until a grace period after it is unregistered (the caller's).
    unsafe { B::register(raw) }?;
    // SAFETY: Just registered.
    if unsafe { B::ftrace_based(raw) } {
        // Never expected (the same address, not ftrace-based before): a
        // post handler at an ftrace call site is what must not be.
        // SAFETY: As above.
        unsafe { B::unregister_one(raw) };
        return Err(EAGAIN);
    }
    Ok(())
}

/// What follows a probe's registration: its post handler where it is due
/// after all ([`Post::IfNotFtrace`]), then `verify`'s check. On `Err` the
/// probe is unregistered again, its grace period passed.
///
/// # Safety
///
/// `raw` was just registered, disarmed, and no one but the caller acts on
/// it (listings may read its counters: see [`register_with_post`]).
pub(super) unsafe fn settle<B: Int3Kind>(
    raw: *mut B::Raw,
    how: How,
    verify: impl FnOnce(*mut B::Raw) -> Result<(), Refused>,
) -> Result<(), Refused> {
    // SAFETY: `raw` was just registered (caller).
    if how.post == Post::IfNotFtrace && !unsafe { B::ftrace_based(raw) } {
        // SAFETY: As the caller guarantees.
        if let Err(e) = unsafe { register_with_post::<B>(raw, how) } {
            return Err(Refused {
                error: e,
                what: error::refusal(B::SITE, e),
            });
        }
    }
    if let Err(r) = verify(raw) {
        // SAFETY: `raw` is registered (disarmed) and only the caller acts on it.
        unsafe { B::unregister_one(raw) };
        // (Unregistering a disabled probe never disarms anything, so
        // never fails the way [`Int3Kind::let_go`] describes.)
        return Err(r);
    }
    Ok(())
}
