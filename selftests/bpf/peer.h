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
};

#endif
