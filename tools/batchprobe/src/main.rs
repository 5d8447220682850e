// SPDX-License-Identifier: GPL-2.0

//! `batchprobe`: see `batchprobe --help` and batchprobe(8).

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = batchprobe::cli::Cli::parse();
    match batchprobe::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if e.is_quiet() => std::process::ExitCode::SUCCESS,
        Err(e) => {
            batchprobe::output::note(&format!("batchprobe: {e}"));
            std::process::ExitCode::FAILURE
        }
    }
}
