// SPDX-License-Identifier: GPL-2.0
/*
 * bpclient_c: a sample in-kernel client of batchprobe, in C.
 *
 * At load it creates one set through batchprobe's exported API
 * (include/batchprobe.h) with its own handler:
 *   target 0: a kprobe on version_proc_show (cat /proc/version calls it),
 *             recording the first argument register;
 *   target 1: a kretprobe on version_proc_show, recording the return value;
 *   target 2: an ftrace-direct call on version_proc_show, recording its
 *             first argument (the same seq_file the kprobe sees);
 *   then one target per name in the kprobes=, kretprobes= and direct=
 *   parameters (comma-separated; kprobes take SYM or SYM+OFF; a module
 *   parameter string holds at most 1024 bytes), then one per line written
 *   to bpclient_c/targets ("p SYM[+OFF]", "r SYM", "d SYM"; any number of
 *   writes, BPCLIENT_TARGETS_MAX bytes in all).
 * With exits= (comma-separated SYM), a second set, "exits", of
 * BATCHPROBE_DIRECT_EXIT targets, created and enabled at load; or, from
 * the "x SYM" lines written to bpclient_c/targets, by the control word
 * create_exits (the bench times it). Its own handler counts each target's
 * entries and returns and keeps the last first argument, return value and
 * duration (bpclient_c/exits); the control word retire_exits retires it
 * (batchprobe_unregister_sync()).
 * The handler counts hits per target. With reenter=1 it also calls
 * jiffies_to_msecs() on every direct hit: with direct=jiffies_to_msecs it
 * re-enters its own set, as a handler that calls traced code does (the
 * selftest of batchprobe's recursion refusal uses it).
 * The set is created at load, unless
 * defer=1 (then by a "create" written to bpclient_c/control, once the
 * targets file is filled), and enabled unless enable=0.
 *
 * debugfs bpclient_c/control takes one word per write:
 *   create                batchprobe_create() (with defer=1)
 *   enable | disable      batchprobe_enable() / batchprobe_disable()
 *   retire                batchprobe_unregister() with a completion
 *                         callback, then waits for the completion
 *   retire_nowait         batchprobe_unregister() with the callback, returns
 *   retire_again          batchprobe_unregister() once more (must fail)
 * bpclient_c/status shows the client's own counts and what it recorded;
 * bpclient_c/counts shows batchprobe_read_counts() per target;
 * bpclient_c/errors shows what each bad call of the API returned at load
 * (with check_api=1).
 *
 * Lifetime: while the set exists, batchprobe holds a reference on this
 * module, so rmmod fails until a retire has completed (see the header).
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <batchprobe.h>

static char *kprobes;
module_param(kprobes, charp, 0400);
MODULE_PARM_DESC(kprobes, "comma-separated SYM[+OFF] to add as kprobes");
static char *kretprobes;
module_param(kretprobes, charp, 0400);
MODULE_PARM_DESC(kretprobes, "comma-separated SYM to add as kretprobes");
static char *direct;
module_param(direct, charp, 0400);
MODULE_PARM_DESC(direct, "comma-separated SYM to add as ftrace-direct calls");
static bool enable = true;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the set when created (default: yes)");
static bool check_api;
module_param(check_api, bool, 0400);
MODULE_PARM_DESC(check_api, "at load, call the API with bad arguments and record what it returned");
static bool fail_init;
module_param(fail_init, bool, 0400);
MODULE_PARM_DESC(fail_init, "fail module_init after creating and enabling the set, without retiring it");
static atomic64_t fail_init_hits[64];
static bool reenter;
module_param(reenter, bool, 0400);
MODULE_PARM_DESC(reenter, "the handler calls jiffies_to_msecs() on every direct hit (a test hook)");
static bool defer;
module_param(defer, bool, 0400);
static char *exits;
module_param(exits, charp, 0400);
MODULE_PARM_DESC(exits, "comma-separated SYM: a second set, \"exits\", of direct_exit targets");
MODULE_PARM_DESC(defer, "create the set on a \"create\" control write, not at load");

/* The most bytes of target lines bpclient_c/targets keeps. */
#define BPCLIENT_TARGETS_MAX (1 << 20)

#define FIXED_TARGETS 3

