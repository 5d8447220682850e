// SPDX-License-Identifier: GPL-2.0

//! The kernel's function prototypes, for the direct exit trampoline: the
//! BTF of `/sys/kernel/btf/vmlinux` ([`crate::btf`]) asked which functions
//! the trampoline can call ([`super::signature`] has the rule; this is the
//! kernel side), and a module's (`/sys/kernel/btf/MOD`) for its functions.

use kernel::prelude::*;
use kernel::sync::Arc;

use super::signature::{self, Refusal};
use crate::btf::{Btf, ModuleBtf, VmlinuxBtf};
use crate::error::{generic, Failed};
use crate::kallsyms::{ModuleText, TextTable};

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
        Ok(Self {
            vmlinux,
            twice: twice(hashes)?,
        })
    }

    /// The prototypes of the functions of the loaded module `text`, from
    /// its BTF (a module without BTF, or whose BTF does not parse, refuses
    /// every function, saying which); the names it has twice from a walk
    /// of its text. Fails only for want of memory, or a killed writer.
    pub(crate) fn module(&self, text: &ModuleText) -> Result<ModulePrototypes> {
        let btf = match ModuleBtf::load(self.vmlinux.clone(), text.name()) {
            Ok(b) => Ok(b),
            Err(e) if e == ENOENT => Err(Refusal::NoModuleBtf),
            Err(e) if e == ENOMEM || e == EINTR => return Err(e),
            Err(_) => Err(Refusal::Unreadable),
        };
        // Without BTF every function is refused: no names to walk.
        let mut hashes = KVVec::new();
        if btf.is_ok() {
            text.for_each_function(|name, _, _| -> Result<bool> {
                hashes.push(signature::name_hash(name.as_bytes()), GFP_KERNEL)?;
                Ok(true)
            })?;
        }
        Ok(ModulePrototypes {
            btf,
            twice: twice(hashes)?,
        })
    }

    /// Why the exit trampoline cannot call `name` (`None`: it can).
    pub(crate) fn refusal(&self, name: &[u8]) -> Option<Refusal> {
        let v = &self.vmlinux;
        check(v.btf(), (v.offsets(), v.funcs()), &self.twice, name).err()
    }

    /// How `name`'s return value carries an error (`create --errors`).
    pub(crate) fn error_return(&self, name: &[u8]) -> signature::ErrorReturn {
        let v = &self.vmlinux;
        error_return(v.btf(), (v.offsets(), v.funcs()), name)
    }
}

/// A module's function prototypes: its BTF, split on the kernel's, and
/// the names its text has more than once.
///
/// Read by a `create` whose exit set has functions of the module (and by a
/// switch to the exit trampoline), dropped once it is made.
pub(crate) struct ModulePrototypes {
    /// Its BTF, or why it has none to read.
    btf: Result<ModuleBtf, Refusal>,
    /// As [`Prototypes`]' `twice`, of the module's text.
    twice: KVVec<u64>,
}

impl ModulePrototypes {
    /// Why the exit trampoline cannot call the module's function `name`
    /// (its bare name, without `MOD:`; `None`: it can). Only the module's
    /// own functions are looked at: one whose record pahole folded into
    /// vmlinux's (the same name and prototype) is refused as having none,
    /// the safe side.
    pub(crate) fn refusal(&self, name: &[u8]) -> Option<Refusal> {
        match &self.btf {
            Ok(m) => check(m.btf(), (m.offsets(), m.funcs()), &self.twice, name).err(),
            Err(r) => Some(*r),
        }
    }

    /// How the module's function `name`'s return value carries an error.
    pub(crate) fn error_return(&self, name: &[u8]) -> signature::ErrorReturn {
        self.btf.as_ref().map_or(signature::ErrorReturn::No, |m| {
            error_return(m.btf(), (m.offsets(), m.funcs()), name)
        })
    }
}

/// Keeps, of `hashes` (every text symbol's [`signature::name_hash`]), one
/// of each that occurs more than once, sorted.
fn twice(mut hashes: KVVec<u64>) -> Result<KVVec<u64>> {
    let n = signature::duplicates(&mut hashes);
    let mut twice = KVVec::with_capacity(n, GFP_KERNEL)?;
    twice.extend_from_slice(hashes.get(..n).unwrap_or(&[]), GFP_KERNEL)?;
    Ok(twice)
}

/// The argument registers `name` needs by the prototypes of `btf` (its
/// type offsets and function index), or why the exit trampoline cannot
/// call it; `twice`: the names the text has more than once.
fn check(
    btf: Option<Btf<'_>>,
    (offsets, funcs): (&[u32], &[u32]),
    twice: &[u64],
    name: &[u8],
) -> Result<u32, Refusal> {
    let btf = btf.ok_or(Refusal::Unreadable)?;
    let regs = btf.classify(offsets, funcs, name)?;
    if twice.binary_search(&signature::name_hash(name)).is_ok() {
        return Err(Refusal::Ambiguous);
    }
    Ok(regs)
}

/// How `name`'s return value carries an error, by the prototypes of `btf`.
fn error_return(
    btf: Option<Btf<'_>>,
    (offsets, funcs): (&[u32], &[u32]),
    name: &[u8],
) -> signature::ErrorReturn {
    btf.map_or(signature::ErrorReturn::No, |btf| {
        btf.error_return(offsets, funcs, name)
    })
}
