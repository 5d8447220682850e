// SPDX-License-Identifier: GPL-2.0

//! The sets a command created, unregistered (and waited for) when it
//! drops them.

use crate::error::Result;
use crate::kernel::Kernel;
use crate::output::note;

/// Sets this command created.
pub struct OwnedSets<'k> {
    kernel: &'k Kernel,
    names: Vec<String>,
}

impl<'k> OwnedSets<'k> {
    /// Creates the sets `names` with `batch` (which stages, creates and
    /// enables them): from here on they are this owner's.
    pub fn create(kernel: &'k Kernel, names: Vec<String>, batch: &str) -> Result<Self> {
        kernel.apply(batch)?;
        Ok(OwnedSets { kernel, names })
    }

    /// Creates and enables one set `name`: a line `KIND:NAME/ PATTERN` for
    /// each pattern (each probe named after its function), then `create
    /// NAME OPTIONS` and `enable NAME`, in one batch.
    pub fn create_one(
        kernel: &'k Kernel,
        name: &str,
        kind: char,
        patterns: &[String],
        options: &str,
    ) -> Result<Self> {
        let mut batch: String = patterns
            .iter()
            .map(|p| format!("{kind}:{name}/ {p}\n"))
            .collect();
        batch.push_str(&format!("create {name} {options}\nenable {name}\n"));
        Self::create(kernel, vec![name.to_string()], &batch)
    }

    /// The sets' names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Those of the sets still live (all of them where `sets` cannot be
    /// read).
    fn live(&self) -> Vec<&String> {
        match self.kernel.sets() {
            Ok(s) => self
                .names
                .iter()
                .filter(|n| s.get(n).is_some_and(|l| l.is_live()))
                .collect(),
            Err(_) => self.names.iter().collect(),
        }
    }
}

impl Drop for OwnedSets<'_> {
    /// One batch unregisters every set still live; if the module refuses
    /// it (a set removed meanwhile by another command), each set is tried
    /// on its own, so that one does not keep the others.
    fn drop(&mut self) {
        let live = self.live();
        let batch: String = live
            .iter()
            .map(|n| format!("unregister {n} --sync\n"))
            .collect();
        if live.is_empty() || self.kernel.apply(&batch).is_ok() {
            return;
        }
        let mut left = Vec::new();
        for n in live {
            if let Err(e) = self.kernel.apply(&format!("unregister {n} --sync\n")) {
                left.push((n, e));
            }
        }
        for (n, e) in left {
            note(&format!(
                "batchprobe: removing set {n}: {e}\nbatchprobe: `batchprobe rm {n}` removes it"
            ));
        }
    }
}
