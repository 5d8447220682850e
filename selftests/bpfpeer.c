// SPDX-License-Identifier: GPL-2.0
/*
 * bpfpeer: the BPF methods batchprobe is measured against, in the same
 * boot (make bench's "peers" section, selftests/test_bpf_*.sh). Built
 * static for the busybox initramfs, against the libbpf of the kernel tree
 * the guest runs, so that it speaks that kernel's UAPI.
 *
 * A mode is a way a BPF user attaches counting programs to N functions:
 *
 *   kprobe-multi        one kprobe.multi link (fprobe underneath): entry
 *   kprobe-multi-ret    that, plus a kretprobe.multi link: entry + exit
 *   fentry              one fentry program and link per function, as
 *                       retsnoop and bpftrace's fentry probes do
 *   fentry-fexit        one fentry and one fexit link per function
 *   fentry-multi        one fentry.multi link on N BTF ids (tracing_multi,
 *                       Linux 7.2 and later)
 *   fentry-fexit-multi  fentry.multi + fexit.multi, one link per side
 *   fsession-multi      one fsession.multi link: one program, entry + exit
 *
 * Usage:
 *   bpfpeer modes             print the modes this build and kernel have
 *   bpfpeer filter            names on stdin; print those vmlinux BTF has
 *                             exactly one FUNC of, and whose prototype a
 *                             trampoline can take (libbpf's
 *                             btf_type_is_traceable_func, as the kernel's
 *                             own tracing_multi bench selftest filters)
 *   bpfpeer accept MODE       names on stdin; print the ones MODE takes:
 *                             an all-or-nothing link is bisected until
 *                             every refused name is found; a per-function
 *                             mode keeps the names its programs load on
 *                             (the verifier's checks) without linking
 *                             each (untimed)
 *   bpfpeer bench MODE        names on stdin: load, link, detach, timed;
 *                             print "load_ns=T link_ns=T attach_ns=T
 *                             detach_ns=T got=K load_gp=G link_gp=G
 *                             attach_gp=G detach_gp=G", where attach is
 *                             load + link: until the programs run
 *   bpfpeer count MODE FUNC N attach MODE on FUNC counting this process's
 *                             calls only, call getppid() N times, print
 *                             "entry=E exit=X": what the programs counted
 *                             of those calls alone, detach
 *   bpfpeer run MODE FUNC -- CMD ARG...
 *                             attach MODE on FUNC (on the names on stdin
 *                             for "-") counting CMD's calls only, run CMD,
 *                             print "bpfpeer: entry=E exit=X" after its
 *                             output, detach
 *
 * detach is timed until the kernel is done with the programs: the links
 * and programs are closed and every program's id has left the kernel's
 * id table (the last reference is gone), not only until close() returns.
 * A G is the grace periods waited for system-wide during the phase
 * (rcu/rcu_tasks/rcu_tasks_rude, "-" for a kind the kernel lacks), read
 * from batchprobe's stats header when the module is loaded, else "-".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/peer.h"

/* The BPF objects, embedded (the Makefile names their paths). */
#define EMBED(name, path)                                              \
	asm(".pushsection .rodata\n.balign 8\n.global " #name "\n" #name \
	    ":\n.incbin \"" path "\"\n.global " #name "_end\n" #name     \
	    "_end:\n.popsection\n");                                     \
	extern const char name[], name##_end[]
EMBED(peer_obj, PEER_OBJ);
#ifdef PEER_MULTI_OBJ
EMBED(peer_multi_obj, PEER_MULTI_OBJ);
#endif

enum kind {
	KPROBE_MULTI,	/* one kprobe.multi link per side, by name */
	PER_FUNCTION,	/* one program and link per function per side */
	TRACING_MULTI,	/* one tracing_multi link per side, by BTF id */
};

struct mode {
	const char *name;
	enum kind kind;
	bool multi_obj;		/* in peer_multi.bpf.c */
	const char *prog[2];	/* entry side, exit side (either may be NULL) */
};

