// SPDX-License-Identifier: GPL-2.0

//! The modules a set's backend holds loaded because it attached to their
//! text through ftrace: direct calls (`d:` lines on `MOD:SYM` and
//! `MOD:GLOB`) and fprobes (`p:`/`r:` lines' `MOD:GLOB` members). Each is
//! held from the set's `create` until the backend is detached, as a BPF
//! trampoline holds its module (`bpf_trampoline_module_get()`) and a
//! kprobe_multi link the modules of its addresses (`get_modules_for_addrs()`):
//! ftrace drops a module's records at its unload, and the set's ops would
//! keep a filter entry on text the module no longer has. `rmmod` says the
//! module is in use meanwhile; `sets` and `stats` name the modules held. A
//! module is held only once one of its functions is taken.

use kernel::prelude::*;

use super::{ModuleHold, ModuleText};

/// Why a module's function is refused when its module went between the
/// walk that found it and the set's hold (`ENOENT`).
pub(crate) const GONE: &str = "its module is not loaded (it unloaded while the set was made)";

/// A module held by the set.
struct Held {
    /// Its name, copied: a listing reads it whether or not the module is
    /// still held.
    name: KVec<u8>,
    hold: ModuleHold,
}

/// A module's name, copied.
pub(crate) fn copy(name: &[u8]) -> Result<KVec<u8>> {
    let mut v = KVec::with_capacity(name.len(), GFP_KERNEL)?;
    v.extend_from_slice(name, GFP_KERNEL)?;
    Ok(v)
}

/// The modules one backend of a set holds loaded.
///
/// At most one entry per loaded module (a `*:GLOB` line's walk meets each
/// once): the kernel's count of modules bounds it.
pub(crate) struct HeldModules {
    held: KVec<Held>,
}

impl HeldModules {
    pub(crate) const fn new() -> Self {
        Self { held: KVec::new() }
    }

    /// Holds the loaded module called `name` (once): `ENOENT` when no
    /// live module has that name.
    pub(crate) fn hold(&mut self, name: &[u8]) -> Result {
        // Members come module after module: the last one first.
        if self.held.iter().rev().any(|h| h.name.as_slice() == name) {
            return Ok(());
        }
        let text = ModuleText::find(name)?;
        let name = copy(name)?;
        self.held.push(
            Held {
                name,
                hold: ModuleHold::new(text),
            },
            GFP_KERNEL,
        )?;
        Ok(())
    }

    /// Whether the module called `name` is held (not released yet).
    pub(crate) fn holds(&self, name: &[u8]) -> bool {
        self.held
            .iter()
            .any(|h| h.name.as_slice() == name && h.hold.is_held())
    }

    /// Lets every module go: the backend is detached from their text.
    pub(crate) fn release(&self) {
        for h in self.held.iter() {
            h.hold.release();
        }
    }

    /// Calls `f` with the name of each module still held, in the order
    /// the backend took them.
    pub(crate) fn for_each_name(&self, mut f: impl FnMut(&[u8])) {
        for h in self.held.iter().filter(|h| h.hold.is_held()) {
            f(&h.name);
        }
    }
}
