/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF peers' two objects (peer.bpf.c, peer_multi.bpf.c) share:
 * the counters' map and the test of whether a call counts.
 */
#ifndef BATCHPROBE_PEER_BPF_H
#define BATCHPROBE_PEER_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "peer.h"

char _license[] SEC("license") = "GPL";

/*
 * An explicit array map, not .bss: libbpf makes global data only where a
 * socket filter program loads (its feature probe), and these kernels have
 * no networking. BPF_F_MMAPABLE: bpfpeer maps it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct peer_state);
} peer_state SEC(".maps");

/* The state, when this call counts (NULL: not counted). */
static __always_inline struct peer_state *counted(void)
{
	struct peer_state *s;
	__u32 key = 0;

	s = bpf_map_lookup_elem(&peer_state, &key);
	if (!s || (s->target_tgid && (bpf_get_current_pid_tgid() >> 32) != s->target_tgid))
		return NULL;
	return s;
}

/* Counts one call, on entry or on exit, when it counts. */
static __always_inline int count(int exit)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(exit ? &s->exit_hits : &s->entry_hits, 1);
	return 0;
}

/*
 * The record peers' ring buffer: 16 MiB, room for the bench's 200,000
 * calls' records (48 bytes each with the ring buffer's header) without a
 * reader; a record it has no room for is counted in rb_drops.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} peer_rb SEC(".maps");

/*
 * Writes the record of a call that took @duration ns, from an fexit (or
 * fsession's return) program's @ctx, and counts the exit.
 */
static __always_inline int record_exit(void *ctx, __u64 duration)
{
	struct peer_state *s = counted();
	struct peer_record *r;
	__u64 arg1 = 0, ret = 0;

	if (!s)
		return 0;
	r = bpf_ringbuf_reserve(&peer_rb, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&s->rb_drops, 1);
		return 0;
	}
	bpf_get_func_arg(ctx, 0, &arg1);
	bpf_get_func_ret(ctx, &ret);
	r->func = bpf_get_func_ip(ctx);
	r->arg1 = arg1;
	r->ret = ret;
	r->duration = duration;
	r->pid = (__u32)bpf_get_current_pid_tgid();
	r->pad = 0;
	bpf_ringbuf_submit(r, 0);
	__sync_fetch_and_add(&s->exit_hits, 1);
	return 0;
}

/*
 * COUNTER(SEC, NAME, EXIT): a program NAME of section SEC that counts
 * each call it sees as an entry (EXIT 0) or an exit (EXIT 1).
 */
#define COUNTER(sec, name, exit)		\
	SEC(sec)				\
	int name(void *ctx)			\
	{					\
		return count(exit);		\
	}

#endif
