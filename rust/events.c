// SPDX-License-Identifier: GPL-2.0
/*
 * Trace events for batchprobe's probes (src/events/tracefs.rs): a
 * trace_event_call per probe, under events/SET/EVENT/ in tracefs, and the
 * records its probe writes, laid out and printed as kprobe_events' own
 * (kernel/trace/trace_kprobe.c: "EVENT: (SYM+OFF)", "EVENT: (CALLER <- SYM)").
 *
 * The kernel's dynamic events add and remove their trace_event_call under
 * event_mutex (trace_add_event_call() asserts it), which modules cannot take.
 * The kernel takes it for us around a trace_event_class's reg(): this module
 * has one static event of its own, batchprobe/sync, in its _ftrace_events
 * section (the module loader registers it), and enabling then disabling it
 * with the exported trace_set_clr_event() calls its reg() with event_mutex
 * held, where the adds and removes a sync handed over run. Whichever reg()
 * call comes first does the work (a user may enable batchprobe/sync too:
 * that only runs it early), and one of the two calls always comes after the
 * hand-over, so the work is done when the second returns.
 */
#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/trace_seq.h>
#include <linux/workqueue.h>

#include "helpers.h"

/* One trace_event_file (a tracefs instance's) that has the event enabled. */
struct bp_event_link {
	struct list_head list;
	struct trace_event_file *file;
	struct rcu_head rcu;
};

/*
 * An event: its class (one per event, as a kprobe event's), its call, and
 * the files it is enabled in. Names live after the struct.
 */
struct bp_event {
	struct trace_event_call call;
	struct trace_event_class class;
	struct list_head files;		/* bp_event_link, RCU */
	struct list_head orphan;	/* on bp_orphans while busy at removal */
	atomic_t perf_users;		/* perf events registered on it */
	bool is_return;
	bool added;
	bool orphaned;			/* on bp_orphans (event_mutex held) */
	char names[];			/* "SYSTEM\0EVENT\0" */
};

/* The records, as kprobe_trace_entry_head and kretprobe_trace_entry_head. */
struct bp_entry_rec {
	struct trace_entry ent;
	unsigned long ip;
};

struct bp_return_rec {
	struct trace_entry ent;
	unsigned long func;
	unsigned long ret_ip;
};

/* ---- the records ---- */

/* A record's size, and its fields: @a, @b are ip, 0 or func, ret_ip. */
static notrace size_t bp_rec_size(struct bp_event *ev)
{
	return ev->is_return ? sizeof(struct bp_return_rec) : sizeof(struct bp_entry_rec);
}

static notrace void bp_rec_fill(struct bp_event *ev, void *rec, unsigned long a, unsigned long b)
{
	struct bp_return_rec *ret = rec;
	struct bp_entry_rec *entry = rec;

	if (ev->is_return) {
		ret->func = a;
		ret->ret_ip = b;
	} else {
		entry->ip = a;
	}
}

/*
 * The perf side (perf_event_open of the event's id), as kprobe_perf_func()
 * and kretprobe_perf_func() write it: the same record, to the perf events
 * open on this CPU. Without registers (7.3's fprobes), a tracepoint's:
 * the caller's, as perf_fetch_caller_regs() gives them.
 */
#ifdef CONFIG_PERF_EVENTS
static notrace void bp_perf_write(struct bp_event *ev, unsigned long a, unsigned long b,
				  struct pt_regs *regs)
{
	struct hlist_head __percpu *lists;
	struct hlist_head *head;
	struct pt_regs *own;
	int size, rctx;
	void *rec;

	if (!atomic_read(&ev->perf_users))
		return;
	lists = READ_ONCE(ev->call.perf_events);
	if (!lists)
		return;
	head = this_cpu_ptr(lists);
	if (hlist_empty(head))
		return;
	size = ALIGN(bp_rec_size(ev) + sizeof(u32), sizeof(u64)) - sizeof(u32);
	rec = perf_trace_buf_alloc(size, regs ? NULL : &own, &rctx);
	if (!rec)
		return;
	if (!regs) {
		perf_fetch_caller_regs(own);
		regs = own;
	}
	bp_rec_fill(ev, rec, a, b);
	perf_trace_buf_submit(rec, size, rctx, ev->call.event.type, 1, regs, head, NULL);
}
NOKPROBE_SYMBOL(bp_perf_write);
#else
static inline void bp_perf_write(struct bp_event *ev, unsigned long a, unsigned long b,
				 struct pt_regs *regs) {}
