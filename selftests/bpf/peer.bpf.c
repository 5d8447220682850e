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
