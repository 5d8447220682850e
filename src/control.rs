// SPDX-License-Identifier: GPL-2.0

//! The Rust ends of the debugfs files (`rust/debugfs.c` owns the
//! `file_operations`): a control write, and the read-only listings.

use core::fmt::Write;

use kernel::ffi::{c_int, c_uint, c_void};
use kernel::prelude::*;

use crate::bindings;
use crate::engine::{Engine, Show};

/// Writes into a `seq_file`; `seq_file` itself handles overflow by calling
/// the show callback again with a bigger buffer. A full buffer is an
/// error, so that a listing of millions of probes stops there instead of
/// formatting the rest for nothing.
struct SeqWriter(*mut bindings::seq_file);

impl Write for SeqWriter {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        // SAFETY: `self.0` is the live `seq_file` of the current show call;
        // `s` is valid for `s.len()` bytes. `seq_write` does not sleep.
        let full = unsafe { bindings::seq_write(self.0, s.as_ptr().cast(), s.len()) } != 0;
        if full {
            return Err(core::fmt::Error);
        }
        Ok(())
    }
}

/// One write of the control file (called by `bp_control_write`).
///
/// # Safety
///
/// `engine` is the `Engine` the files were created with (it outlives the
/// debugfs directory), and `buf` is valid for reading `len` bytes.
#[no_mangle]
pub(crate) unsafe extern "C" fn bp_rust_control_write(
    engine: *mut c_void,
    buf: *const u8,
    len: usize,
) -> isize {
    // SAFETY: See the function's safety section.
    let engine = unsafe { &*engine.cast::<Engine>() };
    // SAFETY: See the function's safety section.
    let buf = unsafe { core::slice::from_raw_parts(buf, len) };
    match engine.write(buf) {
        Ok(n) => isize::try_from(n).unwrap_or(isize::MAX),
        Err(e) => e.to_errno() as isize,
    }
}

/// Fills a read-only file (called by the `single_open` show callbacks).
///
/// # Safety
///
/// `engine` is as for [`bp_rust_control_write`], and `m` is the `seq_file`
/// being shown.
#[no_mangle]
pub(crate) unsafe extern "C" fn bp_rust_show(
    engine: *mut c_void,
    what: c_uint,
    m: *mut bindings::seq_file,
) -> c_int {
    // SAFETY: See the function's safety section.
    let engine = unsafe { &*engine.cast::<Engine>() };
    let what = match what {
        bindings::bp_show_BP_SHOW_SETS => Show::Sets,
        bindings::bp_show_BP_SHOW_STATS => Show::Stats,
        bindings::bp_show_BP_SHOW_LAST_ERROR => Show::LastError,
        _ => return EINVAL.to_errno(),
    };
    match engine.show(what, &mut SeqWriter(m)) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}
