// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing_multi peers (Linux 7.2 and later): one fentry.multi or
 * fexit.multi program on N BTF ids through one link, and fsession.multi,
 * one program that runs on entry and on exit. Counting as peer.bpf.c does.
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

extern _Bool bpf_session_is_return(void *ctx) __ksym;

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
SEC("fentry.multi")
int tmulti_entry(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(&s->entry_hits, 1);
	return 0;
}

SEC("fexit.multi")
int tmulti_exit(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(&s->exit_hits, 1);
	return 0;
}

SEC("fsession.multi")
int tsession(void *ctx)
{
	struct peer_state *s = counted();

	if (s)
		__sync_fetch_and_add(bpf_session_is_return(ctx) ? &s->exit_hits : &s->entry_hits, 1);
	return 0;
}
