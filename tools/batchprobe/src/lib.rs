// SPDX-License-Identifier: GPL-2.0

//! The `batchprobe` command, as a library: `main.rs` parses the command
//! line and calls [`run`]. Read top-down: the commands (`cmd`) use the
//! module's files (`kernel`) and what their sets own while they run
//! (`session`) and write (`output`); below them the pure parts the host tests call: the readers
//! of the module's files (`read`), the text a user reads (`render`) and
//! the kprobe_events importer (`import`), the errors (`error`).

pub mod cli;
pub mod cmd;
pub mod error;
pub mod import;
pub mod kernel;
pub mod output;
pub mod read;
pub mod render;
pub mod session;

pub use error::{Error, Result};

/// Runs one command line.
pub fn run(cli: cli::Cli) -> Result<()> {
    cmd::run(cli.command)
}
