// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF peers' programs (selftests/bpfpeer.c loads them): each counts the
 * calls it sees, entry and exit apart, in one array map that bpfpeer
 * reads through its mmap. Nothing else: the bench times attach and
 * detach, and the per-call cost of a program that does this much, as
 * batchprobe's counting sets do.
 *
 * target_tgid, when set, counts one process's calls only, so that a
 * selftest can expect exact counts from its own calls.
 *
 * This file builds for every kernel; peer_multi.bpf.c adds the
 * tracing_multi programs, for kernels whose libbpf knows them.
 */
#include "peer.bpf.h"

/* One kprobe_multi link on every function (fprobe underneath). */
COUNTER("kprobe.multi", kmulti_entry, 0)

/* The same, BPF_F_KPROBE_MULTI_RETURN: a second link for the returns. */
COUNTER("kretprobe.multi", kmulti_exit, 1)

/*
 * fentry and fexit: loaded once per function (the kernel ties a tracing
 * program to one BTF id at load), one link each; bpfpeer loads these as
 * templates and clones them for the other functions, as retsnoop does.
 */
COUNTER("fentry", fentry_entry, 0)
COUNTER("fexit", fexit_exit, 1)

/*
 * funclatency's way (bcc's tools/funclatency, bpftrace's hist()): fentry
 * keeps the entry time per thread in a hash map, fexit takes it out and
 * counts the duration in a per-CPU log2 histogram: what batchprobe's exit
 * set keeps with --hist (bucket 0 for 0 ns, i for [2^(i-1), 2^i), the
 * last from 2^38 on), for the per-call comparison.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} hist_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 40);
	__type(key, __u32);
	__type(value, __u64);
} hist_slots SEC(".maps");

/* bcc's log2(): the highest bit set, without a loop. */
static __always_inline __u32 log2_32(__u32 v)
{
	__u32 r, shift;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u32 hist_bucket(__u64 ns)
{
	__u32 hi = ns >> 32, b;

	if (!ns)
		return 0;
	b = (hi ? log2_32(hi) + 32 : log2_32(ns)) + 1;
	return b > 39 ? 39 : b;
}

/* At entry: this thread's entry time into @start (a hash map by thread). */
static __always_inline int keep_start(void *start)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 t;

	if (!counted())
		return 0;
	t = bpf_ktime_get_ns();
	bpf_map_update_elem(start, &tid, &t, BPF_ANY);
	return count(0);
}

/* At exit: the call's duration, its entry time taken out of @start. */
static __always_inline int take_duration(void *start, __u64 *delta)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *tsp;

	tsp = bpf_map_lookup_elem(start, &tid);
	if (!tsp)
		return 0;
	*delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(start, &tid);
	return 1;
}

SEC("fentry")
int hist_entry(void *ctx)
{
	return keep_start(&hist_start);
}

SEC("fexit")
int hist_exit(void *ctx)
{
	__u64 *n, delta;
	__u32 slot;

	if (!take_duration(&hist_start, &delta))
		return 0;
	slot = hist_bucket(delta);
	n = bpf_map_lookup_elem(&hist_slots, &slot);
	if (n)
		*n += 1;
	return count(1);
}

/*
 * A record per call (retsnoop's, or bpftrace's fexit writing its fields
 * out): fentry keeps the entry time per thread, as funclatency does;
 * fexit writes the call's record (record_exit: the function, its first
 * argument, its return value, the duration) into a BPF ring buffer. The
 * peer of an exit set's return records.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} rb_start SEC(".maps");

SEC("fentry")
int rb_entry(void *ctx)
{
	return keep_start(&rb_start);
}

SEC("fexit")
int rb_exit(void *ctx)
{
	__u64 delta;

	if (!take_duration(&rb_start, &delta))
		return 0;
	return record_exit(ctx, delta);
}
