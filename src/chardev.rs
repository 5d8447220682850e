// SPDX-License-Identifier: GPL-2.0

//! The control device, `/dev/batchprobe` (`rust/chardev.c`): a write is a
//! control write, as the debugfs `control` file's, on machines where
//! `lockdown=integrity` makes debugfs refuse every writable file.

use core::ffi::c_void;
use core::ptr::NonNull;

use kernel::error::from_err_ptr;
use kernel::prelude::*;

use crate::bindings;
use crate::engine::Engine;

/// The registered misc device, deregistered when dropped.
///
/// # Invariants
///
/// `self.0` came from a successful `bp_chardev_register` and is not yet
/// unregistered.
pub(crate) struct ControlDev(NonNull<c_void>);

// SAFETY: The device is only deregistered, which `misc_deregister` allows
// from any thread.
unsafe impl Send for ControlDev {}
// SAFETY: `&ControlDev` gives nothing to do.
unsafe impl Sync for ControlDev {}

impl ControlDev {
    /// Registers `/dev/batchprobe`, its writes run on `engine`.
    ///
    /// # Safety
    ///
    /// `engine` must outlive every file opened on the device: it does if
    /// the device is dropped before the engine, since an open file holds a
    /// reference on the module (`fops.owner`), which therefore cannot be
    /// unloaded, nor `self` dropped by its unload, while one is open.
    pub(crate) unsafe fn new(engine: &Engine) -> Result<Self> {
        let engine = core::ptr::from_ref(engine).cast_mut().cast::<c_void>();
        // SAFETY: `engine` outlives the device's files (the caller).
        let raw = unsafe { bindings::bp_chardev_register(engine) };
        let raw = from_err_ptr(raw)?;
        let ptr = NonNull::new(raw).ok_or(ENOMEM)?;
        // INVARIANT: `ptr` came from a successful registration.
        Ok(Self(ptr))
    }
}

impl Drop for ControlDev {
    fn drop(&mut self) {
        // SAFETY: Registered and not yet unregistered (type invariant);
        // never used again.
        unsafe { bindings::bp_chardev_unregister(self.0.as_ptr()) };
    }
}
