// SPDX-License-Identifier: GPL-2.0

//! `batchprobe rm`: unregister sets and wait for their teardown, in one
//! batch: the sets named, every live set (`--all`), or the live sets that
//! batch files' probe lines name (`--batch`).

use crate::cli::RmArgs;
use crate::error::{Error, Result};
use crate::kernel::Kernel;

/// Runs `batchprobe rm`.
pub fn run(kernel: &Kernel, a: &RmArgs) -> Result<()> {
    let names: Vec<String> = if a.all {
        kernel
            .sets()?
            .sets
            .into_iter()
            .filter(|s| s.is_live())
            .map(|s| s.name)
            .collect()
    } else if !a.batch.is_empty() {
        let live = kernel.sets()?;
        super::apply::sets_named_in(&a.batch)?
            .into_iter()
            .filter(|n| live.get(n).is_some_and(|s| s.is_live()))
            .collect()
    } else {
        a.sets.clone()
    };
    if names.is_empty() {
        return Ok(());
    }
    if let Some(bad) = names
        .iter()
        .find(|n| n.is_empty() || n.contains(char::is_whitespace))
    {
        return Err(Error::new(format!("`{bad}`: not a set's name")));
    }
    let batch: String = names
        .iter()
        .map(|n| format!("unregister {n} --sync\n"))
        .collect();
    kernel.apply(&batch)
}
