// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing_multi peers (Linux 7.2 and later): one fentry.multi or
 * fexit.multi program on N BTF ids through one link, and fsession.multi,
 * one program that runs on entry and on exit. Counting as peer.bpf.c does.
 */
#include "peer.bpf.h"

extern _Bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

COUNTER("fentry.multi", tmulti_entry, 0)
COUNTER("fexit.multi", tmulti_exit, 1)

SEC("fsession.multi")
int tsession(void *ctx)
{
	return count(bpf_session_is_return(ctx));
}

/*
 * A record per call through fsession: the entry time in the call's
 * session cookie (no map), the record written at the return, as
 * peer.bpf.c's rb_exit writes it.
 */
SEC("fsession.multi")
int tsession_rb(void *ctx)
{
	__u64 *start = bpf_session_cookie(ctx);

	if (!bpf_session_is_return(ctx)) {
		*start = bpf_ktime_get_ns();
		return count(0);
	}
	return record_exit(ctx, bpf_ktime_get_ns() - *start);
}
