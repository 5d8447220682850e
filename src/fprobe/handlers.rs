// SPDX-License-Identifier: GPL-2.0

//! The handlers the kernel's fprobes call: counting ones, and the `--bare`
//! sets' empty ones.

use kernel::ffi::{c_int, c_ulong, c_void};

use super::Side;
use crate::bindings;
use crate::kcompat::FprobeRegs;

/// The entry handler: counts every probe on the function.
///
/// # Safety
///
/// `fp` is the `fp` field of a live `Side` (the only fprobes that have
/// this handler); the kernel passes the traced call's registers.
pub(super) unsafe extern "C" fn on_entry(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut FprobeRegs,
    _data: *mut c_void,
) -> c_int {
    // SAFETY: `fp` is the first field of a live `repr(C)` `Side`.
    let side = unsafe { &*fp.cast::<Side>() };
    side.hit(
        entry_ip,
        ret_ip,
        regs,
        bindings::batchprobe_kind_BATCHPROBE_KPROBE,
    );
    0
}

/// The exit handler (rethook): counts every return probe on the function.
///
/// # Safety
///
/// As for [`on_entry`].
pub(super) unsafe extern "C" fn on_exit(
    fp: *mut bindings::fprobe,
    entry_ip: c_ulong,
    ret_ip: c_ulong,
    regs: *mut FprobeRegs,
    _data: *mut c_void,
) {
    // SAFETY: `fp` is the first field of a live `repr(C)` `Side`.
    let side = unsafe { &*fp.cast::<Side>() };
    side.hit(
        entry_ip,
        ret_ip,
        regs,
        bindings::batchprobe_kind_BATCHPROBE_KRETPROBE,
    );
}

/// The entry handler of `--bare` sets: the cost of an fprobe hit alone.
///
/// # Safety
///
/// None needed: it reads none of its arguments. `unsafe` only to match
/// the type of the kernel's handler pointer.
pub(super) unsafe extern "C" fn bare_entry(
    _fp: *mut bindings::fprobe,
    _entry_ip: c_ulong,
    _ret_ip: c_ulong,
    _regs: *mut FprobeRegs,
    _data: *mut c_void,
) -> c_int {
    0
}

/// The exit handler of `--bare` sets.
///
/// # Safety
///
/// As for [`bare_entry`].
pub(super) unsafe extern "C" fn bare_exit(
    _fp: *mut bindings::fprobe,
    _entry_ip: c_ulong,
    _ret_ip: c_ulong,
    _regs: *mut FprobeRegs,
    _data: *mut c_void,
) {
}