struct client {
	struct batchprobe_set *set;
	unsigned int count;
	atomic64_t *hits;		/* per target, counted by our handler */
	unsigned long kprobe_di;	/* target 0: regs->di at the kprobe */
	long retval;			/* target 1: the return value */
	unsigned long direct_arg0;	/* target 2: args[0] of the direct call */
	atomic_t bad_kind;		/* hits whose kind did not match */
	struct completion retired;
	atomic_t done_calls;
	char errors[1024];
	unsigned int reenter_sink;	/* what jiffies_to_msecs() returned (reenter=1) */
	struct mutex lock;		/* serialises control and targets writes */
	char *lines;			/* what was written to targets */
	size_t lines_len;
};

static struct client client;
static struct dentry *dir;

/* One direct_exit target's counts (the exits set). */
struct exit_counts {
	atomic64_t entries;
	atomic64_t returns;
	atomic64_t bad;			/* hits not as the header says */
	atomic64_t sum_ns;		/* the returns' durations */
	unsigned long last_arg0;	/* args[0] at the last entry */
	unsigned long last_ret;		/* retval at the last return */
	u64 last_ns;			/* duration_ns at the last return */
};

static struct {
	struct batchprobe_set *set;
	unsigned int count;
	struct exit_counts *per;
} xs;

/*
 * The exits set's handler: at entry (no BATCHPROBE_HIT_RETURN) the
 * arguments, at return the return value and the duration; the other
 * fields are 0. Same context rules as the other handler.
 */
static notrace void exit_handler(void *ctx, unsigned int index, const struct batchprobe_hit *hit)
{
	struct exit_counts *e;

	if (index >= xs.count)
		return;
	e = &xs.per[index];
	if (hit->kind != BATCHPROBE_DIRECT_EXIT || hit->regs) {
		atomic64_inc(&e->bad);
	} else if (hit->flags & BATCHPROBE_HIT_RETURN) {
		if (hit->args[0] || hit->args[5])
			atomic64_inc(&e->bad);
		atomic64_inc(&e->returns);
		atomic64_add(hit->duration_ns, &e->sum_ns);
		WRITE_ONCE(e->last_ret, hit->retval);
		WRITE_ONCE(e->last_ns, hit->duration_ns);
	} else {
		if (hit->flags || hit->retval || hit->duration_ns)
			atomic64_inc(&e->bad);
		atomic64_inc(&e->entries);
		WRITE_ONCE(e->last_arg0, hit->args[0]);
	}
}

NOKPROBE_SYMBOL(exit_handler);

/*
 * Runs in the probed code's context (see the header): no locks, no
 * allocation, and notrace, since direct calls may come from any function.
 */
static notrace void handler(void *ctx, unsigned int index, const struct batchprobe_hit *hit)
{
	struct client *c = ctx;

	if (index >= c->count)
		return;
	atomic64_inc(&c->hits[index]);
	if (reenter && hit->kind == BATCHPROBE_DIRECT)
		WRITE_ONCE(c->reenter_sink, jiffies_to_msecs(READ_ONCE(jiffies)));
	switch (index) {
	case 0:
		if (hit->kind != BATCHPROBE_KPROBE || !hit->regs)
			atomic_inc(&c->bad_kind);
		else
			WRITE_ONCE(c->kprobe_di, hit->regs->di);
		break;
	case 1:
		if (hit->kind != BATCHPROBE_KRETPROBE || !hit->regs)
			atomic_inc(&c->bad_kind);
		else
			WRITE_ONCE(c->retval, regs_return_value(hit->regs));
		break;
	case 2:
		if (hit->kind != BATCHPROBE_DIRECT || hit->regs)
			atomic_inc(&c->bad_kind);
		else
			WRITE_ONCE(c->direct_arg0, hit->args[0]);
		break;
	}
}

NOKPROBE_SYMBOL(handler);

/* Called from batchprobe's workqueue when the teardown has completed. */
static void retired(void *arg)
{
	struct client *c = arg;

	atomic_inc(&c->done_calls);
	pr_info("bpclient_c: retire completed\n");
	complete(&c->retired);
}

static unsigned int count_list(const char *s)
{
	unsigned int n = 0;

	if (!s || !*s)
		return 0;
	for (n = 1; *s; s++)
		n += *s == ',';
	return n;
}

