// SPDX-License-Identifier: GPL-2.0
/*
 * bptool: the guest-side helpers of batchprobe's selftests and benchmark,
 * built static for the busybox initramfs. Called by the name of a link
 * (or as "bptool NAME ..."):
 *
 *   bpwrite [-t] FILE read all of stdin, write it to FILE in exactly one
 *                     write(2), so a multi-line batch reaches the control
 *                     file as one batch (shell builtins and cat may split
 *                     it); on failure print "bpwrite: <strerror> (errno N)";
 *                     -t: print the write(2)'s wall time in ns (what a
 *                     tool writing the batch waits, without our fork/exec);
 *                     -T: open FILE with O_TRUNC, as `>` does (what clears
 *                     kprobe_events), and print the wall time in ns of the
 *                     open, the write and the close
 *   bplines N FILE    each line of stdin appended to FILE with an open,
 *                     one write(2) and a close of its own, as a shell's
 *                     `echo LINE >> FILE` does (a refused line is skipped),
 *                     until N were taken; print the wall time in ns of all
 *                     of them, then how many were taken
 *   bptime CMD ARG..  run CMD, print its wall time in ns (CLOCK_MONOTONIC)
 *                     on stdout, exit with its status
 *   bphit [-p FILE] N call getppid() N times, print the ns per call; -p:
 *                     first write its own pid to FILE (set_event_pid: the
 *                     events then record its calls and no other task's)
 *   bpsleep MS        sleep MS milliseconds in one ppoll(2) with no file
 *                     descriptors: a sleeping syscall that busybox, the
 *                     kselftest runner and the kernel's threads do not use,
 *                     so a selftest that traces __x64_sys_ppoll sees only
 *                     this sleeper; exit 0 when the whole time was slept
 *   bpsleep -w MS     the same ppoll, until SIGUSR1 wakes it (MS at most):
 *                     exit 0 when SIGUSR1 ended the ppoll, 3 when the time
 *                     ran out first; so a test holds a task inside ppoll
 *                     for exactly as long as it needs, however slow the
 *                     guest (SIGUSR1 is blocked outside the ppoll, so a
 *                     wake sent early is not lost)
 *   bpnocap CMD ARG.. run CMD as root without CAP_SYS_ADMIN (dropped from
 *                     the bounding set and every capability set)
 *   bpuser UID CMD..  run CMD as user and group UID, with no capabilities
 *   bpfg CMD ARG..    run CMD with SIGINT and SIGHUP at their defaults, as
 *                     a terminal's foreground job has them (a shell's
 *                     background job, `CMD &`, inherits SIGINT ignored)
 *   bpfuzz FILE SEED N [BLACKLISTED]
 *                     write N seeded batches to the control FILE: valid,
 *                     near-valid and junk lines (long lines, NULs, huge
 *                     counts, UTF-8, offsets past a function's end,
 *                     nonexistent and blacklisted symbols, addresses, fetch arguments
 *                     that read registers, the stack and random memory),
 *                     some written truncated; print how many writes
 *                     succeeded and failed
 *   bpperf ID N       open trace event ID with perf_event_open(2) for this
 *                     task (PERF_TYPE_TRACEPOINT, a sample per hit, raw
 *                     data), call getppid() N times, print "COUNT SAMPLES
 *                     IP RAW": what perf counted, the samples in its ring
 *                     buffer, and the first sample's word after the
 *                     common fields (a kprobe event's __probe_ip or
 *                     __probe_func), in hex, then that sample's raw
 *                     record after the common fields, byte by byte in hex
 *                     ("-" without a sample); on failure "error ERRNO"
 *   bpperfopen PATH N EVENT...
 *                     open each trace event EVENT (GROUP/NAME under
 *                     tracefs' events/) with perf_event_open(2), as bpperf
 *                     does, all at once, then openat(PATH) N times as bpopen
 *                     does; print a line per EVENT: "COUNT SAMPLES REC...",
 *                     each sample decoded with the event's format file as
 *                     perf and trace-cmd decode it: "{FIELD=HEX,...}", every
 *                     field but the common ones, a __data_loc field as the
 *                     bytes it points at (records of several events written
 *                     on the same calls, each read as its format says)
 *   bpkprobe SYM      open a kprobe on SYM through perf's kprobe PMU
 *                     (perf_event_open(2), the type in /sys/bus/
 *                     event_source/devices/kprobe/type): the kernel's own
 *                     kprobe events' registration (create_local_trace_
 *                     kprobe(), with its lockdown check), without tracefs;
 *                     print "ok", or "error ERRNO"
 *   bpopen PATH N     openat(AT_FDCWD, PATH, O_RDONLY|O_CLOEXEC, 0640) N
 *                     times (closing what opens): calls whose arguments a
 *                     test chose, for fetch arguments to read; print how
 *                     many failed
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int bpwrite(int argc, char **argv)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	unsigned long long t0;
	int fd, timed = 0;
	ssize_t n;

	if (argc == 3 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "-T"))) {
		timed = argv[1][1] == 't' ? 1 : 2;
		argc--;
		argv++;
	}
	if (argc != 2 || !buf) {
		fprintf(stderr, "usage: bpwrite [-t|-T] FILE < batch\n");
		return 2;
	}
	while ((n = read(0, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				return 2;
		}
	}
	t0 = now_ns();
	fd = open(argv[1], O_WRONLY | (timed == 2 ? O_TRUNC : 0));
	if (fd < 0) {
		fprintf(stderr, "bpwrite: open: %s (errno %d)\n", strerror(errno), errno);
		return 1;
	}
	if (timed == 1)
		t0 = now_ns();
	n = write(fd, buf, len);
	if (timed == 1)
		t0 = now_ns() - t0;
	if (timed == 2) {
		close(fd);
		t0 = now_ns() - t0;
	}
	if (n < 0) {
		fprintf(stderr, "bpwrite: %s (errno %d)\n", strerror(errno), errno);
		return 1;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "bpwrite: short write %zd of %zu\n", n, len);
		return 1;
	}
	if (timed)
		printf("%llu\n", t0);
	return 0;
}

static int bplines(int argc, char **argv)
{
	unsigned long long t0, want, got = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int fd, ok;

	if (argc != 3 || (want = strtoull(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bplines N FILE < lines\n");
		return 2;
	}
	t0 = now_ns();
	while (got < want && (len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] != '\n') {
			/* getline() left room for the NUL: room for a newline. */
			line[len++] = '\n';
		}
		fd = open(argv[2], O_WRONLY | O_APPEND);
		if (fd < 0) {
			fprintf(stderr, "bplines: open: %s (errno %d)\n", strerror(errno), errno);
			return 1;
		}
		ok = write(fd, line, len) == len;
		if (!close(fd) && ok)
			got++;
	}
	printf("%llu %llu\n", now_ns() - t0, got);
	free(line);
	return 0;
}

