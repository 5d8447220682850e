// SPDX-License-Identifier: GPL-2.0

//! `batchprobe completions SHELL` and the hidden `batchprobe man [--dir
//! DIR]` (what `make install` runs): both written by clap from the
//! command line's definition.

use crate::error::{Error, Result};
use crate::output::out;

/// A completion script for `shell`, on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "batchprobe", &mut buf);
    out(&String::from_utf8_lossy(&buf))
}

/// The man pages (see [`write_pages`]).
pub fn pages(dir: Option<&std::path::Path>) -> Result<()> {
    write_pages(dir).map_err(|e| Error::new(format!("man page: {e}")))
}

/// batchprobe(8) on stdout; or it and a page per subcommand
/// (batchprobe-count(8), ...) written into `dir`.
fn write_pages(dir: Option<&std::path::Path>) -> std::io::Result<()> {
    let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    cmd.build();
    let Some(dir) = dir else {
        return clap_mangen::Man::new(cmd)
            .section("8")
            .render(&mut std::io::stdout());
    };
    let subs: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| s.clone().name(format!("batchprobe-{}", s.get_name())))
        .collect();
    for page in std::iter::once(cmd).chain(subs) {
        let path = dir.join(format!("{}.8", page.get_name()));
        let mut f = std::fs::File::create(path)?;
        clap_mangen::Man::new(page).section("8").render(&mut f)?;
    }
    Ok(())
}
