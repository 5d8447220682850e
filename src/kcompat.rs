// SPDX-License-Identifier: GPL-2.0

//! What differs between the kernels batchprobe builds for, on the Rust side:
//! the one file with `#[cfg(bp_*)]` (the C side's is `rust/kcompat.h`).
//!
//! `scripts/kcompat.mk` reads the tree being built against and passes
//! `--cfg bp_fprobe_fgraph` and `--cfg bp_rude_noop` where they hold. Code
//! that can be written the same way on every kernel is, elsewhere; what
//! cannot is a constant or a small function here.

use kernel::ffi::c_int;

use crate::bindings;
use crate::retpool::Machine;

/// The registers an fprobe handler gets: `pt_regs` through 6.13, the
/// opaque `ftrace_regs` once fprobe runs on fgraph. Read them through
/// `bp_fprobe_arg0` and `bp_fprobe_pt_regs` only.
pub(crate) type FprobeRegs = bindings::bp_fprobe_regs;

/// `kprobe_events`' fetch-argument grammar is 7.3's (`scripts/kcompat.mk`),
/// else 6.12's: see `crate::events::program`'s dialect.
pub(crate) const FETCHARGS_7_3: bool = cfg!(bp_fetchargs_7_3);

/// The kernel's probe events read BTF (`CONFIG_PROBE_EVENTS_BTF_ARGS`, from
/// the tree's own `rustc_cfg`): a probe at a function names and types its
/// arguments from the function's prototype, and so does batchprobe.
pub(crate) const PROBE_EVENTS_BTF_ARGS: bool = cfg!(CONFIG_PROBE_EVENTS_BTF_ARGS);

/// fprobe runs on the function-graph tracer (6.14 on). Then every fprobe
/// with an exit handler shares one `fgraph_ops`, entry-only ones one
/// `ftrace_ops`; there is no per-fprobe return-instance pool (so `rN:`
/// means nothing to an fprobe), recursion refusals are not counted in
/// `nmissed`, and `unregister_fprobe` waits one plain RCU grace period,
/// which `rcu_expedite_gp()` shortens.
pub(crate) const FPROBE_FGRAPH: bool = cfg!(bp_fprobe_fgraph);

/// How many of batchprobe's sets may hold return fprobes at once, or
/// `None` for no limit.
///
/// On fgraph, each call reserves one header word (plus the fprobe's entry
/// data, 0 words for batchprobe) per return fprobe on the function in the
/// task's shadow stack, and a reservation past `FGRAPH_MAX_DATA_SIZE`
/// (32 words, `kernel/trace/fgraph.c`) fails for all of them: every return
/// fprobe on that function, ours and others', then misses every return.
/// A set has at most one return fprobe, so capping our sets caps our words
/// on any function; 24 leaves 8 to the kernel's other fprobe users (BPF
/// `kprobe_multi` return links, fprobe events). Through 6.13 each fprobe
/// has its own rethook pool and there is no such limit.
pub(crate) const RETURN_FPROBE_SETS: Option<usize> = if FPROBE_FGRAPH { Some(24) } else { None };

/// `fp` with room for `instances` concurrent returns (its rethook pool),
/// where an fprobe has such a pool; as it is on fgraph, which has none.
pub(crate) fn fprobe_with_instances(fp: bindings::fprobe, instances: c_int) -> bindings::fprobe {
    #[cfg(not(bp_fprobe_fgraph))]
    {
        bindings::fprobe {
            nr_maxactive: instances,
            ..fp
        }
    }
    #[cfg(bp_fprobe_fgraph)]
    {
        let _ = instances;
        fp
    }
}

/// The bytes a set's return fprobe keeps for `instances` concurrent
/// returns on `m` (see [`crate::retpool`]).
///
/// Through 6.13: its own `rethook` of `instances` nodes, allocated by
/// `register_fprobe_ips` and freed by `unregister_fprobe`. A node is a
/// `struct fprobe_rethook_node` (private to `kernel/trace/fprobe.c`: a
/// `rethook_node`, then `entry_ip` and `entry_parent_ip`, then the
/// fprobe's entry data, none for batchprobe).
///
/// On fgraph: nothing. Returns ride each task's fgraph shadow stack, which
/// the kernel allocates once per task for every function-graph user, not
/// per fprobe, and which exists from the first return fprobe on (the
/// [`FgraphAnchor`](crate::fprobe) holds one until unload anyway).
pub(crate) fn fprobe_return_pool_bytes(instances: usize, m: Machine) -> usize {
    #[cfg(not(bp_fprobe_fgraph))]
    {
        let node = core::mem::size_of::<bindings::rethook_node>()
            + 2 * core::mem::size_of::<kernel::ffi::c_ulong>();
        let head = core::mem::size_of::<bindings::rethook>();
        crate::retpool::rethook_bytes(instances, node, head, m)
    }
    #[cfg(bp_fprobe_fgraph)]
    {
        let _ = (instances, m);
        0
    }
}

/// Whether `synchronize_rcu_tasks_rude()` waits at all. It returns at once
/// on an architecture that wants no instrumentation in its entry code
/// (`ARCH_WANTS_NO_INSTR`, x86) unless `FORCE_TASKS_RUDE_RCU`, on kernels
/// that have that shortcut (`bp_rude_noop`: 7.3, not 6.12). Where it does
/// not wait, its calls are not grace periods and are not counted.
pub(crate) const RUDE_RCU_WAITS: bool = !cfg!(all(
    bp_rude_noop,
    CONFIG_ARCH_WANTS_NO_INSTR,
    not(CONFIG_FORCE_TASKS_RUDE_RCU)
));
