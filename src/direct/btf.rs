// SPDX-License-Identifier: GPL-2.0

//! The kernel's function prototypes, for the direct exit trampoline: the
//! BTF of `/sys/kernel/btf/vmlinux` ([`crate::btf`]) asked which functions
//! the trampoline can call ([`super::signature`] has the rule; this is the
//! kernel side).

use kernel::prelude::*;
use kernel::sync::Arc;

use super::signature::{self, Refusal};
use crate::btf::VmlinuxBtf;
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

/// The vmlinux BTF, and the names the kernel's text has more than once.
///
/// Made on the first exit set and kept until the module goes, in the
/// engine's caches; exit sets hold it shared.
pub(crate) struct Prototypes {
    vmlinux: Arc<VmlinuxBtf>,
    /// The [`signature::name_hash`]es of the names the kernel's text has
    /// more than once, sorted.
    twice: KVVec<u64>,
}

impl Prototypes {
    /// The prototypes of `vmlinux`; the names the kernel's text has twice
    /// come from the module's table of text symbols, `text`: core-kernel
    /// text only, so an `__init` function that shares a name with a
    /// function of the running kernel does not count. pahole 1.25 and
    /// later leave a name's prototypes out of BTF when they differ
    /// (Debian's 7.3 image: pahole 1.30); the kernels we build with 1.24
    /// have no such pair (their System.map, 2026-12-05).
    pub(crate) fn new(vmlinux: Arc<VmlinuxBtf>, text: &TextTable) -> Result<Self> {
        let mut hashes = KVVec::new();
        text.for_each(|t| -> Result<bool> {
            hashes.push(signature::name_hash(t.name.as_bytes()), GFP_KERNEL)?;
            Ok(true)
        })?;
        let n = signature::duplicates(&mut hashes);
        let mut twice = KVVec::with_capacity(n, GFP_KERNEL)?;
        twice.extend_from_slice(hashes.get(..n).unwrap_or(&[]), GFP_KERNEL)?;
        Ok(Self { vmlinux, twice })
    }

    /// Why the exit trampoline cannot call `name` (`None`: it can).
    pub(crate) fn refusal(&self, name: &[u8]) -> Option<Refusal> {
        self.check(name).err()
    }

    /// How `name`'s return value carries an error (`create --errors`).
    pub(crate) fn error_return(&self, name: &[u8]) -> signature::ErrorReturn {
        let v = &self.vmlinux;
        v.btf().map_or(signature::ErrorReturn::No, |btf| {
            btf.error_return(v.offsets(), v.funcs(), name)
        })
    }

    /// The argument registers `name` needs, or why the exit trampoline
    /// cannot call it.
    fn check(&self, name: &[u8]) -> Result<u32, Refusal> {
        let v = &self.vmlinux;
        let btf = v.btf().ok_or(Refusal::Unreadable)?;
        let regs = btf.classify(v.offsets(), v.funcs(), name)?;
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
