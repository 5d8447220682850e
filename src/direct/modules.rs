// SPDX-License-Identifier: GPL-2.0

//! The modules a direct set calls into (`d:` lines on `MOD:SYM` and
//! `MOD:GLOB`): held loaded from the set's `create` until its direct calls
//! are detached ([`HeldModules`]; one whose functions the exit trampoline
//! all refuses is not).
//!
//! While the set is made, an exit set reads the prototypes (the BTF) of
//! the module whose functions it is adding, one module at a time (a walk
//! meets them module after module).

use kernel::prelude::*;

use super::btf::{ModulePrototypes, Prototypes};
use crate::kallsyms::{copy_name, HeldModules, ModuleText};

/// The modules a direct set holds loaded.
///
/// At most one entry per loaded module (a `*:GLOB` line's walk meets each
/// once): the kernel's count of modules bounds it.
pub(crate) struct Modules {
    held: HeldModules,
    /// The prototypes of the last module an exit set's functions came
    /// from, while the set is made ([`Modules::prototypes`]).
    current: Option<(KVec<u8>, ModulePrototypes)>,
}

impl Modules {
    pub(crate) const fn new() -> Self {
        Self {
            held: HeldModules::new(),
            current: None,
        }
    }

    /// Holds the loaded module called `name` (once): `ENOENT` when no
    /// live module has that name.
    pub(crate) fn hold(&mut self, name: &[u8]) -> Result {
        self.held.hold(name)
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
            self.current = Some((copy_name(name)?, p));
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
        if !self.held.holds(name) {
            return Err(ENOENT);
        }
        core.module(&ModuleText::find(name)?)
    }

    /// Whether the module called `name` is held.
    pub(crate) fn holds(&self, name: &[u8]) -> bool {
        self.held.holds(name)
    }

    /// Lets every module go: the set's direct calls are detached.
    pub(crate) fn release(&self) {
        self.held.release();
    }

    /// Calls `f` with the name of each module still held, in the order
    /// the set took them.
    pub(crate) fn for_each_name(&self, f: impl FnMut(&[u8])) {
        self.held.for_each_name(f);
    }
}