#endif

/* The tracefs side: every instance that has the event enabled. */
static notrace void bp_trace_write(struct bp_event *ev, unsigned long a, unsigned long b)
{
	struct bp_event_link *link;

	if (list_empty(&ev->files))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(link, &ev->files, list) {
		struct trace_event_buffer fbuffer;
		void *rec;

		if (trace_trigger_soft_disabled(link->file))
			continue;
		rec = trace_event_buffer_reserve(&fbuffer, link->file, bp_rec_size(ev));
		if (!rec)
			continue;
		bp_rec_fill(ev, rec, a, b);
		trace_event_buffer_commit(&fbuffer);
	}
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(bp_trace_write);

void notrace bp_event_entry(struct bp_event *ev, unsigned long ip, struct pt_regs *regs)
{
	bp_perf_write(ev, ip, 0, regs);
	bp_trace_write(ev, ip, 0);
}
NOKPROBE_SYMBOL(bp_event_entry);

void notrace bp_event_return(struct bp_event *ev, unsigned long func, unsigned long ret_ip,
			     struct pt_regs *regs)
{
	bp_perf_write(ev, func, ret_ip, regs);
	bp_trace_write(ev, func, ret_ip);
}
NOKPROBE_SYMBOL(bp_event_return);

/* ---- what tracefs shows: fields, format, the text of a record ---- */

static int bp_entry_fields(struct trace_event_call *call)
{
	return trace_define_field(call, "unsigned long", "__probe_ip",
				  offsetof(struct bp_entry_rec, ip),
				  sizeof(unsigned long), 0, FILTER_OTHER);
}

static int bp_return_fields(struct trace_event_call *call)
{
	int ret = trace_define_field(call, "unsigned long", "__probe_func",
				     offsetof(struct bp_return_rec, func),
				     sizeof(unsigned long), 0, FILTER_OTHER);

	return ret ?: trace_define_field(call, "unsigned long", "__probe_ret_ip",
					 offsetof(struct bp_return_rec, ret_ip),
					 sizeof(unsigned long), 0, FILTER_OTHER);
}

static struct trace_event_fields bp_entry_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = bp_entry_fields },
	{}
};

static struct trace_event_fields bp_return_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = bp_return_fields },
	{}
};

/*
 * seq_print_ip_sym() of kernel/trace/trace_output.c (not exported), as
 * kprobe events call it: SYM+OFF/SIZE (@offset) or SYM, "[unknown/
 * kretprobe'd]" for the return trampoline, "0" for 0, the address in hex
 * where no symbol is. (The sym-addr trace option, which appends the
 * address, is not honoured: its flag's value is private to the kernel.)
 */
static void bp_print_ip_sym(struct trace_seq *s, unsigned long ip, bool offset)
{
	char str[KSYM_SYMBOL_LEN];
	char *end;

	if (!ip) {
		trace_seq_putc(s, '0');
		return;
	}
	sprint_symbol(str, ip);
	/*
	 * is_kretprobe_trampoline(), by name: the trampoline is not exported
	 * (x86 has it as arch_rethook_trampoline on every kernel we build for).
	 */
	if (str_has_prefix(str, "arch_rethook_trampoline+0x0/") ||
	    str_has_prefix(str, "__kretprobe_trampoline+0x0/")) {
		trace_seq_puts(s, "[unknown/kretprobe'd]");
		return;
	}
	if (!offset) {
		/* kallsyms_lookup()'s name: no +OFF/SIZE, no " [module]". */
		end = strpbrk(str, "+ ");
		if (end && str[0] != '0')
			*end = '\0';
	}
	trace_seq_puts(s, str);
}

static enum print_line_t bp_entry_print(struct trace_iterator *iter, int flags,
					struct trace_event *event)
{
	struct bp_entry_rec *rec = (struct bp_entry_rec *)iter->ent;
	struct bp_event *ev = container_of(event, struct bp_event, call.event);

	trace_seq_printf(&iter->seq, "%s: (", trace_event_name(&ev->call));
	bp_print_ip_sym(&iter->seq, rec->ip, true);
	trace_seq_puts(&iter->seq, ")\n");
	return trace_handle_return(&iter->seq);
}

