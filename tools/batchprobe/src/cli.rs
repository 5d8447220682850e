// SPDX-License-Identifier: GPL-2.0

//! The command line: subcommands named as `funccount`, `funclatency`,
//! `trace`, bpftop and `perf probe` users would guess them. clap writes
//! the help, the man page and the shell completions from this.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Count, time and trace thousands of kernel functions at once, through
/// the batchprobe module.
///
/// Each command talks to the module through its files only
/// (/dev/batchprobe, or debugfs' control, and debugfs' sets, stats and
/// last_error; records from tracefs). The commands that make sets (count,
/// latency, trace) remove them when they end: after their duration, on
/// Ctrl-C, SIGTERM or SIGHUP. Run as root.
#[derive(Debug, Parser)]
#[command(
    name = "batchprobe",
    version,
    propagate_version = true,
    after_long_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Shown after `batchprobe --help` and in batchprobe(8).
const EXAMPLES: &str = "\
Examples:
  batchprobe status                        what this kernel and module offer
  batchprobe count 'vfs_*' -d 5            calls per vfs_ function for 5 s
  batchprobe count 'tcp_*' -i 1 --top 10   the 10 busiest each second
  batchprobe latency --errors 'vfs_*'      which are slow, which fail and how
  batchprobe trace 'p:io/open do_sys_openat2 name=+0($arg2):ustring'
  batchprobe trace --exit 'd:io/open do_sys_openat2 ret=$retval'
  batchprobe top                           every set's busiest functions, live
  batchprobe apply my.batch                a configuration that stays
  batchprobe import saved_kprobe_events     a kprobe_events file as one batch
  batchprobe ls; batchprobe stats SET; batchprobe rm SET";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count calls per function, as funccount does: an entry probe on
    /// every function the patterns match, counting only (no events).
    ///
    /// PATTERN is a function name, a glob (`vfs_*`, `*_sys_open*`) over
    /// the core kernel's functions, MOD:SYM for a module's function (one
    /// not loaded yet is waited for), or MOD:GLOB for a loaded module's
    /// functions the glob matches.
    /// Prints the functions called, most calls first, at the end, or
    /// every interval with -i (counts of that interval).
    Count(CountArgs),
    /// Time every call of the functions, and count their errors by errno,
    /// as funclatency does: an exit set (entry and exit trampolines) with
    /// a log2 histogram per function in the kernel.
    ///
    /// PATTERN is a function's name or a glob over the core kernel's
    /// functions, or MOD:SYM or MOD:GLOB for a loaded module's (held
    /// loaded until the command ends); functions with more than six
    /// register arguments are left out. Prints the slowest
    /// functions by p99, the histograms of the first few, and with
    /// --errors their error returns by errno. Durations are totals since
    /// the start.
    Latency(LatencyArgs),
    /// Make probes from lines in the kprobe_events language and print
    /// their records from tracefs until Ctrl-C.
    ///
    /// A LINE is what you would write to kprobe_events
    /// (`p:io/open do_sys_openat2 name=+0($arg2):ustring`, `r:io/ret
    /// vfs_read $retval`), or a `d:` line of batchprobe's (with --exit
    /// its records carry $retval and the call's duration). The group is
    /// the set; each set is created with an event for every probe and
    /// enabled; the records are read from a tracefs instance of this
    /// command's own.
    Trace(TraceArgs),
    /// A live view of every set's functions: calls per second, and p50
    /// and p99 where an exit set keeps histograms, refreshed every
    /// interval.
    Top(TopArgs),
    /// Write a batch file (or stdin) to the module in one write: all of
    /// it or nothing. On a refusal prints the module's last_error, with a
    /// caret under the word at fault, and exits with status 1. Several
    /// files are several batches, in order.
    ///
    /// The sets a batch makes stay until `batchprobe rm`: this is the
    /// command for a configuration that outlives the command.
    Apply(ApplyArgs),
    /// Apply a kprobe_events or dynamic_events file as one batch: its
    /// p:/r: lines as they are, f: (fprobe) lines as the p:/r: lines an
    /// fprobe serves, each group a set, created and enabled.
    Import(ImportArgs),
    /// List the sets: state, probes, refused glob members, hits.
    Ls(JsonArgs),
    /// Per-function statistics of one set or all: hits, misses, and where
    /// an exit set keeps them, durations and errors.
    Stats(StatsArgs),
    /// Remove sets (unregister, and wait for the teardown).
    Rm(RmArgs),
    /// What this kernel and module offer: loaded or not, version, the
    /// control path, lockdown, BTF, fprobes, direct calls; and what is
    /// missing, with why.
    Status(JsonArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell) on stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the batchprobe(8) man page (roff) on stdout, or write it and
    /// one page per subcommand (batchprobe-count(8), ...) into DIR.
    #[command(hide = true)]
    Man {
        /// Where to write every page.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct JsonArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// Functions: names, globs, MOD:SYM, MOD:GLOB.
    #[arg(required = true, value_name = "PATTERN")]
    pub patterns: Vec<String>,
    /// Stop after SECS seconds (default: at Ctrl-C).
    #[arg(short, long, value_name = "SECS")]
    pub duration: Option<f64>,
    /// Print the counts of each interval of SECS seconds.
    #[arg(short, long, value_name = "SECS")]
    pub interval: Option<f64>,
    /// Print only the N functions called most (0: all).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub top: usize,
    /// Print JSON (one object per interval) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// How `latency` sorts its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LatencySort {
    P99,
    Mean,
    Count,
    Errors,
}

