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
	fprintf(stderr, "bptool: unknown tool %s (bpwrite, bptime, bphit, bpnocap, bpuser)\n", name);
	return 2;
}
