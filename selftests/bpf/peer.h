/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF peers' programs (peer.bpf.c, peer_multi.bpf.c) share with
 * bpfpeer: the one value of their peer_state array map, which bpfpeer
 * reads and writes through the map's mmap.
 */
#ifndef BATCHPROBE_PEER_H
#define BATCHPROBE_PEER_H

struct peer_state {
	/* Count only this process's calls; 0 counts every caller. */
	__u32 target_tgid;
	__u32 pad;
	__u64 entry_hits;
	__u64 exit_hits;
	/* Records the ring buffer had no room for (the record peers). */
	__u64 rb_drops;
};

/*
 * What the record peers write per call into their BPF ring buffer: the
 * fields a batchprobe exit set's return record carries (the function, its
 * first argument, its return value, the call's duration in ns) and the
 * thread, as a tracer that reads calls writes them.
 */
struct peer_record {
	__u64 func;
	__u64 arg1;
	__u64 ret;
	__u64 duration;
	__u32 pid;
	__u32 pad;
};

#endif
