// SPDX-License-Identifier: GPL-2.0

//! What a set's return probes make the kernel allocate (src/retpool.rs),
//! against a step-by-step model of lib/objpool.c (6.12 and 7.3 alike).

use batchprobe_host_tests::retpool::*;
use proptest::prelude::*;

const PAGE: usize = 4096;
/// `sizeof(struct kretprobe_instance)` on x86-64 with
/// CONFIG_KRETPROBE_ON_RETHOOK: a `rethook_node` (rcu_head 16, llist 8,
/// rethook 8, ret_addr 8, frame 8).
const KRETPROBE_INSTANCE: usize = 48;
/// 6.12's `struct fprobe_rethook_node`: the node, entry_ip, entry_parent_ip.
const FPROBE_NODE: usize = 64;
/// `sizeof(struct rethook)`: data, handler, objpool_head (56), rcu_head.
const RETHOOK: usize = 88;
const MIB: usize = 1 << 20;

fn m(cpus: usize) -> Machine {
    Machine { cpus, page: PAGE }
}

/// lib/objpool.c, step by step: objpool_init's capacity, then
/// objpool_init_percpu_slots' loop over the possible CPUs, each slot one
/// __vmalloc_node (whole pages), then the cpu_slots array.
fn objpool_model(nr_objs: usize, object_size: usize, cpus: usize) -> usize {
    if nr_objs == 0 {
        return 0;
    }
    let obj_size = object_size.div_ceil(8) * 8;
    let capacity = nr_objs.next_power_of_two();
    let mut total = 0;
    for cpu_count in 0..cpus {
        let mut nodes = nr_objs / cpus;
        if cpu_count < nr_objs % cpus {
            nodes += 1;
        }
        // struct_size(slot, entries, capacity) + obj_size * nodes
        let size = 16 + 8 * capacity + obj_size * nodes;
        total += size.div_ceil(PAGE) * PAGE;
    }
    total + cpus * 8
}

#[test]
fn kretprobe_default_is_a_page_per_possible_cpu() {
    // max(10, 2 × 2) = 10 instances: 16 pointers and 5 instances per CPU,
    // 384 bytes, one page each.
    assert_eq!(default_instances(2), 10);
    assert_eq!(default_instances(256), 512);
    assert_eq!(
        kretprobe_bytes(0, KRETPROBE_INSTANCE, RETHOOK, m(2)),
        RETHOOK + 2 * PAGE + 2 * 8
    );
    // 256 CPUs: 512 pointers (4 KiB) and 2 instances per CPU: two pages
    // each, 2 MiB per kretprobe.
    assert_eq!(
        kretprobe_bytes(0, KRETPROBE_INSTANCE, RETHOOK, m(256)),
        RETHOOK + 256 * 2 * PAGE + 256 * 8
    );
}

#[test]
fn kretprobe_maxactive_sizes_the_ring() {
    // r4096: 4096 pointers (32 KiB) and 2048 instances (96 KiB) per CPU
    // on 2 CPUs: 33 pages each.
    assert_eq!(
        kretprobe_bytes(4096, KRETPROBE_INSTANCE, RETHOOK, m(2)),
        RETHOOK + 2 * 33 * PAGE + 2 * 8
    );
    // 4097 would round the ring up to 8192 pointers: 8 pages more per CPU.
    assert_eq!(
        kretprobe_bytes(4097, KRETPROBE_INSTANCE, RETHOOK, m(2)),
        RETHOOK + 2 * 41 * PAGE + 2 * 8
    );
}

/// The review's figures (2026-12-01, item 5) for `r:R/ *` on ~15,000
/// functions as one return fprobe (6.12): ~14 MB on 2 CPUs, ~1.1 GiB on
/// 64, ~16 GiB on 256.
#[test]
fn fprobe_pool_for_fifteen_thousand_functions() {
    let pool = |cpus| {
        rethook_bytes(
            fprobe_instances(0, 15_000, cpus),
            FPROBE_NODE,
            RETHOOK,
            m(cpus),
        )
    };
    let (two, sixty_four, big) = (pool(2), pool(64), pool(256));
    assert!((13 * MIB..16 * MIB).contains(&two), "{two}");
    assert!(
        (1000 * MIB..1300 * MIB).contains(&sixty_four),
        "{sixty_four}"
    );
    assert!((15 * 1024 * MIB..18 * 1024 * MIB).contains(&big), "{big}");
}