static enum print_line_t bp_return_print(struct trace_iterator *iter, int flags,
					 struct trace_event *event)
{
	struct bp_return_rec *rec = (struct bp_return_rec *)iter->ent;
	struct bp_event *ev = container_of(event, struct bp_event, call.event);

	trace_seq_printf(&iter->seq, "%s: (", trace_event_name(&ev->call));
	bp_print_ip_sym(&iter->seq, rec->ret_ip, true);
	trace_seq_puts(&iter->seq, " <- ");
	bp_print_ip_sym(&iter->seq, rec->func, false);
	trace_seq_puts(&iter->seq, ")\n");
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions bp_entry_funcs = { .trace = bp_entry_print };
static struct trace_event_functions bp_return_funcs = { .trace = bp_return_print };

/* ---- enabling: the files that take records ---- */

static void bp_orphan_idle(struct bp_event *ev);

static int bp_event_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct bp_event *ev = container_of(call, struct bp_event, call);
	struct trace_event_file *file = data;
	struct bp_event_link *link;

	switch (type) {
	case TRACE_REG_REGISTER:
		link = kzalloc(sizeof(*link), GFP_KERNEL);
		if (!link)
			return -ENOMEM;
		/* An enabled event keeps the module: rmmod says it is in use. */
		if (!try_module_get(THIS_MODULE)) {
			kfree(link);
			return -ENODEV;
		}
		link->file = file;
		list_add_tail_rcu(&link->list, &ev->files);
		return 0;
	case TRACE_REG_UNREGISTER:
		list_for_each_entry(link, &ev->files, list) {
			if (link->file != file)
				continue;
			list_del_rcu(&link->list);
			/* No grace period waited for: a handler still on it is safe. */
			kfree_rcu(link, rcu);
			module_put(THIS_MODULE);
			bp_orphan_idle(ev);
			return 0;
		}
		return -ENOENT;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		/* An event open by perf keeps the module too. */
		if (!try_module_get(THIS_MODULE))
			return -ENODEV;
		atomic_inc(&ev->perf_users);
		return 0;
	case TRACE_REG_PERF_UNREGISTER:
		atomic_dec(&ev->perf_users);
		module_put(THIS_MODULE);
		bp_orphan_idle(ev);
		return 0;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	default:
		return -EOPNOTSUPP;
	}
}

struct bp_event *bp_event_new(const char *system, const char *name, bool is_return)
{
	size_t ls = strlen(system) + 1, ln = strlen(name) + 1;
	struct bp_event *ev = kzalloc(struct_size(ev, names, ls + ln), GFP_KERNEL);

	if (!ev)
		return NULL;
	memcpy(ev->names, system, ls);
	memcpy(ev->names + ls, name, ln);
	INIT_LIST_HEAD(&ev->files);
	INIT_LIST_HEAD(&ev->orphan);
	atomic_set(&ev->perf_users, 0);
	ev->is_return = is_return;
	INIT_LIST_HEAD(&ev->class.fields);
	ev->class.system = ev->names;
	ev->class.reg = bp_event_reg;
	ev->class.fields_array = is_return ? bp_return_fields_array : bp_entry_fields_array;
	ev->call.class = &ev->class;
	ev->call.name = ev->names + ls;
	ev->call.flags = TRACE_EVENT_FL_DYNAMIC;
	ev->call.event.funcs = is_return ? &bp_return_funcs : &bp_entry_funcs;
	ev->call.print_fmt = is_return ?
		"\"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip" :
		"\"(%lx)\", REC->__probe_ip";
	return ev;
}

/* Frees an event that is not (or no longer) in tracefs. */
void bp_event_free(struct bp_event *ev)
{
	if (!ev || WARN_ON_ONCE(ev->added))
		return;
	kfree(ev);
}

int bp_event_exists(const char *system, const char *name)
{
	struct trace_event_file *file = trace_get_event_file(NULL, system, name);

	if (IS_ERR(file))
		return PTR_ERR(file) == -EINVAL ? 0 : 1;
	trace_put_event_file(file);
	return 1;
}

/* ---- adding and removing, under event_mutex (see the top) ---- */

