// SPDX-License-Identifier: GPL-2.0
/*
 * bptool: the guest-side helpers of batchprobe's selftests and benchmark,
 * built static for the busybox initramfs. Called by the name of a link
 * (or as "bptool NAME ..."):
 *
 *   bpwrite FILE      read all of stdin, write it to FILE in exactly one
 *                     write(2), so a multi-line batch reaches the control
 *                     file as one batch (shell builtins and cat may split
 *                     it); on failure print "bpwrite: <strerror> (errno N)"
 *   bptime CMD ARG..  run CMD, print its wall time in ns (CLOCK_MONOTONIC)
 *                     on stdout, exit with its status
 *   bphit N           call getppid() N times, print the ns per call
 *   bpnocap CMD ARG.. run CMD as root without CAP_SYS_ADMIN (dropped from
 *                     the bounding set and every capability set)
 *   bpuser UID CMD..  run CMD as user and group UID, with no capabilities
 *   bpfuzz FILE SEED N [BLACKLISTED]
 *                     write N seeded batches to the control FILE: valid,
 *                     near-valid and junk lines (long lines, NULs, huge
 *                     counts, UTF-8, offsets past a function's end,
 *                     nonexistent and blacklisted symbols), some written
 *                     truncated; print how many writes succeeded and failed
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
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
	ssize_t n;
	int fd;

	if (argc != 2 || !buf) {
		fprintf(stderr, "usage: bpwrite FILE < batch\n");
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
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "bpwrite: open: %s (errno %d)\n", strerror(errno), errno);
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0) {
		fprintf(stderr, "bpwrite: %s (errno %d)\n", strerror(errno), errno);
		return 1;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "bpwrite: short write %zd of %zu\n", n, len);
		return 1;
	}
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

	if (argc != 2 || (n = strtoull(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: bphit N\n");
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%llu\n", (now_ns() - t0) / n);
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

/* Appends one line (no newline) to buf at *len; cap bounds it. */
static void fuzz_line(char *buf, size_t *len, size_t cap, const char *black)
{
	static const char *const syms[] = {
		"vfs_read", "vfs_write", "__x64_sys_getppid", "__x64_sys_getpid",
		"version_proc_show", "no_such_function_xyz", "do_sys_open", "ksys_read",
		"BLACK",
	};
	static const char *const globs[] = {
		"vfs_*", "__x64_sys_getpp*", "*_show", "[", "a**b", "sys_.*", "__x64_sys_get*",
	};
	static const char *const offs[] = {
		"", "", "", "+5", "+9", "+1", "+4096", "+0x10", "+99999999999", "+x", "+",
	};
	static const char *const kinds[] = { "p", "p", "r", "r4096", "r99999", "d", "d", "x", "r0" };
	static const char *const verbs[] = {
		"create", "create", "enable", "disable", "unregister", "unregister",
		"flush", "direct", "creat",
	};
	static const char *const opts[] = {
		"", "", "", " --sync", " --noopt", " --one-by-one", " --bare",
		" count", " record", " empty", " --bogus", " extra words",
	};
	static const char *const extras[] = {
		"", "", "", " max=16", " max=4294967296", " max=0", " skip=*lock*", " skip=+5",
		" max=3 skip=vfs_w*", " \xc3\xa9t\xc3\xa9",
	};
	char line[2048];
	const char *sym;
	int n = 0, set = fuzz_rand(6);

	switch (fuzz_rand(40)) {
	case 0: /* junk bytes, NULs included */
		n = fuzz_rand(40);
		for (int i = 0; i < n; i++)
			line[i] = (char)fuzz_rand(256);
		break;
	case 1: /* an over-long line */
		n = 1000 + fuzz_rand(200);
		memset(line, 'a', n);
		memcpy(line, "p:long ", 7);
		break;
	case 2 ... 21:
		sym = fuzz_rand(8) ? PICK(syms) : PICK(globs);
		if (!strcmp(sym, "BLACK"))
			sym = black;
		n = snprintf(line, sizeof(line), "%s:s%d%s%s %s%s%s", PICK(kinds), set,
			     fuzz_rand(3) ? "" : "/n", fuzz_rand(3) ? "" : "x", sym, PICK(offs),
			     PICK(extras));
		break;
	default:
		n = snprintf(line, sizeof(line), "%s s%d%s", PICK(verbs), set, PICK(opts));
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	if (*len + n + 1 < cap) {
		memcpy(buf + *len, line, n);
		*len += n;
		buf[(*len)++] = '\n';
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
	for (i = 0; i < n; i++) {
		int fd = open(argv[1], O_WRONLY), lines = 1 + fuzz_rand(8);
		ssize_t w;

		if (fd < 0) {
			fprintf(stderr, "bpfuzz: open: %s\n", strerror(errno));
			return 1;
		}
		len = 0;
		while (lines--)
			fuzz_line(buf, &len, cap, black);
		/* Now and then a truncated write: the batch cut anywhere. */
		if (len && !fuzz_rand(10))
			len = fuzz_rand(len);
		w = write(fd, buf, len);
		if (w < 0)
			failed++;
		else
			ok++;
		close(fd);
	}
	printf("%llu %llu\n", ok, failed);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (!strcmp(name, "bptool") && argc > 1) {
		argv++;
		argc--;
		name = argv[0];
	}
	if (!strcmp(name, "bpwrite"))
		return bpwrite(argc, argv);
	if (!strcmp(name, "bptime"))
		return bptime(argc, argv);
	if (!strcmp(name, "bphit"))
		return bphit(argc, argv);
	if (!strcmp(name, "bpnocap"))
		return bpnocap(argc, argv);
	if (!strcmp(name, "bpuser"))
		return bpuser(argc, argv);
	if (!strcmp(name, "bpfuzz"))
		return bpfuzz(argc, argv);
	fprintf(stderr, "bptool: unknown tool %s (bpwrite, bptime, bphit, bpnocap, bpuser, bpfuzz)\n", name);
	return 2;
}
