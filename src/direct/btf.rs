// SPDX-License-Identifier: GPL-2.0

//! The kernel's function prototypes, for the direct exit trampoline: the
//! raw BTF of `/sys/kernel/btf/vmlinux` read into memory, indexed, and
//! asked which functions the trampoline can call ([`super::signature`]
//! has the rule and the parsing; this is the kernel side).

use kernel::prelude::*;

use super::signature::{self, Btf, Refusal};
use crate::bindings;
use crate::error::{generic, Failed};
use crate::kallsyms::TextTable;

/// A create's failure to read the prototypes an exit set needs.
pub(crate) fn unreadable(e: Error) -> Failed {
    Failed::new(
        e,
        format_args!(
            "the exit trampoline needs the kernel's BTF \
             (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): {}",
            generic(e)
        ),
    )
}

/// The vmlinux BTF, with its type offsets and its functions sorted by name.
///
/// Read on first use and kept until the module goes, in the engine's
/// caches: the kernel's BTF does not change, and reading and indexing it
/// costs more than a small set's whole attach. Exit sets hold it shared.
///
/// # Invariants
///
/// `raw` points to `len` bytes that `bp_btf_vmlinux_read` vmalloc'ed,
/// owned by this value and never written.
pub(crate) struct Prototypes {
    raw: *mut u8,
    len: usize,
    offsets: KVVec<u32>,
    funcs: KVVec<u32>,
    /// The [`signature::name_hash`]es of the names the kernel's text has
    /// more than once, sorted.
    twice: KVVec<u64>,
}

// SAFETY: The buffer is owned and only read.
unsafe impl Send for Prototypes {}
// SAFETY: See `Send`.
unsafe impl Sync for Prototypes {}

impl Prototypes {
    /// Reads and indexes the kernel's BTF (a few MiB, a few ms): `ENOENT`
    /// when the kernel has none (`CONFIG_DEBUG_INFO_BTF` off), `EINVAL`
    /// when it does not parse. The names the kernel's text has twice come
    /// from the module's table of text symbols, `text`.
    pub(crate) fn load(text: &TextTable) -> Result<Self> {
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
            twice: KVVec::new(),
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
        // The names the kernel's text has twice.
        let mut hashes = KVVec::new();
        text.for_each(|t| -> Result<bool> {
            hashes.push(signature::name_hash(t.name.as_bytes()), GFP_KERNEL)?;
            Ok(true)
        })?;
        let n = signature::duplicates(&mut hashes);
        let mut twice = KVVec::with_capacity(n, GFP_KERNEL)?;
        twice.extend_from_slice(hashes.get(..n).unwrap_or(&[]), GFP_KERNEL)?;
        me.twice = twice;
        Ok(me)
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: By the type invariant `raw` holds `len` readable bytes.
        unsafe { core::slice::from_raw_parts(self.raw, self.len) }
    }

    fn btf(&self) -> Option<Btf<'_>> {
        Btf::parse(self.bytes())
    }

    /// Why the exit trampoline cannot call `name` (`None`: it can).
    pub(crate) fn refusal(&self, name: &[u8]) -> Option<Refusal> {
        self.check(name).err()
    }

    /// The argument registers `name` needs, or why the exit trampoline
    /// cannot call it.
    fn check(&self, name: &[u8]) -> Result<u32, Refusal> {
        let btf = self.btf().ok_or(Refusal::Unreadable)?;
        let regs = btf.classify(&self.offsets, &self.funcs, name)?;
        if self
            .twice
            .binary_search(&signature::name_hash(name))
            .is_ok()
        {
            return Err(Refusal::Ambiguous);
        }
        Ok(regs)
    }
}

impl Drop for Prototypes {
    fn drop(&mut self) {
        // SAFETY: By the type invariant `raw` came from vmalloc and is ours.
        unsafe { bindings::bp_vfree(self.raw.cast()) };
    }
}