/* Splits @list (modified in place) into targets of @kind from *@i on. */
static int add_list(struct batchprobe_target *t, unsigned int *i, char *list,
		    enum batchprobe_kind kind)
{
	char *name;

	while (list && (name = strsep(&list, ",")) != NULL) {
		char *plus = strchr(name, '+');

		if (!*name)
			continue;
		t[*i].kind = kind;
		t[*i].symbol = name;
		if (plus) {
			*plus = '\0';
			if (kstrtouint(plus + 1, 0, &t[*i].offset))
				return -EINVAL;
		}
		(*i)++;
	}
	return 0;
}

/* An address in this module, not in core-kernel text. */
static noinline void bpclient_marker(void)
{
}

/* Creates a set from DESC, which must fail: appends "LABEL ERRNO" to the
 * client's errors at *LEN (0 if the create went through: it is undone). */
static void try_create(struct client *c, size_t *len, const char *label,
		       const struct batchprobe_set_desc *desc)
{
	struct batchprobe_set *s = batchprobe_create(desc);

	if (!IS_ERR(s)) {
		batchprobe_unregister_sync(s);
		batchprobe_put(s);
		s = ERR_PTR(0);
	}
	*len += scnprintf(c->errors + *len, sizeof(c->errors) - *len,
			  "%s %ld\n", label, PTR_ERR(s));
}

/* The descriptor's checks: D is a valid one, each try breaks one field. */
static void check_desc_errors(struct client *c, size_t *len,
			      const struct batchprobe_set_desc *d)
{
	static const char long_name[] =
		"a_name_longer_than_BATCHPROBE_MAX_NAME_which_is_48_bytes";
	struct batchprobe_set_desc e;

	try_create(c, len, "null_desc", NULL);
	e = *d; e.targets = NULL;
	try_create(c, len, "null_targets", &e);
	e = *d; e.count = 0;
	try_create(c, len, "zero_count", &e);
	e = *d; e.count = BATCHPROBE_MAX_TARGETS + 1;
	try_create(c, len, "too_many", &e);
	e = *d; e.handler = NULL;
	try_create(c, len, "null_handler", &e);
	e = *d; e.owner = NULL;
	try_create(c, len, "null_owner", &e);
	e = *d; e.name = NULL;
	try_create(c, len, "null_name", &e);
	e = *d; e.name = long_name;
	try_create(c, len, "long_name", &e);
	e = *d; e.name = "bad-name";
	try_create(c, len, "bad_name", &e);
	e = *d; e.flags = 0x80000000;
	try_create(c, len, "bad_flags", &e);
}

/* The target's checks: D's one target is GOOD, each try breaks it. */
static void check_target_errors(struct client *c, size_t *len,
				const struct batchprobe_set_desc *d,
				const struct batchprobe_target *good)
{
	struct batchprobe_target bad;
	struct batchprobe_set_desc e = *d;
	char *sym;

	e.targets = &bad;
	bad = *good; bad.kind = 7;
	try_create(c, len, "bad_kind", &e);
	bad = *good; bad.addr = 0x1000;
	try_create(c, len, "symbol_and_addr", &e);
	bad = *good; bad.symbol = NULL;
	try_create(c, len, "neither_symbol_nor_addr", &e);
	bad = *good; bad.symbol = NULL; bad.addr = (unsigned long)bpclient_marker; bad.offset = 1;
	try_create(c, len, "addr_with_offset", &e);
	bad = *good; bad.kind = BATCHPROBE_KRETPROBE; bad.offset = 4;
	try_create(c, len, "kretprobe_offset", &e);
	bad = *good; bad.symbol = "batchprobe_no_such_symbol";
	try_create(c, len, "unknown_symbol", &e);
	bad = *good; bad.kind = BATCHPROBE_DIRECT; bad.symbol = "batchprobe_no_such_symbol";
	try_create(c, len, "unknown_direct_symbol", &e);
	sym = kmalloc(BATCHPROBE_MAX_SYMBOL + 2, GFP_KERNEL);
	if (sym) {
		memset(sym, 'a', BATCHPROBE_MAX_SYMBOL + 1);
		sym[BATCHPROBE_MAX_SYMBOL + 1] = '\0';
		bad = *good; bad.symbol = sym;
		try_create(c, len, "long_symbol", &e);
		kfree(sym);
	}
}