#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// Functions: names or globs over the core kernel's functions.
    #[arg(required = true, value_name = "PATTERN")]
    pub patterns: Vec<String>,
    /// Also count error returns by errno (-4095..-1, or ERR_PTR, by the
    /// function's BTF return type).
    #[arg(short, long, conflicts_with = "pid")]
    pub errors: bool,
    /// Only the calls of process PID's threads (those running at the
    /// start): timed from their return records in a tracefs instance of
    /// this command's own, filtered on `common_pid`, not in the kernel's
    /// per-function histograms.
    #[arg(short, long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Stop after SECS seconds (default: at Ctrl-C).
    #[arg(short, long, value_name = "SECS")]
    pub duration: Option<f64>,
    /// Print the table every SECS seconds (totals since the start).
    #[arg(short, long, value_name = "SECS")]
    pub interval: Option<f64>,
    /// Sort by.
    #[arg(long, value_enum, default_value_t = LatencySort::P99)]
    pub sort: LatencySort,
    /// Print only the first N functions (0: all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Draw the histograms of the first N functions.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub hists: usize,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Probe lines, in the kprobe_events language.
    #[arg(required = true, value_name = "LINE")]
    pub lines: Vec<String>,
    /// Stop after SECS seconds (default: at Ctrl-C).
    #[arg(short, long, value_name = "SECS")]
    pub duration: Option<f64>,
    /// d: lines get the entry and exit trampoline: their records are
    /// written at return, with $retval and the call's duration.
    #[arg(long)]
    pub exit: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TopSort {
    Rate,
    Hits,
    P99,
}

#[derive(Debug, Args)]
pub struct TopArgs {
    /// Seconds between refreshes.
    #[arg(short, long, value_name = "SECS", default_value_t = 1.0)]
    pub interval: f64,
    /// Stop after N refreshes (default: at Ctrl-C).
    #[arg(short = 'n', long, value_name = "N")]
    pub iterations: Option<u64>,
    /// Sort by.
    #[arg(long, value_enum, default_value_t = TopSort::Rate)]
    pub sort: TopSort,
    /// Rows shown (0: all).
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub top: usize,
    /// Print each refresh below the last, without clearing the screen
    /// (the default when stdout is not a terminal).
    #[arg(short, long)]
    pub batch: bool,
    /// Print JSON (one object per refresh).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Batch files, each one batch, in order (none, or `-`: stdin); the
    /// first refused stops there.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A kprobe_events or dynamic_events file (`-`: stdin).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print the batch instead of applying it.
    #[arg(long)]
    pub print: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsSort {
    Hits,
    Name,
    P99,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// One set (default: every set).
    #[arg(value_name = "SET")]
    pub set: Option<String>,
    /// Sort by.
    #[arg(long, value_enum, default_value_t = StatsSort::Hits)]
    pub sort: StatsSort,
    /// Print only the first N functions (0: all).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub top: usize,
    /// Print JSON (the whole of the module's stats for the sets).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// The sets to remove.
    #[arg(value_name = "SET", required_unless_present_any = ["all", "batch"])]
    pub sets: Vec<String>,
    /// Remove every set.
    #[arg(long, conflicts_with_all = ["sets", "batch"])]
    pub all: bool,
    /// Remove the sets these batch files' probe lines name (what `apply`
    /// of the same files made; batchprobe.service's stop).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "sets")]
    pub batch: Vec<PathBuf>,
}
