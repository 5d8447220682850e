// SPDX-License-Identifier: GPL-2.0

//! What a set's return probes make the kernel allocate, estimated from the
//! kernel's own sizing rules, and the cap on it. Pure arithmetic (the host
//! tests in `tests/` run it); the sizes of the kernel's structures, and
//! what differs between kernels, come from [`crate::kcompat`] and the
//! bindings.
//!
//! A kretprobe, and through 6.13 a return fprobe, keeps its return
//! instances in a `rethook`, whose `objpool` (`lib/objpool.c`, the same on
//! 6.12 and 7.3) gives *every possible CPU* a vmalloc'd slot: a ring of
//! `roundup_pow_of_two(instances)` pointers, so that one CPU can hold every
//! instance, and that CPU's share of the instances themselves. So a pool
//! of `n` instances of `s` bytes on `c` possible CPUs takes about
//! `c × page_round(16 + 8 × pow2(n) + s × n / c)`: one page per CPU at
//! least (a kretprobe with the kernel's default of `max(10, 2c)`
//! instances: 8 KiB on 2 CPUs, 2 MiB on 256), and, for one pool shared by
//! many functions, `8 × pow2(n)` bytes on every CPU (a return fprobe on
//! ~15,000 functions: ~14 MB on 2 CPUs, ~1.1 GiB on 64).

/// The most instances one objpool holds (`OBJPOOL_NR_OBJECT_MAX`):
/// `objpool_init` refuses more.
pub const OBJPOOL_MAX: usize = 1 << 24;

/// The default cap on what one set's return-instance pools may take, in
/// KiB (the `max_return_pool_kib` module parameter; see the README).
pub const DEFAULT_CAP_KIB: usize = 256 * 1024;

/// An objpool slot's header (`struct objpool_slot`: head, tail, last,
/// mask, `u32` each), before its ring of pointers.
const SLOT_HEADER: usize = 16;

/// Bytes per pointer, and the alignment objpool gives objects (`long`).
const WORD: usize = 8;

/// The machine the pools are sized for.
#[derive(Clone, Copy, Debug)]
pub struct Machine {
    /// `num_possible_cpus()`: every possible CPU gets a slot.
    pub cpus: usize,
    /// `PAGE_SIZE`: a vmalloc'd slot takes whole pages.
    pub page: usize,
}

fn round_up(n: usize, to: usize) -> usize {
    if to == 0 {
        return n;
    }
    n.div_ceil(to).saturating_mul(to)
}

/// The kernel's default number of kretprobe instances (`maxactive` 0):
/// `max(10, 2 × num_possible_cpus())` (`register_kretprobe`, 6.12 and
/// 7.3).
pub fn default_instances(cpus: usize) -> usize {
    cpus.saturating_mul(2).max(10)
}

/// The bytes `objpool_init(nr_objs, obj_size)` allocates on `m`: per
/// possible CPU one vmalloc'd slot (header, `roundup_pow_of_two(nr_objs)`
/// pointers, its share of the objects; whole pages), and the array of
/// slot pointers. 0 for no objects. Saturates instead of overflowing.
pub fn objpool_bytes(nr_objs: usize, obj_size: usize, m: Machine) -> usize {
    if nr_objs == 0 || m.cpus == 0 {
        return 0;
    }
    let obj = round_up(obj_size, WORD);
    let capacity = nr_objs.checked_next_power_of_two().unwrap_or(usize::MAX);
    let ring = SLOT_HEADER.saturating_add(capacity.saturating_mul(WORD));
    let slot = |objs: usize| round_up(ring.saturating_add(obj.saturating_mul(objs)), m.page);
    // The first `nr_objs % cpus` CPUs hold one object more.
    let (each, extra) = (nr_objs / m.cpus, nr_objs % m.cpus);
    slot(each + 1)
        .saturating_mul(extra)
        .saturating_add(slot(each).saturating_mul(m.cpus - extra))
        .saturating_add(m.cpus.saturating_mul(WORD))
}

/// The bytes a `rethook` with `instances` nodes of `node_size` bytes takes
/// (`rethook_alloc`): the `struct rethook` itself (`head` bytes) and its
/// objpool.
pub fn rethook_bytes(instances: usize, node_size: usize, head: usize, m: Machine) -> usize {
    if instances == 0 {
        return 0;
    }
    head.saturating_add(objpool_bytes(instances, node_size, m))
}

/// The bytes one kretprobe's pool takes: `maxactive` instances (0: the
/// kernel's default, [`default_instances`]) of `instance_size` bytes.
pub fn kretprobe_bytes(maxactive: usize, instance_size: usize, head: usize, m: Machine) -> usize {
    let n = if maxactive == 0 {
        default_instances(m.cpus)
    } else {
        maxactive
    };
    rethook_bytes(n, instance_size, head, m)
}

/// The instances a set's return fprobe asks for, through 6.13 (one pool
/// for all its functions): what each `rN:` asked for (`maxactive`,
/// summed), and a kretprobe's default for each of `defaults` plain `r:`,
/// within objpool's limit.
pub fn fprobe_instances(maxactive: usize, defaults: usize, cpus: usize) -> usize {
    maxactive
        .saturating_add(defaults.saturating_mul(default_instances(cpus)))
        .min(OBJPOOL_MAX)
}

/// What adding a probe to a pool costs: the bytes after less the bytes
/// before (a shared pool grows by powers of two and whole pages, so most
/// additions cost nothing and a few cost a doubling).
pub fn growth(before: usize, after: usize) -> usize {
    after.saturating_sub(before)
}

/// Whether a set whose pools take `have` bytes may add `cost` more under
/// a cap of `cap` bytes. What costs nothing always fits.
pub fn fits(have: usize, cost: usize, cap: usize) -> bool {
    cost == 0 || have.saturating_add(cost) <= cap
}