static const struct mode modes[] = {
	{ "kprobe-multi", KPROBE_MULTI, false, { "kmulti_entry", NULL } },
	{ "kprobe-multi-ret", KPROBE_MULTI, false, { "kmulti_entry", "kmulti_exit" } },
	{ "fentry", PER_FUNCTION, false, { "fentry_entry", NULL } },
	{ "fentry-fexit", PER_FUNCTION, false, { "fentry_entry", "fexit_exit" } },
	/* funclatency's way: entry time in a hash map, a log2 histogram. */
	{ "fentry-fexit-hist", PER_FUNCTION, false, { "hist_entry", "hist_exit" } },
	/* A record per call into a BPF ring buffer (rb_exit, record_exit). */
	{ "fentry-fexit-rb", PER_FUNCTION, false, { "rb_entry", "rb_exit" } },
#ifdef PEER_MULTI_OBJ
	{ "fentry-multi", TRACING_MULTI, true, { "tmulti_entry", NULL } },
	{ "fentry-fexit-multi", TRACING_MULTI, true, { "tmulti_entry", "tmulti_exit" } },
	{ "fsession-multi", TRACING_MULTI, true, { "tsession", NULL } },
	{ "fsession-rb", TRACING_MULTI, true, { "tsession_rb", NULL } },
#endif
};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool quiet;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (quiet || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ---- Names and BTF ids ---- */

struct names {
	char **v;
	__u32 *ids;	/* BTF FUNC id per name, 0 when BTF has none or several */
	size_t n;
};

static int read_names(struct names *ns)
{
	char line[512];
	size_t cap = 0;

	memset(ns, 0, sizeof(*ns));
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, " \t\n")] = 0;
		if (!line[0])
			continue;
		if (ns->n == cap) {
			cap = cap ? cap * 2 : 1024;
			ns->v = realloc(ns->v, cap * sizeof(*ns->v));
			if (!ns->v)
				return -ENOMEM;
		}
		ns->v[ns->n] = strdup(line);
		if (!ns->v[ns->n++])
			return -ENOMEM;
	}
	return 0;
}

struct func {
	const char *name;
	__u32 id;
	bool traceable;
};

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const struct func *)a)->name, ((const struct func *)b)->name);
}

/* A modifier (typedef, const, ...) that BTF resolves through. */
static bool is_modifier(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return true;
	default:
		return false;
	}
}

/* The size of type id, through modifiers; -1 for what a trampoline cannot take. */
static int type_size(const struct btf *btf, __u32 id, const struct btf_type **out)
{
	const struct btf_type *t;
	int i;

	*out = NULL;
	if (!id)
		return 0;
	t = btf__type_by_id(btf, id);
	for (i = 0; i < 32 && t && is_modifier(t); i++)
		t = btf__type_by_id(btf, t->type);
	if (!t || i == 32)
		return -1;
	*out = t;
	if (btf_is_ptr(t))
		return 8;
	if (btf_is_int(t) || btf_is_any_enum(t) || btf_is_struct(t) || btf_is_union(t))
		return t->size;
	return -1;
}

/* libbpf's btf_type_is_traceable_func (7.3's libbpf.c), which 6.12's lacks. */
static bool traceable(const struct btf *btf, const struct btf_type *func)
{
	const struct btf_type *proto = btf__type_by_id(btf, func->type), *t;
	const struct btf_param *args;
	__u32 i, nargs;
	int size;

	if (!proto || !btf_is_func_proto(proto))
		return false;
	args = btf_params(proto);
	nargs = btf_vlen(proto);
	if (nargs > 12)
		return false;
	size = type_size(btf, proto->type, &t);
	if (size < 0 || (t && (btf_is_struct(t) || btf_is_union(t))))
		return false;
	for (i = 0; i < nargs; i++) {
		if (i == nargs - 1 && !args[i].type)
			return false;	/* varargs */
		size = type_size(btf, args[i].type, &t);
		if (size <= 0 || size > 16)
			return false;
	}
	return true;
}