/// The default cap lets a 2-CPU machine keep `r:` on every function
/// (one return fprobe), and the 64 `r4096:` kretprobes that the instance
/// cap (262,144) allows: there, on 2 CPUs, the instance cap binds first
/// (test_kretprobe_cap.sh). On 64 CPUs the same return fprobe is refused.
#[test]
fn default_cap() {
    let cap = DEFAULT_CAP_KIB * 1024;
    assert_eq!(cap, 256 * MIB);
    let fprobe = |cpus| {
        rethook_bytes(
            fprobe_instances(0, 15_000, cpus),
            FPROBE_NODE,
            RETHOOK,
            m(cpus),
        )
    };
    assert!(fits(0, fprobe(2), cap));
    assert!(!fits(0, fprobe(64), cap));
    let r4096 = kretprobe_bytes(4096, KRETPROBE_INSTANCE, RETHOOK, m(2));
    assert!(fits(0, 64 * r4096, cap));
    // 15,000 default kretprobes on 2 CPUs (~8 KiB each) fit too.
    let r = kretprobe_bytes(0, KRETPROBE_INSTANCE, RETHOOK, m(2));
    assert!(fits(0, 15_000 * r, cap));
}

#[test]
fn fprobe_instances_clip_at_objpools_limit() {
    assert_eq!(fprobe_instances(7, 3, 2), 37);
    assert_eq!(fprobe_instances(0, 1 << 30, 2), OBJPOOL_MAX);
    assert_eq!(
        fprobe_instances(usize::MAX, usize::MAX, usize::MAX),
        OBJPOOL_MAX
    );
}

#[test]
fn nothing_costs_nothing() {
    assert_eq!(objpool_bytes(0, 64, m(4)), 0);
    assert_eq!(rethook_bytes(0, 64, RETHOOK, m(4)), 0);
    assert!(fits(usize::MAX, 0, 0));
    assert!(!fits(1, 1, 1));
    assert!(fits(1, 1, 2));
}

#[test]
fn saturates_instead_of_overflowing() {
    let huge = objpool_bytes(usize::MAX, usize::MAX, m(usize::MAX));
    assert_eq!(huge, usize::MAX);
    assert!(!fits(0, huge, 256 * MIB));
}

proptest! {
    #[test]
    fn matches_objpool_step_by_step(n in 1usize..200_000, size in 1usize..512, cpus in 1usize..300) {
        prop_assert_eq!(objpool_bytes(n, size, m(cpus)), objpool_model(n, size, cpus));
    }

    /// A set's figure is the sum of what each probe's `growth` added: for
    /// one shared pool that is the pool of the final count, whatever the
    /// order of `rN:` and `r:` lines.
    #[test]
    fn growth_sums_to_the_pool(lines in proptest::collection::vec(0usize..4097, 1..300), cpus in 1usize..300) {
        let pool = |ma: usize, d: usize| rethook_bytes(fprobe_instances(ma, d, cpus), FPROBE_NODE, RETHOOK, m(cpus));
        let (mut ma, mut d, mut sum) = (0, 0, 0);
        for n in lines {
            let before = pool(ma, d);
            if n == 0 { d += 1 } else { ma += n }
            sum += growth(before, pool(ma, d));
        }
        prop_assert_eq!(sum, pool(ma, d));
    }

    #[test]
    fn more_instances_never_cost_less(n in 1usize..1_000_000, k in 0usize..1000, cpus in 1usize..300) {
        prop_assert!(objpool_bytes(n + k, 64, m(cpus)) >= objpool_bytes(n, 64, m(cpus)));
    }
}
