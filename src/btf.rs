// SPDX-License-Identifier: GPL-2.0

//! The kernel's BTF (`/sys/kernel/btf/vmlinux`), read into memory once and
//! indexed ([`VmlinuxBtf`]), for the two wings that ask it about functions:
//! the exit trampoline which functions it can call (`direct::btf`), and the
//! fetch-argument compiler what a function's parameters and return value
//! are (`events::prototype`). The parsing is pure, in [`parse`].

use kernel::prelude::*;

use crate::bindings;

#[path = "btf/parse.rs"]
mod parse;

pub use parse::*;

/// The vmlinux BTF, with its type offsets and its functions sorted by name.
///
/// Read on first use and kept until the module goes, in the engine's
/// caches: the kernel's BTF does not change, and reading and indexing it
/// costs more than a small set's whole attach. Exit sets and compiled
/// fetch arguments that name a parameter hold it shared.
///
/// # Invariants
///
/// `raw` points to `len` bytes that `bp_btf_vmlinux_read` vmalloc'ed,
/// owned by this value and never written.
pub(crate) struct VmlinuxBtf {
    raw: *mut u8,
    len: usize,
    offsets: KVVec<u32>,
    funcs: KVVec<u32>,
}

// SAFETY: The buffer is owned and only read.
unsafe impl Send for VmlinuxBtf {}
// SAFETY: See `Send`.
unsafe impl Sync for VmlinuxBtf {}

impl VmlinuxBtf {
    /// Reads and indexes the kernel's BTF (a few MiB, a few ms): `ENOENT`
    /// when the kernel has none (`CONFIG_DEBUG_INFO_BTF` off), `EINVAL`
    /// when it does not parse.
    pub(crate) fn load() -> Result<Self> {
        let mut buf: *mut kernel::ffi::c_void = core::ptr::null_mut();
        // SAFETY: `buf` is writable; process context (the registry lock
        // is a mutex).
        let ret = unsafe { bindings::bp_btf_vmlinux_read(&mut buf) };
        if ret < 0 {
            return Err(Error::from_errno(ret as i32));
        }
        // INVARIANT: `buf` holds `ret` bytes from the vmalloc'ed read.
        let mut me = Self {
            raw: buf.cast(),
            len: ret as usize,
            offsets: KVVec::new(),
            funcs: KVVec::new(),
        };
        let (offsets, funcs) = {
            let btf = me.btf().ok_or(EINVAL)?;
            let n = btf.count().ok_or(EINVAL)?;
            let mut offsets = KVVec::from_elem(0u32, n, GFP_KERNEL)?;
            let nfuncs = btf.offsets(&mut offsets).ok_or(EINVAL)?;
            let mut funcs = KVVec::from_elem(0u32, nfuncs, GFP_KERNEL)?;
            btf.index_functions(&offsets, &mut funcs).ok_or(EINVAL)?;
            (offsets, funcs)
        };
        me.offsets = offsets;
        me.funcs = funcs;
        Ok(me)
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: By the type invariant `raw` holds `len` readable bytes.
        unsafe { core::slice::from_raw_parts(self.raw, self.len) }
    }

    /// The parsed blob (`None` only if it stopped parsing, which `load`
    /// has checked it does not).
    pub(crate) fn btf(&self) -> Option<Btf<'_>> {
        Btf::parse(self.bytes())
    }

    /// Every type's offset, by id ([`Btf::offsets`]).
    pub(crate) fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The functions' ids sorted by name ([`Btf::index_functions`]).
    pub(crate) fn funcs(&self) -> &[u32] {
        &self.funcs
    }
}

impl Drop for VmlinuxBtf {
    fn drop(&mut self) {
        // SAFETY: By the type invariant `raw` came from vmalloc and is ours.
        unsafe { bindings::bp_vfree(self.raw.cast()) };
    }
}