/* Fill ns->ids: the one traceable BTF FUNC of each name, else 0. */
static int resolve_ids(struct names *ns)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct func *f = NULL, key, *hit;
	size_t nf = 0, cap = 0, i;
	__u32 id, n;

	if (!btf) {
		fprintf(stderr, "bpfpeer: no vmlinux BTF: %s\n", strerror(errno));
		return -errno;
	}
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t))
			continue;
		if (nf == cap) {
			cap = cap ? cap * 2 : 65536;
			f = realloc(f, cap * sizeof(*f));
			if (!f)
				return -ENOMEM;
		}
		f[nf].name = btf__name_by_offset(btf, t->name_off);
		f[nf].id = id;
		f[nf++].traceable = traceable(btf, t);
	}
	qsort(f, nf, sizeof(*f), cmp_func);
	ns->ids = calloc(ns->n ? ns->n : 1, sizeof(*ns->ids));
	if (!ns->ids)
		return -ENOMEM;
	for (i = 0; i < ns->n; i++) {
		key.name = ns->v[i];
		hit = bsearch(&key, f, nf, sizeof(*f), cmp_func);
		if (!hit)
			continue;
		/* bsearch lands on any of equal names: unique means no neighbour. */
		if ((hit > f && !strcmp(hit[-1].name, key.name)) ||
		    (hit + 1 < f + nf && !strcmp(hit[1].name, key.name)))
			continue;
		if (hit->traceable)
			ns->ids[i] = hit->id;
	}
	/* The names point into btf's strings, which stay until exit. */
	free(f);
	return 0;
}

/* ---- Grace periods, from batchprobe's stats header ---- */

struct gps {
	long long v[3];	/* -1: not counted */
};

static struct gps read_gps(void)
{
	static const char *keys[3] = { " rcu=", " rcu_tasks=", " rcu_tasks_rude=" };
	struct gps g = { { -1, -1, -1 } };
	char line[512], *p;
	FILE *f = fopen("/sys/kernel/debug/batchprobe/stats", "r");
	int i;

	if (!f)
		return g;
	if (fgets(line, sizeof(line), f)) {
		for (i = 0; i < 3; i++) {
			p = strstr(line, keys[i]);
			if (p && p[strlen(keys[i])] != '-')
				g.v[i] = atoll(p + strlen(keys[i]));
		}
	}
	fclose(f);
	return g;
}

static void gps_since(char *out, size_t len, struct gps a, struct gps b)
{
	size_t o = 0;
	int i;

	for (i = 0; i < 3; i++) {
		if (a.v[i] < 0 || b.v[i] < 0)
			o += snprintf(out + o, len - o, "%s-", i ? "/" : "");
		else
			o += snprintf(out + o, len - o, "%s%lld", i ? "/" : "", b.v[i] - a.v[i]);
	}
}

/* ---- One attachment of a mode ---- */

struct peer {
	const struct mode *m;
	struct names *ns;
	struct bpf_object *obj;
	struct peer_state *state;	/* the peer_state map's value, mmapped */
	struct bpf_program *prog[2];
	/* PER_FUNCTION: a program per function per side (-1: refused). */
	int *fds[2];
	/* KPROBE_MULTI, TRACING_MULTI: one link per side. */
	struct bpf_link *link[2];
	/* PER_FUNCTION: a link per function per side (-1: none). */
	int *links[2];
	/* Every program loaded, by id, to wait for at detach. */
	__u32 *prog_ids;
	size_t nprog_ids;
	size_t got;		/* functions attached on every side */
};

static const struct mode *find_mode(const char *name)
{
	size_t i;

	for (i = 0; i < NMODES; i++)
		if (!strcmp(modes[i].name, name))
			return &modes[i];
	return NULL;
}

static int remember_id(struct peer *p, int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		return -errno;
	p->prog_ids[p->nprog_ids++] = info.id;
	return 0;
}