static int bptime(int argc, char **argv)
{
	unsigned long long t0;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: bptime CMD [ARG...]\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 2;
	printf("%llu\n", now_ns() - t0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int bphit(int argc, char **argv)
{
	unsigned long long t0, n, i;
	const char *pidfile = NULL;
	char pid[32];
	int fd, len;

	if (argc == 4 && !strcmp(argv[1], "-p")) {
		pidfile = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc != 2 || (n = strtoull(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bphit [-p FILE] N\n");
		return 2;
	}
	if (pidfile) {
		len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		fd = open(pidfile, O_WRONLY | O_TRUNC);
		if (fd < 0 || write(fd, pid, len) != len) {
			fprintf(stderr, "bphit: %s: %s\n", pidfile, strerror(errno));
			return 1;
		}
		close(fd);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%llu\n", (now_ns() - t0) / n);
	return 0;
}

/*
 * bpopen PATH N: openat(AT_FDCWD, PATH, O_RDONLY | O_CLOEXEC, 0640) N times
 * (closing what opens): calls with arguments a test chooses, for fetch
 * arguments to read. Prints how many failed.
 */
static int bpopen(int argc, char **argv)
{
	unsigned long long n, i, failed = 0;
	long fd;

	if (argc != 3 || (n = strtoull(argv[2], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bpopen PATH N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY | O_CLOEXEC, 0640);
		if (fd < 0)
			failed++;
		else
			close(fd);
	}
	printf("%llu\n", failed);
	return 0;
}

/*
 * bpmkdir PATH N: mkdirat(AT_FDCWD, PATH, 0755) N times (removing what it
 * makes): a syscall a test can make fail with a chosen errno (EEXIST for
 * an existing PATH). Prints how many failed.
 */
static int bpmkdir(int argc, char **argv)
{
	unsigned long long n, i, failed = 0;

	if (argc != 3 || (n = strtoull(argv[2], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bpmkdir PATH N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (syscall(SYS_mkdirat, AT_FDCWD, argv[1], 0755) < 0)
			failed++;
		else
			rmdir(argv[1]);
	}
	printf("%llu\n", failed);
	return 0;
}

/* The ring buffer's data pages (a power of two) for bpperf. */
#define BPPERF_PAGES 8

/* One field of a trace event's format: where it is in a record. */
struct bpfield {
	char name[64];
	unsigned int offset, size;
	int data_loc;
};

/* What bpperfopen keeps per event: its perf fd, ring buffer and format. */
struct bpperf_event {
	int fd;
	struct perf_event_mmap_page *mp;
	struct bpfield fields[64];
	int nfields;
};

/* Opens trace event `id` for this task, disabled: a sample per hit with
 * its raw record, into a ring buffer of BPPERF_PAGES pages. */
static int bpperf_open(unsigned long long id, struct bpperf_event *e, long pg)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	a.disabled = 1;
	e->fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (e->fd < 0)
		return -errno;
	e->mp = mmap(NULL, pg * (BPPERF_PAGES + 1), PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	return e->mp == MAP_FAILED ? -errno : 0;
}


static int bpperf(int argc, char **argv)
{
	unsigned long long n, i, count = 0, samples = 0, ip = 0;
	char hex[1024] = "";
	struct perf_event_mmap_page *mp;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long off, head;
	struct bpperf_event e;
	char *data;
	int fd, err;

	if (argc != 3 || (n = strtoull(argv[2], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bpperf ID N\n");
		return 2;
	}
	err = bpperf_open(strtoull(argv[1], NULL, 0), &e, pg);
	if (err) {
		printf("error %d\n", -err);
		return 1;
	}
	fd = e.fd;
	mp = e.mp;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	data = (char *)mp + pg;
	/* Each record whole in the buffer: N is small, nothing wrapped. */
	for (off = mp->data_tail; off < head && head - off <= (unsigned long long)pg * BPPERF_PAGES;) {
		struct perf_event_header *h = (void *)(data + off % (pg * BPPERF_PAGES));

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			/* u32 size, then the raw record: 8 bytes of common fields. */
			unsigned int size;
			unsigned char *raw = (unsigned char *)(h + 1) + sizeof(size);

			memcpy(&size, h + 1, sizeof(size));
			if (!samples++) {
				memcpy(&ip, raw + 8, sizeof(ip));
				for (unsigned int b = 8; b < size && b - 8 < (sizeof(hex) - 1) / 2; b++)
					snprintf(hex + 2 * (b - 8), 3, "%02x", raw[b]);
			}
		}
		off += h->size;
	}
	printf("%llu %llu %llx %s\n", count, samples, ip, hex[0] ? hex : "-");
	return 0;
}

/* Reads the fields of `event`'s format (GROUP/NAME), but the common ones;
 * returns its id, or 0. */
static unsigned long long bpformat(const char *event, struct bpperf_event *e)
{
	char path[512], line[1024];
	unsigned long long id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/format", event);
	f = fopen(path, "r");
	if (!f)
		return 0;
	e->nfields = 0;
	while (fgets(line, sizeof(line), f)) {
		char *decl = strstr(line, "field:"), *semi, *name, *at;
		struct bpfield *fl;

		if (!strncmp(line, "ID: ", 4))
			id = strtoull(line + 4, NULL, 10);
		if (!decl || e->nfields == 64)
			continue;
		decl += 6;
		semi = strchr(decl, ';');
		if (!semi)
			continue;
		*semi = 0;
		/* The name: the declaration's last word, without an [N]. */
		name = strrchr(decl, ' ');
		name = name ? name + 1 : decl;
		at = strchr(name, '[');
		if (at)
			*at = 0;
		if (!strncmp(name, "common_", 7))
			continue;
		fl = &e->fields[e->nfields++];
		snprintf(fl->name, sizeof(fl->name), "%s", name);
		fl->data_loc = !!strstr(decl, "__data_loc");
		at = strstr(semi + 1, "offset:");
		fl->offset = at ? strtoul(at + 7, NULL, 10) : 0;
		at = strstr(semi + 1, "size:");
		fl->size = at ? strtoul(at + 5, NULL, 10) : 0;
	}
	fclose(f);
	return id;
}

/* Appends `n` bytes at `p` in hex to `line` (of `cap` bytes) at `*at`. */
static void bphex(char *line, size_t cap, size_t *at, const unsigned char *p, unsigned int n)
{
	for (unsigned int b = 0; b < n && *at + 3 < cap; b++)
		*at += snprintf(line + *at, 3, "%02x", p[b]);
}

/* Appends one raw record decoded by `e`'s format: "{FIELD=HEX,...}"; a
 * field past the record's end, or a __data_loc past it, is "?". */
static void bpdecode(struct bpperf_event *e, const unsigned char *raw, unsigned int size,
		     char *line, size_t cap, size_t *at)
{
	*at += snprintf(line + *at, cap - *at, " {");
	for (int i = 0; i < e->nfields && *at + 80 < cap; i++) {
		struct bpfield *fl = &e->fields[i];
		unsigned int loc, off, len;

		*at += snprintf(line + *at, cap - *at, "%s%s=", i ? "," : "", fl->name);
		if (fl->offset + fl->size > size) {
			*at += snprintf(line + *at, cap - *at, "?");
			continue;
		}
		if (!fl->data_loc) {
			bphex(line, cap, at, raw + fl->offset, fl->size);
			continue;
		}
		/* __data_loc: the offset in the low 16 bits, the length above. */
		memcpy(&loc, raw + fl->offset, sizeof(loc));
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > size)
			*at += snprintf(line + *at, cap - *at, "?");
		else
			bphex(line, cap, at, raw + off, len);
	}
	if (*at + 2 < cap)
		*at += snprintf(line + *at, cap - *at, "}");
}

/* Prints event `e`'s count, its samples, and each sample decoded. */
static void bpperf_print(struct bpperf_event *e, long pg)
{
	unsigned long long count = 0, samples = 0, off, head;
	char *data = (char *)e->mp + pg;
	static char line[65536];
	size_t at = 0;

	if (read(e->fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	head = __atomic_load_n(&e->mp->data_head, __ATOMIC_ACQUIRE);
	line[0] = 0;
	/* Each record whole in the buffer: N is small, nothing wrapped. */
	for (off = e->mp->data_tail; off < head && head - off <= (unsigned long long)pg * BPPERF_PAGES;) {
		struct perf_event_header *h = (void *)(data + off % (pg * BPPERF_PAGES));

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			/* u32 size, then the raw record, common fields first. */
			unsigned int size;

			memcpy(&size, h + 1, sizeof(size));
			samples++;
			bpdecode(e, (unsigned char *)(h + 1) + sizeof(size), size, line, sizeof(line), &at);
		}
		off += h->size;
	}
	printf("%llu %llu%s\n", count, samples, line);
}

static int bpperfopen(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long n, i, id;
	struct bpperf_event *e;
	int k, events = argc - 3, err;
	long fd;

	if (argc < 4 || (n = strtoull(argv[2], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bpperfopen PATH N EVENT...\n");
		return 2;
	}
	e = calloc(events, sizeof(*e));
	if (!e)
		return 1;
	for (k = 0; k < events; k++) {
		id = bpformat(argv[3 + k], &e[k]);
		if (!id) {
			printf("error %s: no format\n", argv[3 + k]);
			return 1;
		}
		err = bpperf_open(id, &e[k], pg);
		if (err) {
			printf("error %d\n", -err);
			return 1;
		}
	}
	for (k = 0; k < events; k++)
		ioctl(e[k].fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++) {
		fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY | O_CLOEXEC, 0640);
		if (fd >= 0)
			close(fd);
	}
	for (k = 0; k < events; k++)
		ioctl(e[k].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (k = 0; k < events; k++)
		bpperf_print(&e[k], pg);
	return 0;
}

static int bpkprobe(int argc, char **argv)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	unsigned int type;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: bpkprobe SYM\n");
		return 2;
	}
	if (!f || fscanf(f, "%u", &type) != 1) {
		printf("error %d (no kprobe PMU)\n", ENOENT);
		return 1;
	}
	fclose(f);
	a.type = type;
	a.config1 = (unsigned long)argv[1];	/* kprobe_func */
	a.config2 = 0;				/* probe_offset */
	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("error %d\n", errno);
		return 1;
	}
	close(fd);
	printf("ok\n");
	return 0;
}

static volatile sig_atomic_t bp_woken;

static void bp_wake(int sig)
{
	bp_woken = sig == SIGUSR1;
}

/*
 * ppoll(NULL, 0, ts, mask): with @wake, SIGUSR1 is blocked first and
 * handled (no SA_RESTART), and the ppoll's mask unblocks it, so the wake
 * ends the sleep whether it comes before or during the ppoll.
 */
static long bp_ppoll(struct timespec *ts, int wake)
{
	struct sigaction sa = { .sa_handler = bp_wake };
	unsigned long long none = 0;
	sigset_t usr1;

	if (!wake)
		return syscall(SYS_ppoll, NULL, 0, ts, NULL, 8);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return -1;
	return syscall(SYS_ppoll, NULL, 0, ts, &none, 8);
}

static int bpsleep(int argc, char **argv)
{
	int wake = argc == 3 && !strcmp(argv[1], "-w");
	struct timespec ts;
	unsigned long ms;
	long ret;

	if (argc != 2 + wake) {
		fprintf(stderr, "usage: bpsleep [-w] MS\n");
		return 2;
	}
	ms = strtoul(argv[1 + wake], NULL, 0);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	/* Times out with 0 after the whole time; -1 (EINTR) when woken. */
	ret = bp_ppoll(&ts, wake);
	if (wake && ret == -1 && errno == EINTR && bp_woken)
		return 0;
	if (wake && ret == 0) {
		fprintf(stderr, "bpsleep: %lu ms passed and no SIGUSR1 came\n", ms);
		return 3;
	}
	if (wake || ret != 0) {
		fprintf(stderr, "bpsleep: ppoll returned %ld: %s\n", ret, strerror(errno));
		return 1;
	}
	return 0;
}

static int bpnocap(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: bpnocap CMD [ARG...]\n");
		return 2;
	}
	/* Out of the bounding set, so exec does not give it back to root. */
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) ||
	    syscall(SYS_capget, &hdr, data)) {
		fprintf(stderr, "bpnocap: %s\n", strerror(errno));
		return 2;
	}
	for (i = 0; i < 2; i++) {
		unsigned int bit = CAP_TO_MASK(CAP_SYS_ADMIN);

		if (i != CAP_TO_INDEX(CAP_SYS_ADMIN))
			continue;
		data[i].effective &= ~bit;
		data[i].permitted &= ~bit;
		data[i].inheritable &= ~bit;
	}
	if (syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "bpnocap: capset: %s\n", strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "bpnocap: exec %s: %s\n", argv[1], strerror(errno));
	return 127;
}

static int bpuser(int argc, char **argv)
{
	unsigned long id;

	if (argc < 3 || (id = strtoul(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bpuser UID CMD [ARG...]\n");
		return 2;
	}
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		fprintf(stderr, "bpuser: %s\n", strerror(errno));
		return 2;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "bpuser: exec %s: %s\n", argv[2], strerror(errno));
	return 127;
}

static int bpfg(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bpfg CMD [ARG...]\n");
		return 2;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "bpfg: exec %s: %s\n", argv[1], strerror(errno));
	return 127;
}

static unsigned long long fuzz_state;

static unsigned int fuzz_rand(unsigned int n)
{
	/* xorshift64*: reproducible from the seed, any libc. */
	fuzz_state ^= fuzz_state >> 12;
	fuzz_state ^= fuzz_state << 25;
	fuzz_state ^= fuzz_state >> 27;
	return n ? (unsigned int)((fuzz_state * 2685821657736338717ULL) >> 33) % n : 0;
}

static const char *fuzz_pick(const char *const *v, unsigned int n)
{
	return v[fuzz_rand(n)];
}

#define PICK(v) fuzz_pick(v, sizeof(v) / sizeof(v[0]))

/* Appends text to buf at *len if it fits (cap bounds it). */
static void fuzz_put(char *buf, size_t *len, size_t cap, const char *text, int n)
{
	if (n > 0 && *len + n + 1 < cap) {
		memcpy(buf + *len, text, n);
		*len += n;
		buf[(*len)++] = '\n';
	}
}

/*
 * Fetch arguments for a p: (ret 0) or r: (ret 1) line, after a space:
 * 1 to 4 of them, mostly what every kernel takes (every kind of load,
 * dereferences kernel and user, nested, every kind of type, names), now
 * and then one it refuses. Their programs read registers, the stack and
 * memory at whatever address a register or a random offset gives: the
 * nofault reads must take it.
 */
static int fuzz_args(char *out, size_t size, int ret)
{
	static const char *const loads[] = {
		"%di", "%si", "%dx", "%cx", "%ax", "%sp", "%ip", "%r15", "$stack", "$stack0",
		"$stack2", "$arg1", "$arg2", "$arg4", "$comm", "\\42", "\\-7", "@0x10",
		"@0xffffffffff600000",
	};
	static const char *const types[] = {
		"", "", "", ":u8", ":s16", ":x32", ":u64", ":s64", ":char", ":symbol", ":string",
		":ustring", ":symstr", ":b3@2/8", ":u8[4]", ":x16[3]",
	};
	static const char *const derefs[] = { "+0(", "+8(", "-8(", "+104(", "+u0(", "+u16(" };
	static const char *const bad[] = {
		"%zz", "+0(%di", "$arg0", "$stack99999999", "x=", "%di:u7", "@ext4:ext4_sync_fs",
		"a=%di a=%si", "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))))))))",
		"$retval", "\\\"unterminated",
	};
	size_t len = 0;
	int n = 1 + fuzz_rand(4);

	for (int i = 0; i < n && len + 128 < size; i++) {
		int depth = fuzz_rand(3);

		if (fuzz_rand(16) == 0) {
			len += snprintf(out + len, size - len, " %s", PICK(bad));
			continue;
		}
		len += snprintf(out + len, size - len, " ");
		if (fuzz_rand(2))
			len += snprintf(out + len, size - len, "a%d=", i);
		for (int d = 0; d < depth; d++)
			len += snprintf(out + len, size - len, "%s", PICK(derefs));
		/* @SYM rarely (a symbol the kernel lacks too): a write naming
		 * one reads /proc/kallsyms, about 0.5 s under TCG on the test
		 * kernel, more on the others. */
		if (fuzz_rand(256) == 0)
			len += snprintf(out + len, size - len, "%s",
					fuzz_rand(3) == 0 ? "@no_such_symbol_bp" :
					fuzz_rand(2)	  ? "@jiffies" :
							    "@linux_banner+8");
		else
			len += snprintf(out + len, size - len, "%s",
					ret && fuzz_rand(3) == 0 ? "$retval" : PICK(loads));
		for (int d = 0; d < depth; d++)
			len += snprintf(out + len, size - len, ")");
		len += snprintf(out + len, size - len, "%s", PICK(types));
	}
	return (int)len;
}

/* vfs_read's address, from /proc/kallsyms (0: not found): probe lines on
 * an address (MEMADDR), at it and a few bytes in. */
static unsigned long fuzz_addr;

static void fuzz_find_addr(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long a;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &type, name) == 3 && !strcmp(name, "vfs_read")) {
			fuzz_addr = a;
			break;
		}
	if (f)
		fclose(f);
}

/* SYM, or now and then vfs_read's address (a few bytes in, at times)
 * written into AT. */
static const char *fuzz_sym_or_addr(const char *sym, char *at, size_t size)
{
	static const unsigned int aoffs[] = { 0, 0, 4, 5, 9, 1, 4096 };

	if (!fuzz_addr || fuzz_rand(12))
		return sym;
	snprintf(at, size, "0x%lx", fuzz_addr + aoffs[fuzz_rand(7)]);
	return at;
}

/* One line that parses: probe lines on real, missing and blacklisted
 * symbols and on globs (p: and r: also forced onto int3 kprobes, p!: and
 * r!:), with offsets inside and past a function's end, and every command
 * with its options. What the kernel and the registry do with
 * it (refuse, EEXIST, EBUSY, ...) is what is being fuzzed. */
static int fuzz_valid(char *line, size_t size, const char *black)
{
	static const char *const syms[] = {
		"vfs_read", "vfs_write", "__x64_sys_getppid", "__x64_sys_getpid",
		"version_proc_show", "no_such_function_xyz", "ksys_read", "BLACK",
		/* A module's (test_fuzz.sh loads and unloads bp_foreign meanwhile:
		 * its probes wait, are registered, go and come back), one that
		 * never loads (waits), and one batchprobe lacks (refused). */
		"bp_foreign:bp_foreign_extra_a", "bp_foreign:bp_foreign_count",
		"no_such_module_bp:vfs_read", "batchprobe:no_such_function_bp",
	};
	static const char *const globs[] = {
		"vfs_* max=16", "__x64_sys_getpp* max=2", "*_show max=8",
		"__x64_sys_get* skip=*pid max=6", "ksys_* max=4",
		"bp_foreign:bp_foreign_* max=3", "*:bp_foreign_e* max=2",
	};
	static const char *const offs[] = { "", "", "+5", "+9", "+1", "+4096", "+0x10" };
	static const char *const rkinds[] = { "r", "r16", "r4096", "r!", "r16!", "r4096!" };
	static const char *const pkinds[] = { "p", "p", "p!" };
	static const char *const create_opts[] = { "", "", " --noopt", " --one-by-one", " --bare",
						     " --events", " --no-events" };
	static const char *const modes[] = { "count", "record", "empty" };
	const char *sym = PICK(syms), *p = PICK(pkinds);
	/* Sets s6..s9: what this stages without creating (a missing symbol,
	 * say) must not poison the sets the coherent batches build. */
	int set = 6 + fuzz_rand(4), name = fuzz_rand(4);
	char nm[8] = "/";

	char at[32];

	if (!strcmp(sym, "BLACK"))
		sym = black;
	sym = fuzz_sym_or_addr(sym, at, sizeof(at));
	if (name)
		snprintf(nm, sizeof(nm), "/n%d", fuzz_rand(10));
	char args[512] = "";

	if (fuzz_rand(4) == 0)
		fuzz_args(args, sizeof(args), 0);
	switch (fuzz_rand(15)) {
	case 0 ... 2:
		return snprintf(line, size, "%s:s%d%s %s%s%s", p, set, nm, sym, PICK(offs), args);
	case 3: /* globs walk the kernel's symbols: fewer of them */
		if (fuzz_rand(3))
			return snprintf(line, size, "%s:s%d%s %s", p, set, nm, sym);
		return snprintf(line, size, "%s:s%d/ %s", p, set, PICK(globs));
	case 4:
		return snprintf(line, size, "%s:s%d%s %s", PICK(rkinds), set, nm, sym);
	case 5:
		return snprintf(line, size, "d:s%d%s %s", set, nm, sym);
	case 6:
		if (fuzz_rand(3))
			return snprintf(line, size, "d:s%d%s %s", set, nm, sym);
		return snprintf(line, size, "d:s%d/ %s", set, PICK(globs));
	case 7 ... 8:
		return snprintf(line, size, "create s%d%s", set, PICK(create_opts));
	case 9:
		return snprintf(line, size, "enable s%d", set);
	case 10:
		return snprintf(line, size, "disable s%d", set);
	case 11:
		return snprintf(line, size, "unregister s%d%s", set, fuzz_rand(3) ? "" : " --sync");
	case 12:
		return snprintf(line, size, "direct s%d %s", set, PICK(modes));
	case 13:
		if (fuzz_rand(4) == 0)
			return snprintf(line, size, "-:s%d/n%d", set, fuzz_rand(10));
		return snprintf(line, size, "-:s%d", set);
	default:
		return snprintf(line, size, "flush");
	}
}

/* One line that may not parse: near misses of every field, junk bytes
 * (NULs included), over-long lines, UTF-8. */
static int fuzz_invalid(char *line, size_t size)
{
	static const char *const bad[] = {
		"r99999:s1/ vfs_read", "r0:s1/ vfs_read", "x:s1 vfs_read", "p:s1/ vfs_read+x",
		"p:s1/ vfs_read+99999999999", "p:s1/ vfs_* max=4294967296", "p:s1/ vfs_* max=0",
		"p:s1/ vfs_* skip=+5", "p:s1/ vfs_read max=3", "d:s1/ vfs_read+5", "r:s1/ vfs_read+5",
		"create s1 --bogus", "creat s1", "direct s1 fast", "unregister s1 now",
		"p:1s vfs_read", "p:/e vfs_read", "p: vfs_read", "p:s1", "enable",
		"p:s1/ \xc3\xa9t\xc3\xa9", "p:s\xc3\xa9 vfs_read", "flush now",
		"p!!:s1 vfs_read", "!p:s1 vfs_read", "r!16:s1 vfs_read", "d!:s1/ vfs_read",
		"p:s1/ 0x", "p:s1/ 0xffffffff81000000%return", "p:s1/ 0xffffffff81000000+4",
		"p:s1/ 0", "p:s1/ 0999", "d:s1/ 0xffffffff81000000",
	};
	int n;

	switch (fuzz_rand(4)) {
	case 0: /* junk bytes, NULs included */
		n = fuzz_rand((unsigned int)size < 64 ? (unsigned int)size : 64);
		for (int i = 0; i < n; i++)
			line[i] = (char)fuzz_rand(256);
		return n;
	case 1: /* an over-long line */
		n = 1000 + fuzz_rand(200);
		if ((size_t)n >= size)
			n = size - 1;
		memset(line, 'a', n);
		memcpy(line, "p:long/ ", 8);
		return n;
	default:
		return snprintf(line, size, "%s", PICK(bad));
	}
}

/* A probe line for set NAME that the kernel mostly accepts: functions
 * every kernel has at +0 (a few past their end or missing, to be refused),
 * kprobes and kretprobes (fprobe-served, or forced onto int3 with p!: and
 * r!:) and direct calls, named uniquely or after the symbol; for a set
 * made with events (EVENTS: neither --no-events nor --bare), p: and r:
 * lines with fetch arguments. */
static int fuzz_good_probe(char *line, size_t size, const char *name, int events)
{
	char args[512] = "";
	static const char *const good[] = {
		"vfs_read", "vfs_write", "__x64_sys_getppid", "__x64_sys_getpid",
		"version_proc_show", "ksys_read", "ksys_write",
	};
	static const char *const kinds[] = {
		"p", "p", "p!", "p!", "r", "r!", "r16", "r16!", "d", "d",
	};
	static unsigned int uniq;
	const char *kind = PICK(kinds), *sym = PICK(good), *off = "";
	char nm[16] = "/";

	if (fuzz_rand(2))
		snprintf(nm, sizeof(nm), "/g%u", uniq++);
	switch (fuzz_rand(20)) {
	case 0:
		sym = "no_such_function_xyz";
		break;
	case 1:
		if (kind[0] == 'p')
			off = "+4096";
		break;
	}
	char at[32];

	if (kind[0] != 'd' && !*off)
		sym = fuzz_sym_or_addr(sym, at, sizeof(at));
	if (events && kind[0] != 'd' && fuzz_rand(2))
		fuzz_args(args, sizeof(args), kind[0] == 'r');
	return snprintf(line, size, "%s:%s%s %s%s%s", kind, name, nm, sym, off, args);
}

/* Which sets the fuzzer believes live (after a create that succeeded). */
static int fuzz_live[6];

/* A batch that builds set NAME, not live: probe lines, create, maybe enable. */
static void fuzz_build(char *buf, size_t *len, size_t cap, const char *name)
{
	static const char *const create_opts[] = { "", "", " --noopt", " --one-by-one", " --bare",
						     " --events", " --no-events" };
	const char *opts = PICK(create_opts);
	char line[2048];
	int n;

	for (int i = 1 + fuzz_rand(3); i > 0; i--) {
		/* Arguments need events: every create makes them but these. */
		n = fuzz_good_probe(line, sizeof(line), name,
				    !strstr(opts, "--no-events") && !strstr(opts, "--bare"));
		fuzz_put(buf, len, cap, line, n);
	}
	n = snprintf(line, sizeof(line), "create %s%s", name, opts);
	fuzz_put(buf, len, cap, line, n);
	if (fuzz_rand(2)) {
		n = snprintf(line, sizeof(line), "enable %s", name);
		fuzz_put(buf, len, cap, line, n);
	}
}

/* A batch that acts on live set NAME (enable, disable, retarget), and now
 * and then unregisters it: returns whether it does. */
static int fuzz_act(char *buf, size_t *len, size_t cap, const char *name)
{
	static const char *const ops[] = { "enable", "disable", "direct %s record", "direct %s count" };
	char line[2048];
	int n;

	for (int i = 1 + fuzz_rand(3); i > 0; i--) {
		char fmt[32];

		snprintf(fmt, sizeof(fmt), "%s", PICK(ops));
		if (strchr(fmt, '%'))
			n = snprintf(line, sizeof(line), fmt, name);
		else
			n = snprintf(line, sizeof(line), "%s %s", fmt, name);
		fuzz_put(buf, len, cap, line, n);
	}
	if (fuzz_rand(3) == 0) {
		n = snprintf(line, sizeof(line), "unregister %s%s", name,
			     fuzz_rand(2) ? "" : " --sync");
		fuzz_put(buf, len, cap, line, n);
		return 1;
	}
	return 0;
}

/* One batch. A third builds a set that is not live (fuzz_build), a third
 * acts on live sets (fuzz_act), so that most writes get past validation
 * into the kernel; the rest are random valid lines, one bad line among
 * valid ones (all of it must be refused), or junk. *created is the set a
 * build creates, *retired the live set acted on, *dropped whether that
 * unregisters it. */
static void fuzz_batch(char *buf, size_t *len, size_t cap, const char *black,
		       int *created, int *retired, int *dropped)
{
	int lines = 1 + fuzz_rand(8), kind = fuzz_rand(12), bad = fuzz_rand(lines);
	char line[2048], name[8];
	int n, set = fuzz_rand(6);

	*created = *retired = -1;
	*dropped = 0;
	snprintf(name, sizeof(name), "s%d", set);
	if (kind < 8 && fuzz_live[set]) {
		/* Act on a live set; a dead one is built below instead. */
		kind = 4;
	} else if (kind < 8) {
		kind = 0;
	}
	if (kind < 4) {
		fuzz_build(buf, len, cap, name);
		*created = set;
		return;
	}
	if (kind < 8) {
		*dropped = fuzz_act(buf, len, cap, name);
		*retired = set;	/* unless it fails with ENOENT, it was live */
		return;
	}
	for (int i = 0; i < lines; i++) {
		if (kind == 11 || (kind >= 9 && i == bad))
			n = fuzz_invalid(line, sizeof(line));
		else
			n = fuzz_valid(line, sizeof(line), black);
		if (n >= (int)sizeof(line))
			n = sizeof(line) - 1;
		fuzz_put(buf, len, cap, line, n);
	}
}

static int bpfuzz(int argc, char **argv)
{
	unsigned long long n, i, ok = 0, failed = 0;
	size_t cap = 1 << 16, len;
	char *buf = malloc(cap);
	const char *black = argc > 4 ? argv[4] : "kprobe_int3_handler";

	if (argc < 4 || !buf || (n = strtoull(argv[3], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bpfuzz FILE SEED N [BLACKLISTED]\n");
		return 2;
	}
	fuzz_state = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	fuzz_find_addr();
	for (i = 0; i < n; i++) {
		int fd = open(argv[1], O_WRONLY);
		ssize_t w;

		if (fd < 0) {
			fprintf(stderr, "bpfuzz: open: %s\n", strerror(errno));
			return 1;
		}
		int created, retired, dropped;

		len = 0;
		fuzz_batch(buf, &len, cap, black, &created, &retired, &dropped);
		/* Now and then a truncated write: the batch cut anywhere. */
		if (len && !fuzz_rand(10) && created < 0 && retired < 0) {
			/* Only random batches (sets s6..s9): a cut probe line
			 * stays staged, and would fail every create of its set. */
			len = fuzz_rand(len);
		}
		w = write(fd, buf, len);
		if (getenv("BPFUZZ_TRACE"))
			fprintf(stderr, "--- batch %llu: %zd (%s)\n%.*s", i, w,
				w < 0 ? strerror(errno) : "ok", (int)len, buf);
		if (w < 0) {
			failed++;
			/* Learn from the refusal: the set exists after all, or not. */
			if (created >= 0 && errno == EEXIST)
				fuzz_live[created] = 1;
			if (retired >= 0 && errno == ENOENT)
				fuzz_live[retired] = 0;
		} else {
			ok++;
			if (created >= 0)
				fuzz_live[created] = 1;
			if (retired >= 0 && dropped)
				fuzz_live[retired] = 0;
		}
		close(fd);
	}
	printf("%llu %llu\n", ok, failed);
	return 0;
}

/* The tools, by the name bptool is called under (or its first argument). */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} tools[] = {
	{ "bpwrite", bpwrite }, { "bptime", bptime }, { "bphit", bphit },
	{ "bpsleep", bpsleep }, { "bpnocap", bpnocap }, { "bpuser", bpuser },
	{ "bpfuzz", bpfuzz }, { "bpperf", bpperf }, { "bpperfopen", bpperfopen },
	{ "bpopen", bpopen },
	{ "bplines", bplines }, { "bpmkdir", bpmkdir }, { "bpkprobe", bpkprobe },
	{ "bpfg", bpfg },
};

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t i;

	if (!strcmp(name, "bptool") && argc > 1) {
		argv++;
		argc--;
		name = argv[0];
	}
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!strcmp(name, tools[i].name))
			return tools[i].run(argc, argv);
	fprintf(stderr, "bptool: unknown tool %s (", name);
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		fprintf(stderr, "%s%s", i ? ", " : "", tools[i].name);
	fprintf(stderr, ")\n");
	return 2;
}
