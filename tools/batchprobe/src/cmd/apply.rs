// SPDX-License-Identifier: GPL-2.0

//! `batchprobe apply` and `batchprobe import`: a file as one batch, in one
//! write. The sets it makes stay: this is the configuration that outlives
//! the command (`batchprobe rm` removes them).

use std::io::Read;
use std::path::{Path, PathBuf};

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

/// Runs `batchprobe apply`: each file one batch, in order.
pub fn apply(kernel: &Kernel, a: &ApplyArgs) -> Result<()> {
    let files: Vec<Option<&Path>> = if a.files.is_empty() {
        vec![None]
    } else {
        a.files.iter().map(|f| Some(f.as_path())).collect()
    };
    for file in files {
        let name = file.map_or("stdin".into(), |p| p.display().to_string());
        let text = read_input(file)?;
        if text.trim().is_empty() {
            return Err(Error::new(format!(
                "{name}: the batch is empty: nothing to apply"
            )));
        }
        kernel
            .apply(&text)
            .map_err(|e| Error::new(format!("{name}: {e}")))?;
    }
    Ok(())
}

/// The sets the probe lines of `files` name, in order, once each.
pub fn sets_named_in(files: &[PathBuf]) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for f in files {
        let text = read_input(Some(f))?;
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| import::head(l).is_ok_and(|h| h.is_some()))
            .collect();
        let sets =
            import::sets_of(lines).map_err(|e| Error::new(format!("{}: {e}", f.display())))?;
        for (s, _) in sets {
            if !names.contains(&s) {
                names.push(s);
            }
        }
    }
    Ok(names)
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
