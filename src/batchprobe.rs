// SPDX-License-Identifier: GPL-2.0

//! batchprobe: attach and detach thousands of kernel probes in batches.
//!
//! The crate root only wires the pieces together: the command language
//! ([`command`]), the debugfs interface and, in later stages, the probe
//! registry and its backends.

use kernel::c_str;
use kernel::prelude::*;

mod bindings;
pub mod command;
mod debugfs;

module! {
    type: BatchProbe,
    name: "batchprobe",
    author: "batchprobe developers",
    description: "Batch registration and teardown of kprobes, kretprobes and ftrace-direct calls",
    license: "GPL",
}

struct BatchProbe {
    _dir: debugfs::Dir,
}

impl kernel::Module for BatchProbe {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let dir = debugfs::Dir::new(c_str!("batchprobe"))?;
        pr_info!("loaded\n");
        Ok(BatchProbe { _dir: dir })
    }
}

impl Drop for BatchProbe {
    fn drop(&mut self) {
        pr_info!("unloaded\n");
    }
}
