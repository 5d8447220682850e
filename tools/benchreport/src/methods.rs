// SPDX-License-Identifier: GPL-2.0

//! The methods and phases the report knows, in the order its tables and
//! plots show them.

pub(crate) const METHODS: [&str; 5] = [
    "tracefs",
    "tracefs-noopt",
    "batchprobe-one-by-one",
    "batchprobe",
    "batchprobe-noopt",
];
pub(crate) const PHASES: [&str; 8] = [
    "register",
    "enable",
    "disable",
    "disarm",
    "unregister_call",
    "unregister_call_wall",
    "teardown",
    "unregister_complete",
];
pub(crate) const PLOTTED: [&str; 4] = ["register", "enable", "disable", "unregister_complete"];
/// Entry + exit on the same N functions (`exit_probes` in selftests/bench_lib.sh).
pub(crate) const EXIT_METHODS: [&str; 5] = [
    "exit",
    "exit-api",
    "fprobe-exit",
    "entry-kretprobe",
    "exit-ops-per-function",
];
pub(crate) const EXIT_PHASES: [&str; 2] = ["attach", "detach"];
pub(crate) const DIRECT_METHODS: [&str; 3] = ["direct-ops-per-function", "fprobe", "direct"];
pub(crate) const DIRECT_PHASES: [&str; 6] = [
    "register",
    "attach",
    "unregister_call",
    "detach",
    "teardown",
    "unregister_complete",
];
pub(crate) const DIRECT_PLOTTED: [&str; 2] = ["attach", "detach"];
pub(crate) const ENTRY_METHODS: [&str; 3] = ["entry-tracefs", "entry-kprobe", "entry-auto"];
/// The BPF peers, entry only (`peers` in selftests/bench_lib.sh):
/// `peer-bp-fprobe-events` is `peer-bp-fprobe` with an event per line
/// (measured since 2026-12-07; last, so that the plots' older series keep
/// their colours).
pub(crate) const PEER_ENTRY_METHODS: [&str; 4] = [
    "peer-bp-fprobe",
    "peer-bp-direct",
    "peer-kprobe-multi",
    "peer-bp-fprobe-events",
];
/// The batchprobe peers that `peer_round` (selftests/bench_lib.sh) also
/// measures cold, after `insmod` (`METHOD-cold`), and loaded earlier
/// (`METHOD-loaded`).
pub(crate) const PEER_COLD: [&str; 3] = ["peer-bp-fprobe", "peer-bp-direct", "peer-bp-exit"];
/// The peers' phases plotted per function.
pub(crate) const PEER_PLOTTED: [&str; 2] = ["attach", "detach"];
/// The entry + exit peers plotted per function: batchprobe's exit set, the
/// kprobe_multi pair, and one tracing_multi link where the kernel has it.
pub(crate) const PEER_EXIT_PLOTTED_METHODS: [&str; 3] = [
    "peer-bp-exit",
    "peer-kprobe-multi-ret",
    "peer-fsession-multi",
];
/// The entry + exit peers of the side-by-side rows, in their labels' order.
pub(crate) const PEER_EXIT_SIDE_BY_SIDE: [&str; 4] = [
    "peer-bp-exit",
    "peer-kprobe-multi-ret",
    "peer-fentry-fexit",
    "peer-fentry-fexit-multi",
];
/// The BPF peers, entry + exit.
pub(crate) const PEER_EXIT_METHODS: [&str; 7] = [
    "peer-bp-exit",
    "peer-bp-exit-rec",
    "peer-kprobe-multi-ret",
    "peer-fentry-fexit",
    "peer-fentry-fexit-multi",
    "peer-fsession-multi",
    "peer-fsession-rb",
];
pub(crate) const PEER_PHASES: [&str; 4] = ["attach", "detach", "load", "link"];
/// A module's functions (`module_peers` in selftests/bench_lib.sh).
pub(crate) const MOD_METHODS: [&str; 4] = [
    "mod-bp-fprobe",
    "mod-kprobe-multi",
    "mod-bp-direct",
    "mod-bp-int3",
];
/// Per call on `__task_pid_nr_ns`, each way, against no probe.
pub(crate) const PEER_PER_CALL: [&str; 17] = [
    "peer-no-probe",
    "peer-bp-direct",
    "peer-bp-fprobe",
    "peer-bp-exit",
    "peer-bp-exit-hist",
    "peer-bp-exit-rec",
    "peer-kernel-fexit-event",
    "peer-kprobe-multi",
    "peer-kprobe-multi-ret",
    "peer-fentry",
    "peer-fentry-fexit",
    "peer-fentry-fexit-hist",
    "peer-fentry-fexit-rb",
    "peer-fentry-multi",
    "peer-fentry-fexit-multi",
    "peer-fsession-multi",
    "peer-fsession-rb",
];
pub(crate) const ENTRY_PHASES: [&str; 6] = [
    "register",
    "enable",
    "disable",
    "disarm",
    "teardown",
    "unregister_complete",
];
