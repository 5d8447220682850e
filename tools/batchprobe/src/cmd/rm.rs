// SPDX-License-Identifier: GPL-2.0

//! `batchprobe rm`: unregister sets and wait for their teardown, in one
//! batch.

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