/* The API's argument checks, each expected to fail with a documented errno. */
static void check_errors(struct client *c)
{
	struct batchprobe_target good = { .symbol = "version_proc_show",
					  .kind = BATCHPROBE_KPROBE };
	struct batchprobe_set_desc d = {
		.owner = THIS_MODULE, .name = "bad", .targets = &good,
		.count = 1, .handler = handler, .ctx = c,
	};
	size_t len = 0;

	struct batchprobe_target two[2] = {
		{ .symbol = "version_proc_show", .kind = BATCHPROBE_DIRECT },
		{ .symbol = "version_proc_show", .kind = BATCHPROBE_DIRECT_EXIT },
	};
	struct batchprobe_target noreturn = { .symbol = "do_exit",
					      .kind = BATCHPROBE_DIRECT_EXIT };
	struct batchprobe_set_desc e = d;

	check_desc_errors(c, &len, &d);
	check_target_errors(c, &len, &d, &good);
	e.targets = two;
	e.count = 2;
	try_create(c, &len, "direct_exit_mixed", &e);
	e.targets = &noreturn;
	e.count = 1;
	try_create(c, &len, "direct_exit_noreturn", &e);
	len += scnprintf(c->errors + len, sizeof(c->errors) - len,
			 "enable_null %d\n", batchprobe_enable(NULL));
	len += scnprintf(c->errors + len, sizeof(c->errors) - len,
			 "unregister_null %d\n", batchprobe_unregister(NULL, NULL, NULL));
	len += scnprintf(c->errors + len, sizeof(c->errors) - len,
			 "read_counts_null %d\n", batchprobe_read_counts(NULL, NULL, 0));
}