/*
 * Events whose set retired while they were in use (enabled, open by perf,
 * referred to by another event): in tracefs without records until a sync
 * removes them. Each holds a reference on the module (tracefs still calls
 * its reg() and print code), and the sync that removes one puts it. One
 * that is disabled, or closed by perf, queues such a sync; one referred
 * to is retried at the next sync of any set.
 */
static LIST_HEAD(bp_orphans);
/* One sync at a time; never taken inside reg() (event_mutex is held there). */
static DEFINE_MUTEX(bp_sync_mutex);
/* The task running a sync: only its reg() calls do the work handed over. */
static struct task_struct *bp_sync_task;

static void bp_orphan_work_fn(struct work_struct *work);
static DECLARE_WORK(bp_orphan_work, bp_orphan_work_fn);

/* Under bp_sync_mutex. */
static void bp_orphan_adopt(struct bp_event *ev)
{
	__module_get(THIS_MODULE);
	WRITE_ONCE(ev->orphaned, true);
	list_add_tail(&ev->orphan, &bp_orphans);
}

static void bp_orphan_free(struct bp_event *ev)
{
	list_del(&ev->orphan);
	kfree(ev);
	module_put(THIS_MODULE);
}

/* From reg(), event_mutex held: an orphan no longer enabled may go now. */
static void bp_orphan_idle(struct bp_event *ev)
{
	if (READ_ONCE(ev->orphaned) && list_empty(&ev->files) && !atomic_read(&ev->perf_users))
		queue_work(system_long_wq, &bp_orphan_work);
}

struct bp_sync {
	struct bp_event **add;
	size_t nadd;
	struct bp_event **remove;
	size_t nremove;
	int ret;		/* of the adds: all or nothing */
	size_t busy;		/* removals left on bp_orphans */
	size_t removed;		/* events that left tracefs */
};

static struct bp_sync *bp_pending;

static int bp_event_add(struct bp_event *ev)
{
	int ret;

	if (!register_trace_event(&ev->call.event))
		return -ENODEV;
	ret = trace_add_event_call(&ev->call);
	if (ret) {
		unregister_trace_event(&ev->call.event);
		return ret;
	}
	ev->added = true;
	return 0;
}

/*
 * 0, or -EBUSY while it is enabled, open by perf, or referred to. Checked
 * before trace_remove_event_call(), as trace_kprobe's removal checks: a
 * removal it refuses clears every instance's clear_trace, the reset that
 * earlier removals of this sync asked for.
 */
static int bp_event_remove(struct bp_event *ev)
{
	int ret;

	/* trace_event_dyn_busy() (call->refcnt), which is not exported. */
	if (!list_empty(&ev->files) || atomic_read(&ev->perf_users) ||
	    atomic_read(&ev->call.refcnt))
		return -EBUSY;
	ret = trace_remove_event_call(&ev->call);
	if (!ret)
		ev->added = false;
	return ret;
}

static void bp_sync_run(struct bp_sync *s)
{
	struct bp_event *ev, *next;
	size_t i;

	list_for_each_entry_safe(ev, next, &bp_orphans, orphan) {
		if (!bp_event_remove(ev)) {
			bp_orphan_free(ev);
			s->removed++;
		}
	}
	for (i = 0; i < s->nremove; i++) {
		ev = s->remove[i];
		if (!ev->added)
			continue;
		if (bp_event_remove(ev)) {
			bp_orphan_adopt(ev);
			s->remove[i] = NULL;
			s->busy++;
		} else {
			s->removed++;
		}
	}
	for (i = 0; i < s->nadd; i++) {
		s->ret = bp_event_add(s->add[i]);
		if (s->ret)
			break;
	}
	if (s->ret) {
		while (i--)
			bp_event_remove(s->add[i]);
	}
}