static enum bpf_attach_type side_type(const struct peer *p, int side)
{
	return side ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
}

/* Picks the mode's programs of the open object: only they load; a
 * per-function mode's are tied to the first function. */
static int peer_pick(struct peer *p)
{
	const struct mode *m = p->m;
	struct bpf_program *prog;
	struct bpf_map *map;
	int side, err;

	bpf_object__for_each_program(prog, p->obj)
		bpf_program__set_autoload(prog, false);
	/*
	 * The record peers' maps (a 16-MiB ring buffer) are made only for
	 * them: the other modes' loads, which the bench times, stay as they
	 * were.
	 */
	bpf_object__for_each_map(map, p->obj)
		if (!strcmp(bpf_map__name(map), "peer_rb") || !strcmp(bpf_map__name(map), "rb_start"))
			bpf_map__set_autocreate(map, strstr(m->name, "-rb") != NULL);
	for (side = 0; side < 2; side++) {
		if (!m->prog[side])
			continue;
		p->prog[side] = bpf_object__find_program_by_name(p->obj, m->prog[side]);
		if (!p->prog[side])
			return -ENOENT;
		bpf_program__set_autoload(p->prog[side], true);
		if (m->kind == PER_FUNCTION) {
			if (!p->ns->n || !p->ns->ids[0])
				return -ENOENT;
			err = bpf_program__set_attach_target(p->prog[side], 0, p->ns->v[0]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Maps the loaded object's counters (its peer_state map). */
static int peer_map(struct peer *p)
{
	struct bpf_map *map = bpf_object__find_map_by_name(p->obj, "peer_state");

	if (!map)
		return -ENOENT;
	p->state = mmap(NULL, sysconf(_SC_PAGE_SIZE), PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(map), 0);
	if (p->state == MAP_FAILED) {
		p->state = NULL;
		return -errno;
	}
	return 0;
}

/* A per-function mode's side: one copy of the template's final
 * instructions (map references resolved) per other function, tied to that
 * function's BTF id. A function the kernel refuses keeps fd -1. */
static int peer_clone(struct peer *p, int side)
{
	const struct bpf_insn *insns = bpf_program__insns(p->prog[side]);
	size_t i, cnt = bpf_program__insn_cnt(p->prog[side]);
	int err;

	p->fds[side] = malloc(p->ns->n * sizeof(int));
	if (!p->fds[side])
		return -ENOMEM;
	for (i = 0; i < p->ns->n; i++)
		p->fds[side][i] = -1;
	p->fds[side][0] = bpf_program__fd(p->prog[side]);
	for (i = 1; i < p->ns->n; i++) {
		LIBBPF_OPTS(bpf_prog_load_opts, o,
			    .expected_attach_type = side_type(p, side),
			    .attach_btf_id = p->ns->ids[i]);

		p->fds[side][i] = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL",
						insns, cnt, &o);
		if (p->fds[side][i] < 0) {
			if (!quiet)
				fprintf(stderr, "bpfpeer: %s: load for %s: %s\n",
					p->m->name, p->ns->v[i], strerror(errno));
			continue;
		}
		err = remember_id(p, p->fds[side][i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Open and load the object with the mode's programs only. A per-function
 * mode loads its templates on the first function, then clones them for
 * the others (peer_clone).
 */
static int peer_load(struct peer *p)
{
	const struct mode *m = p->m;
	const char *obj = peer_obj, *end = peer_obj_end;
	int side, err;

#ifdef PEER_MULTI_OBJ
	if (m->multi_obj) {
		obj = peer_multi_obj;
		end = peer_multi_obj_end;
	}
#endif
	p->prog_ids = calloc(2 * p->ns->n + 2, sizeof(*p->prog_ids));
	if (!p->prog_ids)
		return -ENOMEM;
	p->obj = bpf_object__open_mem(obj, end - obj, NULL);
	if (!p->obj)
		return -errno;
	err = peer_pick(p);
	if (!err)
		err = bpf_object__load(p->obj);
	if (!err)
		err = peer_map(p);
	for (side = 0; side < 2 && !err; side++) {
		if (!p->prog[side])
			continue;
		err = remember_id(p, bpf_program__fd(p->prog[side]));
		if (!err && m->kind == PER_FUNCTION)
			err = peer_clone(p, side);
	}
	return err;
}

static int peer_attach(struct peer *p)
{
	const struct mode *m = p->m;
	size_t i, n = p->ns->n;
	int side;

	p->got = 0;
	for (side = 0; side < 2; side++) {
		if (!p->prog[side])
			continue;
		if (m->kind == KPROBE_MULTI) {
			LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)p->ns->v,
				    .cnt = n, .retprobe = side == 1);

			p->link[side] = bpf_program__attach_kprobe_multi_opts(p->prog[side],
									       NULL, &o);
			if (!p->link[side])
				return -errno;
		} else if (m->kind == TRACING_MULTI) {
#ifdef PEER_MULTI_OBJ
			LIBBPF_OPTS(bpf_tracing_multi_opts, o, .ids = p->ns->ids, .cnt = n);

			p->link[side] = bpf_program__attach_tracing_multi(p->prog[side], NULL, &o);
			if (!p->link[side])
				return -errno;
#endif
		} else {
			p->links[side] = malloc(n * sizeof(int));
			if (!p->links[side])
				return -ENOMEM;
			for (i = 0; i < n; i++) {
				p->links[side][i] = -1;
				if (p->fds[side][i] < 0)
					continue;
				p->links[side][i] = bpf_link_create(p->fds[side][i], 0,
								    side_type(p, side), NULL);
				if (p->links[side][i] < 0 && !quiet)
					fprintf(stderr, "bpfpeer: %s: attach to %s: %s\n",
						m->name, p->ns->v[i], strerror(errno));
			}
		}
	}
	if (m->kind != PER_FUNCTION) {
		p->got = n;
		return 0;
	}
	for (i = 0; i < n; i++) {
		bool all = true;

		for (side = 0; side < 2; side++)
			if (p->prog[side] && p->links[side][i] < 0)
				all = false;
		p->got += all;
	}
	return p->got ? 0 : -ENOENT;
}

/* Close every link and program, then wait until the kernel has let go of them. */
static void peer_detach(struct peer *p)
{
	unsigned long long t0;
	size_t i, k;
	int side, fd;

	for (side = 0; side < 2; side++) {
		if (p->link[side])
			bpf_link__destroy(p->link[side]);
		p->link[side] = NULL;
		for (i = 0; p->links[side] && i < p->ns->n; i++)
			if (p->links[side][i] >= 0)
				close(p->links[side][i]);
		free(p->links[side]);
		p->links[side] = NULL;
		/* fds[side][0] is the template's: the object closes it. */
		for (i = 1; p->fds[side] && i < p->ns->n; i++)
			if (p->fds[side][i] >= 0)
				close(p->fds[side][i]);
		free(p->fds[side]);
		p->fds[side] = NULL;
	}
	if (p->state)
		munmap(p->state, sysconf(_SC_PAGE_SIZE));
	p->state = NULL;
	bpf_object__close(p->obj);
	p->obj = NULL;
	/* Bounded: a program the kernel never lets go of is reported, not waited for. */
	t0 = now_ns();
	for (k = 0; k < p->nprog_ids;) {
		fd = bpf_prog_get_fd_by_id(p->prog_ids[k]);
		if (fd < 0) {
			k++;
			continue;
		}
		close(fd);
		if (now_ns() - t0 > 300 * 1000000000ULL) {
			fprintf(stderr, "bpfpeer: program id %u still loaded 300 s after detach\n",
				p->prog_ids[k]);
			break;
		}
		usleep(1000);
	}
	free(p->prog_ids);
	p->prog_ids = NULL;
	p->nprog_ids = 0;
}

static void raise_nofile(size_t n)
{
	struct rlimit r = { .rlim_cur = 4 * n + 256, .rlim_max = 4 * n + 256 };

	if (setrlimit(RLIMIT_NOFILE, &r) && !quiet)
		fprintf(stderr, "bpfpeer: RLIMIT_NOFILE %zu: %s\n", 4 * n + 256, strerror(errno));
}

static int setup(struct peer *p, const char *mode, struct names *ns)
{
	size_t i, k = 0;
	int err;

	memset(p, 0, sizeof(*p));
	p->m = find_mode(mode);
	if (!p->m) {
		fprintf(stderr, "bpfpeer: no mode %s here (bpfpeer modes)\n", mode);
		return -EINVAL;
	}
	p->ns = ns;
	raise_nofile(ns->n);
	if (p->m->kind == KPROBE_MULTI)
		return 0;
	err = resolve_ids(ns);
	if (err)
		return err;
	/* An id-based mode takes the names with a BTF id; say which it drops. */
	for (i = 0; i < ns->n; i++) {
		if (ns->ids[i]) {
			ns->v[k] = ns->v[i];
			ns->ids[k++] = ns->ids[i];
		} else if (!quiet) {
			fprintf(stderr, "bpfpeer: %s: no single traceable BTF function %s\n",
				mode, ns->v[i]);
		}
	}
	ns->n = k;
	return ns->n ? 0 : -ENOENT;
}

/* ---- Commands ---- */

static int cmd_filter(void)
{
	struct names ns;
	size_t i;

	if (read_names(&ns) || resolve_ids(&ns))
		return 1;
	for (i = 0; i < ns.n; i++)
		if (ns.ids[i])
			printf("%s\n", ns.v[i]);
	return 0;
}

/* Attach (load + attach + detach) names [lo, hi); print what is taken. */
static void accept_range(struct peer *p, struct names *all, size_t lo, size_t hi)
{
	struct names sub = { all->v + lo, all->ids ? all->ids + lo : NULL, hi - lo };
	struct peer q = *p;
	size_t i;
	int err;

	if (lo >= hi)
		return;
	q.ns = &sub;
	err = peer_load(&q);
	if (!err && q.m->kind != PER_FUNCTION)
		err = peer_attach(&q);
	if (!err && q.m->kind == PER_FUNCTION) {
		for (i = 0; i < sub.n; i++) {
			bool ok = true;
			int side;

			for (side = 0; side < 2; side++)
				if (q.prog[side] && q.fds[side][i] < 0)
					ok = false;
			if (ok)
				printf("%s\n", sub.v[i]);
		}
	} else if (!err) {
		for (i = 0; i < sub.n; i++)
			printf("%s\n", sub.v[i]);
	}
	peer_detach(&q);
	if (err && hi - lo > 1) {
		accept_range(p, all, lo, lo + (hi - lo) / 2);
		accept_range(p, all, lo + (hi - lo) / 2, hi);
	}
}

static int cmd_accept(const char *mode)
{
	struct names ns;
	struct peer p;

	quiet = true;
	if (read_names(&ns) || setup(&p, mode, &ns))
		return 1;
	accept_range(&p, &ns, 0, ns.n);
	return 0;
}

static int cmd_bench(const char *mode)
{
	unsigned long long t0, t1, t2, t3, t4;
	char lg[64], kg[64], ag[64], dg[64];
	struct gps s0, s1, s2;
	struct names ns;
	struct peer p;
	int err;

	if (read_names(&ns) || setup(&p, mode, &ns))
		return 1;
	s0 = read_gps();
	t0 = now_ns();
	err = peer_load(&p);
	t1 = now_ns();
	s1 = read_gps();
	if (err) {
		fprintf(stderr, "bpfpeer: %s: load: %s\n", mode, strerror(-err));
		return 1;
	}
	t2 = now_ns();
	err = peer_attach(&p);
	t3 = now_ns();
	gps_since(lg, sizeof(lg), s0, s1);
	gps_since(kg, sizeof(kg), s1, s2 = read_gps());
	gps_since(ag, sizeof(ag), s0, s2);
	if (err)
		fprintf(stderr, "bpfpeer: %s: attach %zu functions: %s\n", mode, ns.n,
			strerror(-err));
	s0 = read_gps();
	t4 = now_ns();
	peer_detach(&p);
	t4 = now_ns() - t4;
	gps_since(dg, sizeof(dg), s0, read_gps());
	printf("load_ns=%llu link_ns=%llu attach_ns=%llu detach_ns=%llu got=%zu "
	       "load_gp=%s link_gp=%s attach_gp=%s detach_gp=%s\n",
	       t1 - t0, t3 - t2, (t1 - t0) + (t3 - t2), t4, err ? 0 : p.got, lg, kg, ag, dg);
	return err ? 1 : 0;
}

/* Set up, load and attach MODE on ns (func: how to name it in an error). */
static int attach_named(struct peer *p, const char *mode, const char *func, struct names *ns)
{
	int err = setup(p, mode, ns);

	if (err)
		return err;
	err = peer_load(p);
	if (!err)
		err = peer_attach(p);
	if (err) {
		fprintf(stderr, "bpfpeer: %s on %s: %s\n", mode, func, strerror(-err));
		peer_detach(p);
	}
	return err;
}

static int cmd_run(const char *mode, const char *func, char **argv)
{
	char *name = strdup(func);
	struct names ns = { &name, NULL, 1 };
	int go[2], status = 0;
	struct peer p;
	char c = 0;
	pid_t pid;

	if (!strcmp(func, "-") && read_names(&ns))
		return 2;
	if (!name || attach_named(&p, mode, func, &ns))
		return 2;
	if (pipe(go))
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* Counted from here on: wait until the parent has said so. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	if (pid < 0)
		return 2;
	p.state->target_tgid = pid;
	if (write(go[1], &c, 1) != 1 || waitpid(pid, &status, 0) < 0)
		return 2;
	printf("bpfpeer: entry=%llu exit=%llu rb_drops=%llu\n",
	       (unsigned long long)p.state->entry_hits, (unsigned long long)p.state->exit_hits,
	       (unsigned long long)p.state->rb_drops);
	peer_detach(&p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * Attach MODE on FUNC counting this process's calls only, call getppid()
 * n times, and print what the programs counted: nothing but those calls
 * runs in this process between the two reads, so the counts are exact.
 */
static int cmd_count(const char *mode, const char *func, const char *count)
{
	char *name = strdup(func);
	struct names ns = { &name, NULL, 1 };
	unsigned long long e0, x0, i, n = strtoull(count, NULL, 0);
	struct peer p;

	if (!name || !n || attach_named(&p, mode, func, &ns))
		return 2;
	p.state->target_tgid = getpid();
	e0 = p.state->entry_hits;
	x0 = p.state->exit_hits;
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("entry=%llu exit=%llu\n", (unsigned long long)p.state->entry_hits - e0,
	       (unsigned long long)p.state->exit_hits - x0);
	peer_detach(&p);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	libbpf_set_print(print_libbpf);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "modes")) {
		for (i = 0; i < NMODES; i++)
			printf("%s\n", modes[i].name);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "filter"))
		return cmd_filter();
	if (argc == 3 && !strcmp(argv[1], "accept"))
		return cmd_accept(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "bench"))
		return cmd_bench(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "count"))
		return cmd_count(argv[2], argv[3], argv[4]);
	if (argc >= 6 && !strcmp(argv[1], "run") && !strcmp(argv[4], "--"))
		return cmd_run(argv[2], argv[3], argv + 5);
	fprintf(stderr, "usage: bpfpeer modes | filter | accept MODE | bench MODE | "
			"count MODE FUNC N | run MODE FUNC -- CMD ARG...\n");
	return 2;
}
