// SPDX-License-Identifier: GPL-2.0

//! Owned debugfs entries (the 6.12 kernel crate has no debugfs abstraction).

use core::ptr::NonNull;

use kernel::error::from_err_ptr;
use kernel::prelude::*;
use kernel::str::CStr;

use crate::bindings;
use crate::engine::Engine;

/// A debugfs directory, removed (with everything below it) when dropped.
///
/// # Invariants
///
/// `self.0` is a valid dentry returned by `debugfs_create_dir` and not yet removed.
pub(crate) struct Dir(NonNull<bindings::dentry>);

// SAFETY: A debugfs dentry may be used and removed from any thread; the only
// operation `Dir` performs is `debugfs_remove`, which takes its own locks.
unsafe impl Send for Dir {}
// SAFETY: `Dir` exposes no interior mutability through `&Dir`; creating
// children under a dentry is serialised by debugfs itself.
unsafe impl Sync for Dir {}

impl Dir {
    /// Creates the directory `name` at the debugfs root.
    pub(crate) fn new(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid NUL-terminated string for the duration of
        // the call; a NULL parent means the debugfs root.
        let raw =
            unsafe { bindings::debugfs_create_dir(name.as_char_ptr(), core::ptr::null_mut()) };
        let raw = from_err_ptr(raw)?;
        // debugfs never returns NULL, but do not rely on that.
        let ptr = NonNull::new(raw).ok_or(ENOMEM)?;
        // INVARIANT: `ptr` came from a successful `debugfs_create_dir`.
        Ok(Self(ptr))
    }

    /// Creates batchprobe's files (`control`, `sets`, `stats`,
    /// `last_error`) in this directory, all serving `engine`.
    ///
    /// # Safety
    ///
    /// `engine` must outlive this directory: the files hand it to the Rust
    /// callbacks in `control.rs` until the directory is removed (which waits
    /// for callbacks in progress).
    pub(crate) unsafe fn create_files(&self, engine: *const Engine) -> Result {
        // SAFETY: The dentry is live (type invariant); `engine` outlives the
        // files (the function's safety section).
        let ret =
            unsafe { bindings::bp_debugfs_create_files(self.0.as_ptr(), engine.cast_mut().cast()) };
        kernel::error::to_result(ret)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the dentry is valid and not yet
        // removed; after this it is never used again.
        unsafe { bindings::debugfs_remove(self.0.as_ptr()) };
    }
}
