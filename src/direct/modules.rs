// SPDX-License-Identifier: GPL-2.0

//! The modules a direct set calls into (`d:` lines on `MOD:SYM` and
//! `MOD:GLOB`): each is held loaded from the set's `create` until its
//! direct calls are detached, as a BPF trampoline on a module's function
//! holds its module (`bpf_trampoline_module_get()`): ftrace drops a
//! module's records at its unload, and the set's ops would keep a filter
//! entry on text the module no longer has. `rmmod` says the module is in
//! use meanwhile; `sets` and `stats` name the modules held. A module is
//! held only once one of its functions is taken: one whose functions the
//! exit trampoline all refuses is not.
//!
//! While the set is made, an exit set reads the prototypes (the BTF) of
//! the module whose functions it is adding, one module at a time (a walk
//! meets them module after module).

use kernel::prelude::*;

use super::btf::{ModulePrototypes, Prototypes};
use crate::kallsyms::{ModuleHold, ModuleText};

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
fn copy(name: &[u8]) -> Result<KVec<u8>> {
    let mut v = KVec::with_capacity(name.len(), GFP_KERNEL)?;
    v.extend_from_slice(name, GFP_KERNEL)?;
    Ok(v)
}

/// The modules a direct set holds loaded.
///
/// At most one entry per loaded module (a `*:GLOB` line's walk meets each
/// once): the kernel's count of modules bounds it.
pub(crate) struct Modules {
    held: KVec<Held>,
    /// The prototypes of the last module an exit set's functions came
    /// from, while the set is made ([`Modules::prototypes`]).
    current: Option<(KVec<u8>, ModulePrototypes)>,
}

impl Modules {
    pub(crate) const fn new() -> Self {
        Self {
            held: KVec::new(),
            current: None,
        }
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

    /// The prototypes of the loaded module `name`, read unless they are
    /// the last ones read (`core`: the kernel's, which a module's BTF is
    /// split on). `ENOENT`: the module is not loaded.
    pub(crate) fn prototypes(
        &mut self,
        name: &[u8],
        core: &Prototypes,
    ) -> Result<&ModulePrototypes> {
        if !matches!(&self.current, Some((m, _)) if m.as_slice() == name) {
            // One module's at a time: the last ones go first.
            self.current = None;
            let p = core.module(&ModuleText::find(name)?)?;
            self.current = Some((copy(name)?, p));
        }
        self.current.as_ref().map(|(_, p)| p).ok_or(EINVAL)
    }

    /// The set is made: the prototypes go, the modules stay held.
    pub(crate) fn built(&mut self) {
        self.current = None;
    }

    /// The prototypes of the held module called `name`, read now (a
    /// switch to the exit trampoline); `ENOENT` if the set does not hold
    /// it.
    pub(crate) fn read_prototypes(
        &self,
        name: &[u8],
        core: &Prototypes,
    ) -> Result<ModulePrototypes> {
        if !self
            .held
            .iter()
            .any(|h| h.name.as_slice() == name && h.hold.is_held())
        {
            return Err(ENOENT);
        }
        core.module(&ModuleText::find(name)?)
    }

    /// Lets every module go: the set's direct calls are detached.
    pub(crate) fn release(&self) {
        for h in self.held.iter() {
            h.hold.release();
        }
    }

    /// Calls `f` with the name of each module still held, in the order
    /// the set took them.
    pub(crate) fn for_each_name(&self, mut f: impl FnMut(&[u8])) {
        for h in self.held.iter().filter(|h| h.hold.is_held()) {
            f(&h.name);
        }
    }
}