static int bp_sync_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct bp_sync *s;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		/*
		 * Another task's (a user's write, an instance's removal, with
		 * locks of its own held) never takes the work.
		 */
		if (READ_ONCE(bp_sync_task) != current)
			return 0;
		s = xchg(&bp_pending, NULL);
		if (s)
			bp_sync_run(s);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static enum print_line_t bp_sync_print(struct trace_iterator *iter, int flags,
				       struct trace_event *event)
{
	trace_seq_puts(&iter->seq, "sync\n");
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions bp_sync_funcs = { .trace = bp_sync_print };
static struct trace_event_fields bp_sync_fields[] = { {} };
static struct trace_event_class bp_sync_class = {
	.system = "batchprobe",
	.reg = bp_sync_reg,
	.fields_array = bp_sync_fields,
	.fields = LIST_HEAD_INIT(bp_sync_class.fields),
	.raw_init = trace_event_raw_init,
};
static struct trace_event_call bp_sync_call = {
	.class = &bp_sync_class,
	.name = "sync",
	.event.funcs = &bp_sync_funcs,
	.print_fmt = "\"sync\"",
};
static struct trace_event_call __used __section("_ftrace_events") *bp_sync_ptr = &bp_sync_call;

/*
 * A removed event's records must not outlive it in the ring buffer: its
 * type id goes to the next event registered, which would read them as its
 * own. The kernel's dynamic events have their removal reset every buffer
 * that had them enabled (probe_remove_event_call() flags those, and
 * tracing_reset_all_online_cpus(), not exported, resets them).
 * kprobe_event_delete() of a name that no kprobe event has runs that reset
 * and nothing else (dyn_event_release() on 6.12 and 7.3): batchprobe/sync
 * is ours, so tracefs refuses it as a kprobe event's name.
 */
static void bp_reset_flagged_buffers(void)
{
#ifdef CONFIG_KPROBE_EVENTS
	kprobe_event_delete("batchprobe/sync");
#endif
}

/*
 * Adds @nadd events (all or none: the first error, the added ones removed
 * again) and removes @nremove, each set to NULL once freed; one still in use
 * stays in tracefs, without records, until a later sync or bp_events_exit()
 * removes it (its slot is set to NULL too: this file owns it then).
 * Returns the adds' error, or -EBUSY if the sync could not run (then no add
 * was made, and every event to remove is this file's, for a later sync).
 */
int bp_events_sync(struct bp_event **add, size_t nadd, struct bp_event **remove,
		   size_t nremove, size_t *busy)
{
	struct bp_sync s = {
		.add = add, .nadd = nadd, .remove = remove, .nremove = nremove,
	};
	int ret;
	size_t i;

	mutex_lock(&bp_sync_mutex);
	WRITE_ONCE(bp_sync_task, current);
	WRITE_ONCE(bp_pending, &s);
	ret = trace_set_clr_event("batchprobe", "sync", 1);
	if (!ret)
		ret = trace_set_clr_event("batchprobe", "sync", 0);
	if (xchg(&bp_pending, NULL)) {
		/*
		 * Neither call reached reg(): nothing was done. What was to go
		 * is this file's now, for a later sync or bp_events_exit().
		 */
		for (i = 0; i < nremove; i++) {
			if (remove[i] && remove[i]->added) {
				bp_orphan_adopt(remove[i]);
				remove[i] = NULL;
			}
		}
		WRITE_ONCE(bp_sync_task, NULL);
		mutex_unlock(&bp_sync_mutex);
		return ret ?: -EBUSY;
	}
	/* Before any add of ours can take a removed event's type id. */
	if (s.removed)
		bp_reset_flagged_buffers();
	WRITE_ONCE(bp_sync_task, NULL);
	mutex_unlock(&bp_sync_mutex);
	for (i = 0; i < nremove; i++) {
		if (remove[i]) {
			kfree(remove[i]);
			remove[i] = NULL;
		}
	}
	if (busy)
		*busy = s.busy;
	return s.ret;
}

bool bp_events_orphans(void)
{
	bool any;

	mutex_lock(&bp_sync_mutex);
	any = !list_empty(&bp_orphans);
	mutex_unlock(&bp_sync_mutex);
	return any;
}

static void bp_orphan_work_fn(struct work_struct *work)
{
	bp_events_sync(NULL, 0, NULL, 0, NULL);
}

/*
 * At unload: every set is retired, and no orphan is left (each holds the
 * module); a queued retry is waited for.
 */
void bp_events_exit(void)
{
	cancel_work_sync(&bp_orphan_work);
	WARN_ON_ONCE(bp_events_orphans());
}

/* flush: waits for a queued removal of orphans. */
void bp_events_flush(void)
{
	flush_work(&bp_orphan_work);
}