static int status_show(struct seq_file *m, void *v)
{
	struct client *c = &client;
	u64 total = 0;
	unsigned int i;

	if (!smp_load_acquire(&c->set)) {
		seq_puts(m, "no set\n");
		return 0;
	}
	for (i = 0; i < c->count; i++)
		total += atomic64_read(&c->hits[i]);
	seq_printf(m, "targets=%u hits0=%lld hits1=%lld hits2=%lld total=%llu\n",
		   c->count, atomic64_read(&c->hits[0]), atomic64_read(&c->hits[1]),
		   atomic64_read(&c->hits[2]), total);
	seq_printf(m, "kprobe_di=%lx direct_arg0=%lx retval=%ld bad_kind=%d done_calls=%d\n",
		   READ_ONCE(c->kprobe_di), READ_ONCE(c->direct_arg0), READ_ONCE(c->retval),
		   atomic_read(&c->bad_kind), atomic_read(&c->done_calls));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int counts_show(struct seq_file *m, void *v)
{
	struct client *c = &client;
	struct batchprobe_counts *counts;
	int n, i;

	if (!smp_load_acquire(&c->set))
		return 0;
	counts = kvcalloc(c->count, sizeof(*counts), GFP_KERNEL);
	if (!counts)
		return -ENOMEM;
	n = batchprobe_read_counts(c->set, counts, c->count);
	for (i = 0; i < n; i++)
		seq_printf(m, "%d hits=%llu missed=%llu mine=%lld\n", i, counts[i].hits,
			   counts[i].missed, atomic64_read(&c->hits[i]));
	kvfree(counts);
	return n < 0 ? n : 0;
}
DEFINE_SHOW_ATTRIBUTE(counts);

static int errors_show(struct seq_file *m, void *v)
{
	seq_puts(m, client.errors);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(errors);

static int exits_show(struct seq_file *m, void *v)
{
	unsigned int i;

	if (!smp_load_acquire(&xs.set))
		return 0;
	for (i = 0; i < xs.count; i++) {
		struct exit_counts *e = &xs.per[i];

		seq_printf(m, "%u entries=%lld returns=%lld bad=%lld sum_ns=%lld last_arg0=%lx last_ret=%ld last_ns=%llu\n",
			   i, atomic64_read(&e->entries), atomic64_read(&e->returns),
			   atomic64_read(&e->bad), atomic64_read(&e->sum_ns),
			   READ_ONCE(e->last_arg0), (long)READ_ONCE(e->last_ret),
			   READ_ONCE(e->last_ns));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(exits);

static unsigned int count_lines(const char *s);

/* Adds one DIRECT_EXIT target per "x SYM" line of @text (modified). */
static int add_exit_lines(struct batchprobe_target *t, unsigned int *i, unsigned int max,
			  char *text)
{
	char *line;

	while (text && (line = strsep(&text, "\n")) != NULL) {
		line = strim(line);
		if (line[0] != 'x' || line[1] != ' ')
			continue;
		if (*i >= max)
			return -E2BIG;
		t[*i].kind = BATCHPROBE_DIRECT_EXIT;
		t[*i].symbol = skip_spaces(line + 2);
		(*i)++;
	}
	return 0;
}

/*
 * The exits set (exits=, or the "x SYM" lines written to targets):
 * created and enabled, or an error. Called with the client's lock held,
 * or from init.
 */
static int create_exits(struct client *c)
{
	struct batchprobe_set_desc desc = {
		.owner = THIS_MODULE, .name = "exits", .handler = exit_handler,
	};
	struct batchprobe_target *t;
	struct batchprobe_set *set;
	unsigned int n = count_list(exits) + count_lines(c->lines), i = 0;
	char *list = exits ? kstrdup(exits, GFP_KERNEL) : NULL;
	char *lines = c->lines ? kvmemdup(c->lines, c->lines_len + 1, GFP_KERNEL) : NULL;
	int ret = -ENOMEM;

	if (xs.set || xs.per)
		return -EEXIST;
	t = kvcalloc(n, sizeof(*t), GFP_KERNEL);
	xs.per = kvcalloc(n, sizeof(*xs.per), GFP_KERNEL);
	if ((exits && !list) || (c->lines && !lines) || !t || !xs.per)
		goto out;
	ret = add_list(t, &i, list, BATCHPROBE_DIRECT_EXIT) ?:
	      add_exit_lines(t, &i, n, lines);
	if (ret)
		goto out;
	ret = -ENOENT;
	if (!i)
		goto out;
	xs.count = i;
	desc.targets = t;
	desc.count = i;
	set = batchprobe_create(&desc);
	ret = PTR_ERR_OR_ZERO(set);
	if (!ret) {
		ret = batchprobe_enable(set);
		if (ret) {
			batchprobe_unregister_sync(set);
			batchprobe_put(set);
		} else {
			smp_store_release(&xs.set, set);
		}
	}
	if (ret)
		pr_err("bpclient_c: exits set: %d\n", ret);
out:
	kfree(list);
	kvfree(lines);
	kvfree(t);
	if (ret) {
		kvfree(xs.per);
		xs.per = NULL;
		xs.count = 0;
	}
	return ret;
}


/* Adds one target per line of @text ("p SYM[+OFF]", "r SYM", "d SYM"). */
static int add_lines(struct batchprobe_target *t, unsigned int *i, unsigned int max, char *text)
{
	char *line;

	while (text && (line = strsep(&text, "\n")) != NULL) {
		enum batchprobe_kind kind;
		char *list;

		line = strim(line);
		if (!*line)
			continue;
		if (line[1] != ' ')
			return -EINVAL;
		switch (line[0]) {
		case 'p': kind = BATCHPROBE_KPROBE; break;
		case 'r': kind = BATCHPROBE_KRETPROBE; break;
		case 'd': kind = BATCHPROBE_DIRECT; break;
		case 'x': continue;	/* the exits set's (create_exits) */
		default: return -EINVAL;
		}
		if (*i >= max)
			return -E2BIG;
		list = skip_spaces(line + 2);
		if (strchr(list, ','))
			return -EINVAL;
		if (add_list(t, i, list, kind))
			return -EINVAL;
	}
	return 0;
}

static unsigned int count_lines(const char *s)
{
	unsigned int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n + 1;
}

/* Copies the target lists (the module parameters, the written lines) into
 * LISTS, for add_list and add_lines to cut up: the targets point into them. */
static int dup_lists(struct client *c, char *lists[4])
{
	lists[0] = kprobes ? kstrdup(kprobes, GFP_KERNEL) : NULL;
	lists[1] = kretprobes ? kstrdup(kretprobes, GFP_KERNEL) : NULL;
	lists[2] = direct ? kstrdup(direct, GFP_KERNEL) : NULL;
	lists[3] = c->lines ? kvmemdup(c->lines, c->lines_len + 1, GFP_KERNEL) : NULL;
	if ((kprobes && !lists[0]) || (kretprobes && !lists[1]) || (direct && !lists[2]) ||
	    (c->lines && !lists[3]))
		return -ENOMEM;
	return 0;
}

/* Creates the set of the COUNT targets T and, with enable=1, enables it;
 * publishes it in c->set (whose count and hits are set already). */
static int start_set(struct client *c, struct batchprobe_target *t, unsigned int count)
{
	struct batchprobe_set_desc desc = {
		.owner = THIS_MODULE, .name = "main", .targets = t,
		.count = count, .handler = handler, .ctx = c,
	};
	struct batchprobe_set *set = batchprobe_create(&desc);
	int ret;

	if (IS_ERR(set)) {
		ret = PTR_ERR(set);
		pr_err("bpclient_c: batchprobe_create: %d\n", ret);
		return ret;
	}
	if (enable) {
		ret = batchprobe_enable(set);
		if (ret) {
			pr_err("bpclient_c: batchprobe_enable: %d\n", ret);
			batchprobe_unregister_sync(set);
			batchprobe_put(set);
			return ret;
		}
	}
	smp_store_release(&c->set, set);	/* after count and hits */
	pr_info("bpclient_c: set main: %u targets\n", c->count);
	return 0;
}

/* Builds the target array and creates (and enables) the set. */
static int create_set(struct client *c)
{
	struct batchprobe_target *t;
	char *lists[4] = {};
	unsigned int n, i = FIXED_TARGETS;
	atomic64_t *hits;
	int ret = -ENOMEM;

	if (c->set)
		return -EEXIST;
	n = FIXED_TARGETS + count_list(kprobes) + count_list(kretprobes) + count_list(direct) +
	    count_lines(c->lines);
	t = kvcalloc(n, sizeof(*t), GFP_KERNEL);
	/*
	 * With fail_init the set outlives a failed init (batchprobe retires it
	 * as the module goes): its counters then live in module memory, which
	 * goes after that, so that the deliberately buggy init leaks nothing
	 * of its own.
	 */
	hits = fail_init && n <= ARRAY_SIZE(fail_init_hits) ? fail_init_hits :
							       kvcalloc(n, sizeof(*hits), GFP_KERNEL);
	if (!t || !hits || dup_lists(c, lists))
		goto out;
	t[0] = (struct batchprobe_target){ .symbol = "version_proc_show", .kind = BATCHPROBE_KPROBE };
	t[1] = (struct batchprobe_target){ .symbol = "version_proc_show", .kind = BATCHPROBE_KRETPROBE };
	t[2] = (struct batchprobe_target){ .symbol = "version_proc_show", .kind = BATCHPROBE_DIRECT };
	ret = add_list(t, &i, lists[0], BATCHPROBE_KPROBE) ?:
	      add_list(t, &i, lists[1], BATCHPROBE_KRETPROBE) ?:
	      add_list(t, &i, lists[2], BATCHPROBE_DIRECT) ?:
	      add_lines(t, &i, n, lists[3]);
	if (ret)
		goto out;
	/* The handler reads count and hits: set them before it can run. */
	c->hits = hits;
	c->count = i;
	ret = start_set(c, t, i);
out:
	/* batchprobe copied what it needs: the array and strings can go. */
	kfree(lists[0]);
	kfree(lists[1]);
	kfree(lists[2]);
	kvfree(lists[3]);
	kvfree(t);
	if (ret) {
		c->count = 0;
		c->hits = NULL;
		if (hits != fail_init_hits)
			kvfree(hits);
	}
	return ret;
}

static ssize_t control_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	struct client *c = &client;
	char buf[32];
	int ret;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	strim(buf);
	mutex_lock(&c->lock);
	if (!strcmp(buf, "create")) {
		ret = create_set(c);
	} else if (!strcmp(buf, "create_exits")) {
		ret = create_exits(c);
	} else if (!strcmp(buf, "retire_exits")) {
		ret = xs.set ? batchprobe_unregister_sync(xs.set) : -ENOENT;
	} else if (!c->set) {
		ret = -ENOENT;
	} else if (!strcmp(buf, "enable")) {
		ret = batchprobe_enable(c->set);
	} else if (!strcmp(buf, "disable")) {
		ret = batchprobe_disable(c->set);
	} else if (!strcmp(buf, "retire")) {
		ret = batchprobe_unregister(c->set, retired, c);
		mutex_unlock(&c->lock);
		/* Without the lock: other writes may go on meanwhile. */
		if (!ret)
			ret = wait_for_completion_killable(&c->retired);
		/* The module reference goes right after the callback returns. */
		if (!ret)
			batchprobe_flush();
		return ret ? ret : n;
	} else if (!strcmp(buf, "retire_nowait")) {
		ret = batchprobe_unregister(c->set, retired, c);
	} else if (!strcmp(buf, "retire_again")) {
		ret = batchprobe_unregister(c->set, retired, c);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&c->lock);
	return ret ? ret : n;
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.write = control_write,
};

static ssize_t targets_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	struct client *c = &client;
	char *grown;
	ssize_t ret = n;

	mutex_lock(&c->lock);
	if (c->set || c->lines_len + n > BPCLIENT_TARGETS_MAX) {
		ret = c->set ? -EBUSY : -E2BIG;
		goto out;
	}
	grown = kvrealloc(c->lines, c->lines_len + n + 1, GFP_KERNEL);
	if (!grown) {
		ret = -ENOMEM;
		goto out;
	}
	c->lines = grown;
	if (copy_from_user(c->lines + c->lines_len, ubuf, n)) {
		ret = -EFAULT;
		goto out;
	}
	c->lines_len += n;
	c->lines[c->lines_len] = '\0';
out:
	mutex_unlock(&c->lock);
	return ret;
}

static const struct file_operations targets_fops = {
	.owner = THIS_MODULE,
	.write = targets_write,
};

static int __init bpclient_init(void)
{
	struct client *c = &client;
	int ret;

	init_completion(&c->retired);
	mutex_init(&c->lock);
	if (check_api)
		check_errors(c);
	else
		strscpy(c->errors, "not checked (check_api=0)\n", sizeof(c->errors));
	if (exits && *exits) {
		ret = create_exits(c);
		if (ret)
			return ret;
	}
	if (!defer) {
		ret = create_set(c);
		if (ret) {
			if (xs.set) {
				/* No handler runs once this returns. */
				batchprobe_unregister_sync(xs.set);
				batchprobe_put(xs.set);
			}
			kvfree(xs.per);
			return ret;
		}
	}
	if (fail_init) {
		/*
		 * A buggy init: the module's memory is freed although the set
		 * holds a reference; batchprobe's module notifier retires the
		 * set before that. (Real code would batchprobe_unregister_sync()
		 * and batchprobe_put() here.)
		 */
		pr_info("bpclient_c: failing init with the set live\n");
		return -EAGAIN;
	}
	dir = debugfs_create_dir("bpclient_c", NULL);
	debugfs_create_file("control", 0200, dir, NULL, &control_fops);
	debugfs_create_file("targets", 0200, dir, NULL, &targets_fops);
	debugfs_create_file("status", 0400, dir, NULL, &status_fops);
	debugfs_create_file("counts", 0400, dir, NULL, &counts_fops);
	debugfs_create_file("errors", 0400, dir, NULL, &errors_fops);
	debugfs_create_file("exits", 0400, dir, NULL, &exits_fops);
	return 0;
}

/*
 * Runs only once batchprobe dropped its reference on this module, i.e.
 * after the set's teardown completed: no handler can run any more.
 */
static void __exit bpclient_exit(void)
{
	debugfs_remove_recursive(dir);
	batchprobe_put(client.set);	/* NULL (never created) is ignored */
	batchprobe_put(xs.set);
	kvfree(xs.per);
	if (client.hits != fail_init_hits)
		kvfree(client.hits);
	kvfree(client.lines);
	pr_info("bpclient_c: unloaded\n");
}

module_init(bpclient_init);
module_exit(bpclient_exit);
MODULE_DESCRIPTION("A sample in-kernel client of batchprobe, in C");
MODULE_LICENSE("GPL");
