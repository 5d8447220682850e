// SPDX-License-Identifier: GPL-2.0

//! What the engine reads from the kernel once and keeps until unload: the
//! core kernel's text symbols (for globs, direct calls and fprobes), its
//! BTF (for fetch arguments, whose names and types follow a function's
//! parameters) and the function prototypes it gives exit sets.
//!
//! All are in the registry's locked state: only a holder of the registry
//! lock fills them, and they go when the registry does, after every set
//! (unload order is field order). A reader keeps what it was handed: an
//! exit set holds the prototypes, a compiled fetch argument the BTF, as long
//! as it lives. The text symbols are the exception: their [`TextSlot`] is
//! the engine's too, which fills it right after load, without the registry
//! lock ([`text`]).

mod text;

use kernel::prelude::*;
use kernel::sync::Arc;

use crate::btf::VmlinuxBtf;
use crate::direct::btf::{self, Prototypes};
use crate::error::Failed;
use crate::ftrace::{CallSites, SiteSource};
use crate::kallsyms::TextTable;
use crate::set::Builder;
pub(crate) use text::TextSlot;

/// What a `create` reads from the caches (see [`Caches::for_create`]).
pub(crate) struct ForCreate {
    /// The kernel's text symbols, if the `create` walks them.
    text: Option<Arc<TextTable>>,
    /// Where ftrace calls each of them: the table, or the text symbols to
    /// make it from once the `create` asks about many.
    sites: SiteSource,
    /// The prototypes, for an exit set of direct calls.
    prototypes: Option<Arc<Prototypes>>,
}

impl ForCreate {
    /// Hands the set's builder what its backends read (the prototypes, the
    /// call sites, the text symbols), before its first target; returns the
    /// text symbols, for the walk.
    pub(crate) fn equip(self, b: &mut Builder<'_>) -> Option<Arc<TextTable>> {
        if let Some(p) = self.prototypes {
            b.use_prototypes(p);
        }
        b.use_sites(self.sites);
        if let Some(t) = &self.text {
            b.use_text(t.clone());
        }
        self.text
    }
}

/// The engine's caches, each filled on first use (the text symbols
/// maybe before: [`TextSlot`]).
pub(crate) struct Caches {
    text: Arc<TextSlot>,
    sites: Option<Arc<CallSites>>,
    btf: Option<Arc<VmlinuxBtf>>,
    prototypes: Option<Arc<Prototypes>>,
}

impl Caches {
    /// Empty caches, the text symbols to come in `text`.
    pub(crate) fn new(text: Arc<TextSlot>) -> Self {
        Self {
            text,
            sites: None,
            btf: None,
            prototypes: None,
        }
    }

    /// The kernel's text symbols: made after load, or on the first call
    /// (waiting for the walk under way, if one is).
    pub(crate) fn text(&mut self) -> Result<Arc<TextTable>> {
        self.text.get()
    }

    /// Keeps the call sites' table a `create` made
    /// ([`crate::set::Builder::made_sites`]), if there was none.
    pub(crate) fn keep_sites(&mut self, made: Option<Arc<CallSites>>) {
        if self.sites.is_none() {
            self.sites = made;
        }
    }

    /// The kernel's BTF, read on the first call (`ENOENT` on a kernel
    /// without BTF; a failed read is tried again next time).
    pub(crate) fn btf(&mut self) -> Result<Arc<VmlinuxBtf>> {
        if let Some(b) = &self.btf {
            return Ok(b.clone());
        }
        let b = Arc::new(VmlinuxBtf::load()?, GFP_KERNEL)?;
        Ok(self.btf.insert(b).clone())
    }

    /// The kernel's function prototypes for exit sets, made on the first
    /// call (`ENOENT` on a kernel without BTF; a failed read is tried again
    /// next time).
    pub(crate) fn prototypes(&mut self) -> Result<Arc<Prototypes>> {
        if let Some(p) = &self.prototypes {
            return Ok(p.clone());
        }
        let text = self.text()?;
        let p = Arc::new(Prototypes::new(self.btf()?, &text)?, GFP_KERNEL)?;
        Ok(self.prototypes.insert(p).clone())
    }

    /// What a `create` reads: the text symbols if it walks them (`walks`),
    /// and their call sites if it also has lines ftrace may serve
    /// (`ftrace`): the module's table, or the text symbols to make it from
    /// once the `create` has asked ftrace about enough functions one at a
    /// time ([`SiteSource`]); the prototypes if it makes an exit set of
    /// direct calls (`exit`).
    pub(crate) fn for_create(
        &mut self,
        walks: bool,
        ftrace: bool,
        exit: bool,
    ) -> Result<ForCreate, Failed> {
        let text = if walks { Some(self.text()?) } else { None };
        let sites = match (&self.sites, &text) {
            _ if !ftrace => SiteSource::Ask,
            (Some(s), Some(_)) => SiteSource::Ready(s.clone()),
            (None, Some(t)) => SiteSource::Pending {
                text: t.clone(),
                asked: 0,
            },
            (_, None) => SiteSource::Ask,
        };
        let prototypes = if exit {
            Some(self.prototypes().map_err(btf::unreadable)?)
        } else {
            None
        };
        Ok(ForCreate {
            text,
            sites,
            prototypes,
        })
    }
}
