// SPDX-License-Identifier: GPL-2.0

//! What the ftrace-based backends (the fprobe and direct sets) share:
//! whether ftrace can trace a function, and why a target is refused when it
//! cannot.

use crate::bindings;
use crate::locked::Locked;

/// Whether ftrace can trace the function at `addr`: the address of its
/// ftrace call site if so, else the errno.
pub(crate) fn traceable(_locked: Locked<'_>, addr: usize) -> Result<usize, i32> {
    let mut fentry: kernel::ffi::c_ulong = 0;
    // SAFETY: Only the module's scratch ops is touched; `_locked` proves
    // the registry lock held, which serialises all users of it. `fentry`
    // is writable.
    let ret = unsafe { bindings::bp_ftrace_check_ip(addr, &mut fentry) };
    if ret < 0 {
        Err(ret)
    } else {
        Ok(fentry as usize)
    }
}

/// Why a target without an address (the walk of the core kernel's text
/// never met its name) is refused.
pub(crate) const NOT_IN_TEXT: &str = "unknown symbol, or not a core-kernel function";
