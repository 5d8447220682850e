// SPDX-License-Identifier: GPL-2.0

//! The kernel's BTF (`/sys/kernel/btf/vmlinux`), read into memory once and
//! indexed ([`VmlinuxBtf`]), and a module's ([`ModuleBtf`], split on the
//! kernel's), for the two wings that ask it about functions:
//! the exit trampoline which functions it can call (`direct::btf`), and the
//! fetch-argument compiler what a function's parameters and return value
//! are (`events::prototype`). The parsing is pure, in [`parse`].

use kernel::prelude::*;
use kernel::sync::Arc;

use crate::bindings;

#[path = "btf/parse.rs"]
mod parse;

pub use parse::*;

/// A BTF blob as `/sys/kernel/btf/NAME` serves it, read into memory.
///
/// # Invariants
///
/// `raw` points to `len` bytes that `bp_btf_read` vmalloc'ed, owned by
/// this value and never written.
struct Blob {
    raw: *mut u8,
    len: usize,
}

// SAFETY: The buffer is owned and only read.
unsafe impl Send for Blob {}
// SAFETY: See `Send`.
unsafe impl Sync for Blob {}

impl Blob {
    /// Reads `/sys/kernel/btf/NAME` (`name`: `vmlinux` or a loaded
    /// module's): `ENOENT` when there is none.
    fn read(name: &[u8]) -> Result<Self> {
        let mut buf: *mut kernel::ffi::c_void = core::ptr::null_mut();
        // SAFETY: `name` is `name.len()` readable bytes; `buf` is
        // writable; process context (the registry lock is a mutex).
        let ret = unsafe { bindings::bp_btf_read(name.as_ptr().cast(), name.len(), &mut buf) };
        if ret < 0 {
            return Err(Error::from_errno(ret as i32));
        }
        // INVARIANT: `buf` holds `ret` bytes from the vmalloc'ed read.
        Ok(Self {
            raw: buf.cast(),
            len: ret as usize,
        })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: By the type invariant `raw` holds `len` readable bytes.
        unsafe { core::slice::from_raw_parts(self.raw, self.len) }
    }
}

impl Drop for Blob {
    fn drop(&mut self) {
        // SAFETY: By the type invariant `raw` came from vmalloc and is ours.
        unsafe { bindings::bp_vfree(self.raw.cast()) };
    }
}

/// A parsed blob's type offsets and its functions sorted by name
/// ([`Btf::offsets`], [`Btf::index_functions`]): `EINVAL` when it does
/// not parse.
fn index(btf: Option<Btf<'_>>) -> Result<(KVVec<u32>, KVVec<u32>)> {
    let btf = btf.ok_or(EINVAL)?;
    let n = btf.count().ok_or(EINVAL)?;
    let mut offsets = KVVec::from_elem(0u32, n, GFP_KERNEL)?;
    let nfuncs = btf.offsets(&mut offsets).ok_or(EINVAL)?;
    let mut funcs = KVVec::from_elem(0u32, nfuncs, GFP_KERNEL)?;
    btf.index_functions(&offsets, &mut funcs).ok_or(EINVAL)?;
    Ok((offsets, funcs))
}

/// The vmlinux BTF, with its type offsets and its functions sorted by name.
///
/// Read on first use and kept until the module goes, in the engine's
/// caches: the kernel's BTF does not change, and reading and indexing it
/// costs more than a small set's whole attach. Exit sets and compiled
/// fetch arguments that name a parameter hold it shared.
pub(crate) struct VmlinuxBtf {
    blob: Blob,
    offsets: KVVec<u32>,
    funcs: KVVec<u32>,
}

impl VmlinuxBtf {
    /// Reads and indexes the kernel's BTF (a few MiB, a few ms): `ENOENT`
    /// when the kernel has none (`CONFIG_DEBUG_INFO_BTF` off), `EINVAL`
    /// when it does not parse.
    pub(crate) fn load() -> Result<Self> {
        let blob = Blob::read(b"vmlinux")?;
        let (offsets, funcs) = index(Btf::parse(blob.bytes()))?;
        Ok(Self {
            blob,
            offsets,
            funcs,
        })
    }

    /// The parsed blob (`None` only if it stopped parsing, which `load`
    /// has checked it does not).
    pub(crate) fn btf(&self) -> Option<Btf<'_>> {
        Btf::parse(self.blob.bytes())
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

/// A loaded module's BTF (`/sys/kernel/btf/MOD`, split on the kernel's),
/// with its own types' offsets and its functions sorted by name.
///
/// Read by a `create` whose exit set (or `--errors`) has a module's
/// functions, kept only while the set is made: a module loaded again has
/// BTF of its own. Its types name the kernel's, which it holds.
pub(crate) struct ModuleBtf {
    vmlinux: Arc<VmlinuxBtf>,
    blob: Blob,
    offsets: KVVec<u32>,
    funcs: KVVec<u32>,
}

impl ModuleBtf {
    /// Reads and indexes the BTF of the loaded module `name`, split on
    /// `vmlinux`: `ENOENT` when it has none (a kernel without
    /// `CONFIG_DEBUG_INFO_BTF_MODULES`, a module built without it),
    /// `EINVAL` when it does not parse.
    pub(crate) fn load(vmlinux: Arc<VmlinuxBtf>, name: &[u8]) -> Result<Self> {
        if name == b"vmlinux" {
            return Err(EINVAL);
        }
        let blob = Blob::read(name)?;
        let base = vmlinux.btf().ok_or(EINVAL)?;
        let (offsets, funcs) = index(Btf::parse_split(blob.bytes(), &base, vmlinux.offsets()))?;
        Ok(Self {
            vmlinux,
            blob,
            offsets,
            funcs,
        })
    }

    /// The parsed split blob (`None` only if it stopped parsing, which
    /// `load` has checked it does not).
    pub(crate) fn btf(&self) -> Option<Btf<'_>> {
        let base = self.vmlinux.btf()?;
        Btf::parse_split(self.blob.bytes(), &base, self.vmlinux.offsets())
    }

    /// The offsets of the module's own types ([`Btf::offsets`]).
    pub(crate) fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The module's functions' ids sorted by name.
    pub(crate) fn funcs(&self) -> &[u32] {
        &self.funcs
    }
}
