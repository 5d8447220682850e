// SPDX-License-Identifier: GPL-2.0
/*
 * bpwrite FILE: read all of stdin and write it to FILE in exactly one
 * write(2), so a multi-line batch reaches batchprobe's control file as one
 * batch (shell builtins and cat may split it). On failure prints
 * "bpwrite: <strerror> (errno N)" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
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
