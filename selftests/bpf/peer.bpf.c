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
/* One kprobe_multi link on every function (fprobe underneath). */
SEC("kprobe.multi")
int kmulti_entry(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(&s->entry_hits, 1);
	return 0;
}

/* The same, BPF_F_KPROBE_MULTI_RETURN: a second link for the returns. */
SEC("kretprobe.multi")
int kmulti_exit(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(&s->exit_hits, 1);
	return 0;
}

/*
 * fentry and fexit: loaded once per function (the kernel ties a tracing
 * program to one BTF id at load), one link each; bpfpeer loads these as
 * templates and clones them for the other functions, as retsnoop does.
 */
SEC("fentry")
int fentry_entry(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(&s->entry_hits, 1);
	return 0;
}

SEC("fexit")
int fexit_exit(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(&s->exit_hits, 1);
	return 0;
}
