// SPDX-License-Identifier: GPL-2.0

//! `batchprobe apply` and `batchprobe import`: a file as one batch, in one
//! write. The sets it makes stay: this is the configuration that outlives
//! the command (`batchprobe rm` removes them).

use std::io::Read;
use std::path::Path;

use crate::cli::{ApplyArgs, ImportArgs};
use crate::error::{Error, Result};
use crate::import;
use crate::kernel::Kernel;
use crate::output::out;

/// The text of FILE, or of stdin for `-` (or none).
fn read_input(file: Option<&Path>) -> Result<String> {
    let mut text = String::new();
    match file {
        None => std::io::stdin().read_to_string(&mut text),
        Some(p) if p == Path::new("-") => std::io::stdin().read_to_string(&mut text),
        Some(p) => std::fs::File::open(p).and_then(|mut f| f.read_to_string(&mut text)),
    }
    .map_err(|e| {
        Error::new(format!(
            "{}: {e}",
            file.map_or("stdin".into(), |p| p.display().to_string())
        ))
    })?;
    Ok(text)
}

/// Runs `batchprobe apply`.
pub fn apply(kernel: &Kernel, a: &ApplyArgs) -> Result<()> {
    let text = read_input(a.file.as_deref())?;
    if text.trim().is_empty() {
        return Err(Error::new("the batch is empty: nothing to apply"));
    }
    kernel.apply(&text)
}

/// Runs `batchprobe import`.
pub fn import(kernel: &Kernel, a: &ImportArgs) -> Result<()> {
    let text = read_input(Some(&a.file))?;
    let batch =
        import::to_batch(&text).map_err(|e| Error::new(format!("{}: {e}", a.file.display())))?;
    if a.print {
        return out(&batch);
    }
    kernel.apply(&batch)
}
