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
 * section (the module loader registers it), and turning it on or off with
 * the exported trace_set_clr_event() calls its reg() with event_mutex
 * held, where the adds and removes a sync handed over run. A sync turns it
 * over once a chunk (on if it is off, off if it is on; the other way too if
 * a user turned it over first) and off at its end. Where neither call
 * reaches reg() (a user turning it over twice meanwhile, or its soft mode
 * from a trigger), the sync fails with -EBUSY, nothing done.
 */
#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/trace_events.h>
#include <linux/trace_seq.h>
#include <linux/workqueue.h>

#include <asm/vsyscall.h>

#include "helpers.h"
#include "rust_entry.h"

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
	struct bp_event_head head;	/* first: read by the handlers (helpers.h) */
	struct trace_event_call call;
	struct trace_event_class class;
	struct list_head files;		/* bp_event_link, RCU */
	struct list_head orphan;	/* on bp_orphans while busy at removal */
	atomic_t perf_users;		/* perf events registered on it */
	u8 rec_head;			/* enum bp_head */
	bool added;
	bool orphaned;			/* on bp_orphans (event_mutex held) */
	/*
	 * The fetch arguments: the bytes of their fixed fields, and their
	 * fields, in this allocation after the names (an orphan still
	 * prints). Each probe that fires the event brings its own programs
	 * (probes of one name may read different things into the same fields,
	 * as kprobe_events' appended probes do).
	 */
	u32 fixed;
	u32 nargs;
	struct bp_event_arg *args;
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

/*
 * A direct exit set's return record is a return's, and after the
 * arguments' fixed fields (so that theirs are where an fprobe return
 * event has them), the call's duration in ns: its tail.
 */
#define BP_EXIT_TAIL sizeof(u64)

/* ---- the records ---- */

/*
 * The writers below are inlined into bp_event_entry() and bp_event_return():
 * a record costs the kernel's own event two calls (kprobe_dispatcher(),
 * kprobe_trace_func()) besides the ring buffer's; each further call and
 * return is measurable per record (BENCHMARKS-records.md).
 */

/* The probe's own fields: the record's head, before the arguments'. */
static __always_inline size_t bp_rec_head(struct bp_event *ev)
{
	return ev->rec_head == BP_HEAD_ENTRY ? sizeof(struct bp_entry_rec) :
		sizeof(struct bp_return_rec);
}

/* The fields after the arguments' fixed ones, before their strings. */
static __always_inline size_t bp_rec_tail(struct bp_event *ev)
{
	return ev->rec_head == BP_HEAD_EXIT ? BP_EXIT_TAIL : 0;
}

/*
 * One record being written: the probe's fields (@a, @b, @c are ip, 0, 0 or
 * func, ret_ip, 0 or func, ret_ip, duration), its registers for the arguments, and the bytes their strings
 * take (found once per hit, as __get_data_size() is per instance).
 */
struct bp_fire {
	unsigned long a, b;
	u64 c;
	struct pt_regs *regs;		/* perf's */
	const void *fetch;		/* the firing probe's programs, or NULL */
	struct pt_regs *fetch_regs;	/* what they read */
	const void *edata;
	size_t dsize;
};

static __always_inline size_t bp_rec_size(struct bp_event *ev, struct bp_fire *f)
{
	return bp_rec_head(ev) + ev->fixed + bp_rec_tail(ev) + f->dsize;
}

/* Fills a record (perf's may be longer: it is aligned). */
static __always_inline void bp_rec_fill(struct bp_event *ev, void *rec, struct bp_fire *f)
{
	struct bp_return_rec *ret = rec;
	struct bp_entry_rec *entry = rec;

	switch (ev->rec_head) {
	case BP_HEAD_EXIT:
		put_unaligned(f->c, (u64 *)((u8 *)rec + sizeof(*ret) + ev->fixed));
		fallthrough;
	case BP_HEAD_RETURN:
		ret->func = f->a;
		ret->ret_ip = f->b;
		break;
	default:
		entry->ip = f->a;
	}
	if (f->fetch)
		bp_rust_fetch_store(f->fetch, f->fetch_regs, f->edata, rec, bp_rec_head(ev),
				    bp_rec_tail(ev), bp_rec_size(ev, f));
}

/*
 * The perf side (perf_event_open of the event's id), as kprobe_perf_func()
 * and kretprobe_perf_func() write it: the same record, to the perf events
 * open on this CPU. Without registers (7.3's fprobes), a tracepoint's:
 * the caller's, as perf_fetch_caller_regs() gives them.
 */
#ifdef CONFIG_PERF_EVENTS
static __always_inline void bp_perf_write(struct bp_event *ev, struct bp_fire *f)
{
	struct pt_regs *regs = f->regs;
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
	size = ALIGN(bp_rec_size(ev, f) + sizeof(u32), sizeof(u64)) - sizeof(u32);
	rec = perf_trace_buf_alloc(size, regs ? NULL : &own, &rctx);
	if (!rec)
		return;
	if (!regs) {
		perf_fetch_caller_regs(own);
		regs = own;
	}
	/*
	 * perf_trace_buf_alloc() zeroes only the last u64: a string shorter
	 * in the store pass than in the size pass (or one whose read faulted)
	 * would leave an earlier sample's bytes (any event's, this CPU's) in
	 * this one. kprobe_perf_func() clears its dynamic area likewise.
	 */
	memset(rec, 0, size);
	bp_rec_fill(ev, rec, f);
	perf_trace_buf_submit(rec, size, rctx, ev->call.event.type, 1, regs, head, NULL);
}
#else
static __always_inline void bp_perf_write(struct bp_event *ev, struct bp_fire *f) {}
#endif

/*
 * The tracefs side: every instance that has the event enabled. The links
 * are an RCU list read without rcu_read_lock(), as kprobe_trace_func()
 * reads a kprobe event's: every caller runs with preemption disabled (a
 * kprobe's or kretprobe's handler, an fprobe's under ftrace's recursion
 * lock or fgraph's rcu_sched guard), which the links' kfree_rcu() waits
 * for. The record's preempt count is a kprobe event's at the same
 * function, but for an fprobe's on 7.3, one above (docs/design/events.md, known
 * divergences).
 */
static __always_inline void bp_trace_write(struct bp_event *ev, struct bp_fire *f)
{
	struct bp_event_link *link;
	size_t size = bp_rec_size(ev, f);

	if (list_empty(&ev->files))
		return;
	lockdep_assert_preemption_disabled();
	list_for_each_entry_rcu(link, &ev->files, list) {
		struct trace_event_buffer fbuffer;
		void *rec;

		if (trace_trigger_soft_disabled(link->file))
			continue;
		rec = trace_event_buffer_reserve(&fbuffer, link->file, size);
		if (!rec)
			continue;
		bp_rec_fill(ev, rec, f);
		trace_event_buffer_commit(&fbuffer);
	}
}

/*
 * The handler read the event's users (struct bp_event_head) first; what
 * changed since, each side checks again (an instance's list, perf's users).
 */
static __always_inline void bp_event_write(struct bp_event *ev, struct bp_fire *f)
{
	bp_perf_write(ev, f);
	bp_trace_write(ev, f);
}

void notrace bp_event_entry(struct bp_event *ev, unsigned long ip, struct pt_regs *regs,
			    const void *fetch, struct pt_regs *fetch_regs, size_t dsize)
{
	struct bp_fire f = {
		.a = ip, .regs = regs, .fetch = fetch, .fetch_regs = fetch_regs, .dsize = dsize,
	};

	bp_event_write(ev, &f);
}
NOKPROBE_SYMBOL(bp_event_entry);

void notrace bp_event_return(struct bp_event *ev, unsigned long func, unsigned long ret_ip,
			     struct pt_regs *regs, const void *fetch, struct pt_regs *fetch_regs,
			     const void *edata, size_t dsize)
{
	struct bp_fire f = {
		.a = func, .b = ret_ip, .regs = regs, .fetch = fetch,
		.fetch_regs = fetch_regs, .edata = edata, .dsize = dsize,
	};

	bp_event_write(ev, &f);
}
NOKPROBE_SYMBOL(bp_event_return);

void notrace bp_event_exit(struct bp_event *ev, unsigned long func, unsigned long ret_ip,
			   u64 duration, const void *fetch, struct pt_regs *fetch_regs,
			   const void *edata, size_t dsize)
{
	struct bp_fire f = {
		.a = func, .b = ret_ip, .c = duration, .fetch = fetch,
		.fetch_regs = fetch_regs, .edata = edata, .dsize = dsize,
	};

	bp_event_write(ev, &f);
}
NOKPROBE_SYMBOL(bp_event_exit);

/* ---- what fetch arguments read (process_fetch_insn()'s loads) ---- */

notrace unsigned long bp_fetch_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}
NOKPROBE_SYMBOL(bp_fetch_arg);

notrace unsigned long bp_fetch_stack_nth(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_stack_nth(regs, n);
}
NOKPROBE_SYMBOL(bp_fetch_stack_nth);

notrace unsigned long bp_fetch_comm(void)
{
	return (unsigned long)current->comm;
}
NOKPROBE_SYMBOL(bp_fetch_comm);

notrace unsigned long bp_fetch_current(void)
{
	return (unsigned long)current;
}
NOKPROBE_SYMBOL(bp_fetch_current);

notrace unsigned long bp_fetch_cpu_ptr(unsigned long addr)
{
	return (unsigned long)this_cpu_ptr((void __percpu *)addr);
}
NOKPROBE_SYMBOL(bp_fetch_cpu_ptr);

/*
 * Whether a read of @addr reads user memory: asked for (+u, ustring), or,
 * where user and kernel addresses cannot overlap (x86), any address below
 * TASK_SIZE, as probe_mem_read() and fetch_store_string() choose.
 */
static __always_inline bool bp_user_read(unsigned long addr, bool user)
{
#ifdef CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE
	if (addr < TASK_SIZE)
		return true;
#endif
	return user;
}

/*
 * probe_mem_read() and probe_mem_read_user() (trace_probe_kernel.h): where
 * user and kernel addresses cannot overlap (x86), a kernel read of a user
 * address reads user memory, for strings too.
 */
notrace long bp_fetch_read(void *dst, unsigned long addr, size_t len, bool user)
{
	if (bp_user_read(addr, user))
		return copy_from_user_nofault(dst, (void __user *)addr, len);
	return copy_from_kernel_nofault(dst, (void *)addr, len);
}
NOKPROBE_SYMBOL(bp_fetch_read);

/*
 * The strings of a record, each in one call: a byte loop per byte through
 * Rust and copy_from_kernel_nofault() cost ~12 calls (and their return
 * thunks) for a 6-byte $comm. The loops are the kernel's own:
 * fetch_store_strlen() and strncpy_from_kernel_nofault() (its inline
 * __get_kernel_nofault() loop, not exported), strnlen_user_nofault() and
 * strncpy_from_user_nofault() (the exported strnlen_user() and
 * strncpy_from_user() with page faults off), chosen as bp_fetch_read()
 * chooses.
 */

/* copy_from_kernel_nofault_allowed() on x86, for [addr, addr + len). */
static __always_inline bool bp_kernel_range_ok(unsigned long addr, unsigned long len)
{
	unsigned long last = addr + len - 1;

	if (last < addr || addr < TASK_SIZE_MAX + PAGE_SIZE)
		return false;
	if (is_vsyscall_vaddr(addr) || is_vsyscall_vaddr(last))
		return false;
	if (!boot_cpu_data.x86_virt_bits)
		return true;
	return __is_canonical_address(addr, boot_cpu_data.x86_virt_bits) &&
	       __is_canonical_address(last, boot_cpu_data.x86_virt_bits);
}

/*
 * The length of the string at addr, its NUL included, at most max (a user
 * string longer than that: more, as strnlen_user() says it); 0 if reading
 * it faults.
 */
notrace long bp_fetch_strlen(unsigned long addr, long max, bool user)
{
	long len = 0;
	u8 c;

	if (max <= 0)
		return 0;
	if (bp_user_read(addr, user)) {
		pagefault_disable();
		len = strnlen_user((const char __user *)addr, max);
		pagefault_enable();
		/*
		 * Past max (too long), as fetch_store_strlen_user() leaves it:
		 * the store then takes max - 1 bytes and the NUL.
		 */
		return len;
	}
	if (!bp_kernel_range_ok(addr, max)) {
		/* fetch_store_strlen(), each byte checked on its own. */
		do {
			if (copy_from_kernel_nofault(&c, (u8 *)addr + len, 1))
				return 0;
			len++;
		} while (c && len < max);
		return len;
	}
	pagefault_disable();
	do {
		__get_kernel_nofault(&c, (u8 *)addr + len, u8, fault);
		len++;
	} while (c && len < max);
	pagefault_enable();
	return len;
fault:
	pagefault_enable();
	return 0;
}
NOKPROBE_SYMBOL(bp_fetch_strlen);

/*
 * Copies the string at addr into dst (at most max bytes, a longer one cut
 * and NUL-ended): the bytes copied, the NUL included; < 0 if reading it
 * faults (dst[0] then NUL).
 */
notrace long bp_fetch_strncpy(char *dst, unsigned long addr, long max, bool user)
{
	const char *src = (const char *)addr;
	long ret;

	if (max <= 0)
		return 0;
	if (bp_user_read(addr, user)) {
		pagefault_disable();
		ret = strncpy_from_user(dst, (const char __user *)addr, max);
		pagefault_enable();
		if (ret >= max) {
			ret = max;
			dst[ret - 1] = '\0';
		} else if (ret >= 0) {
			ret++;
		} else {
			dst[0] = '\0';
		}
		return ret;
	}
	if (!bp_kernel_range_ok(addr, max)) {
		/* As below, each byte checked on its own. */
		do {
			if (copy_from_kernel_nofault(dst, src, 1)) {
				dst[0] = '\0';
				return -EFAULT;
			}
			dst++;
			src++;
		} while (dst[-1] && src - (const char *)addr < max);
		dst[-1] = '\0';
		return src - (const char *)addr;
	}
	pagefault_disable();
	do {
		__get_kernel_nofault(dst, src, u8, fault);
		dst++;
		src++;
	} while (dst[-1] && src - (const char *)addr < max);
	pagefault_enable();
	dst[-1] = '\0';
	return src - (const char *)addr;
fault:
	pagefault_enable();
	dst[0] = '\0';
	return -EFAULT;
}
NOKPROBE_SYMBOL(bp_fetch_strncpy);

unsigned long bp_thread_size(void)
{
	return THREAD_SIZE;
}

/* ---- what tracefs shows: fields, format, the text of a record ---- */

/* traceprobe_define_arg_fields(): the arguments' fields, after the probe's. */
static int bp_arg_fields(struct trace_event_call *call)
{
	struct bp_event *ev = container_of(call, struct bp_event, call);
	u32 i;
	int ret;

	for (i = 0; i < ev->nargs; i++) {
		struct bp_event_arg *a = &ev->args[i];

		ret = trace_define_field(call, a->type, a->name, a->offset,
					 a->elem * (a->count ?: 1), a->is_signed, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return 0;
}

static int bp_entry_fields(struct trace_event_call *call)
{
	int ret = trace_define_field(call, "unsigned long", "__probe_ip",
				     offsetof(struct bp_entry_rec, ip),
				     sizeof(unsigned long), 0, FILTER_OTHER);

	return ret ?: bp_arg_fields(call);
}

static int bp_return_fields(struct trace_event_call *call)
{
	int ret = trace_define_field(call, "unsigned long", "__probe_func",
				     offsetof(struct bp_return_rec, func),
				     sizeof(unsigned long), 0, FILTER_OTHER);

	ret = ret ?: trace_define_field(call, "unsigned long", "__probe_ret_ip",
					offsetof(struct bp_return_rec, ret_ip),
					sizeof(unsigned long), 0, FILTER_OTHER);
	return ret ?: bp_arg_fields(call);
}

static int bp_exit_fields(struct trace_event_call *call)
{
	struct bp_event *ev = container_of(call, struct bp_event, call);

	return bp_return_fields(call) ?:
		trace_define_field(call, "u64", "duration",
				   sizeof(struct bp_return_rec) + ev->fixed,
				   sizeof(u64), 0, FILTER_OTHER);
}

static struct trace_event_fields bp_entry_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = bp_entry_fields },
	{}
};

static struct trace_event_fields bp_return_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = bp_return_fields },
	{}
};

static struct trace_event_fields bp_exit_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = bp_exit_fields },
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

/* One value of an argument, as the print_type_*() of trace_probe.c. */
static void bp_print_value(struct trace_seq *s, struct bp_event_arg *a, void *data, void *ent)
{
	u64 v = 0;

	switch (a->elem) {
	case 1: v = a->is_signed ? (u64)*(s8 *)data : *(u8 *)data; break;
	case 2: v = a->is_signed ? (u64)*(s16 *)data : *(u16 *)data; break;
	case 4: v = a->is_signed ? (u64)*(s32 *)data : *(u32 *)data; break;
	case 8: v = *(u64 *)data; break;
	}
	switch (a->print) {
	case BP_PRINT_U:
		if (a->elem == 8)
			trace_seq_printf(s, "%Lu", v);
		else
			trace_seq_printf(s, "%u", (u32)v);
		break;
	case BP_PRINT_S:
		if (a->elem == 8)
			trace_seq_printf(s, "%Ld", (s64)v);
		else
			trace_seq_printf(s, "%d", (s32)v);
		break;
	case BP_PRINT_X:
		if (a->elem == 8)
			trace_seq_printf(s, "0x%Lx", v);
		else
			trace_seq_printf(s, "0x%x", (u32)v);
		break;
	case BP_PRINT_CHAR:
		trace_seq_printf(s, "'%c'", (u8)v);
		break;
	case BP_PRINT_SYMBOL:
		trace_seq_printf(s, "%pS", (void *)(unsigned long)v);
		break;
	case BP_PRINT_STRING: {
		u32 loc = *(u32 *)data;

		if (!(loc >> 16))
			trace_seq_puts(s, "(fault)");
		else
			trace_seq_printf(s, "\"%s\"", (const char *)ent + (loc & 0xffff));
		break;
	}
	}
}

/* print_probe_args(): " name=value" each, an array as {a,b,...}. */
static void bp_print_args(struct trace_seq *s, struct bp_event *ev, void *ent)
{
	u32 i, j;

	for (i = 0; i < ev->nargs; i++) {
		struct bp_event_arg *a = &ev->args[i];
		u8 *p = (u8 *)ent + a->offset;

		trace_seq_printf(s, " %s=", a->name);
		if (!a->count) {
			bp_print_value(s, a, p, ent);
			continue;
		}
		trace_seq_putc(s, '{');
		for (j = 0; j < a->count; j++, p += a->elem) {
			bp_print_value(s, a, p, ent);
			trace_seq_putc(s, j == a->count - 1 ? '}' : ',');
		}
	}
}

static enum print_line_t bp_entry_print(struct trace_iterator *iter, int flags,
					struct trace_event *event)
{
	struct bp_entry_rec *rec = (struct bp_entry_rec *)iter->ent;
	struct bp_event *ev = container_of(event, struct bp_event, call.event);

	trace_seq_printf(&iter->seq, "%s: (", trace_event_name(&ev->call));
	bp_print_ip_sym(&iter->seq, rec->ip, true);
	trace_seq_putc(&iter->seq, ')');
	bp_print_args(&iter->seq, ev, rec);
	trace_seq_putc(&iter->seq, '\n');
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
	trace_seq_putc(&iter->seq, ')');
	bp_print_args(&iter->seq, ev, rec);
	if (ev->rec_head == BP_HEAD_EXIT)
		trace_seq_printf(&iter->seq, " duration=%llu",
				 get_unaligned((u64 *)((u8 *)rec + sizeof(*rec) + ev->fixed)));
	trace_seq_putc(&iter->seq, '\n');
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions bp_entry_funcs = { .trace = bp_entry_print };
/* A direct exit set's too: the duration after the arguments. */
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
		atomic_inc(&ev->head.users);
		return 0;
	case TRACE_REG_UNREGISTER:
		list_for_each_entry(link, &ev->files, list) {
			if (link->file != file)
				continue;
			list_del_rcu(&link->list);
			atomic_dec(&ev->head.users);
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
		atomic_inc(&ev->head.users);
		return 0;
	case TRACE_REG_PERF_UNREGISTER:
		atomic_dec(&ev->perf_users);
		atomic_dec(&ev->head.users);
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

/* Copies @src at @*at, advancing it past the NUL. */
static const char *bp_copy_string(char **at, const char *src)
{
	char *dst = *at;
	size_t n = strlen(src) + 1;

	memcpy(dst, src, n);
	*at += n;
	return dst;
}

struct bp_event *bp_event_new(const char *system, const char *name, enum bp_head kind,
			      const struct bp_event_arg *args, u32 nargs,
			      const char *print_fmt, u32 fixed)
{
	size_t ls = strlen(system) + 1, ln = strlen(name) + 1;
	size_t head = ALIGN(struct_size_t(struct bp_event, names, ls + ln), sizeof(u64));
	size_t size = head + array_size(nargs, sizeof(*args));
	struct bp_event *ev;
	char *at;
	u32 i;

	/* The heads src/events/tracefs.rs places the arguments after. */
	BUILD_BUG_ON(sizeof(struct bp_entry_rec) != 16);
	BUILD_BUG_ON(sizeof(struct bp_return_rec) != 24);
	for (i = 0; i < nargs; i++)
		size += strlen(args[i].name) + strlen(args[i].type) + 2;
	if (print_fmt)
		size += strlen(print_fmt) + 1;
	/* Up to ~140 KiB of print fmt for 128 array arguments: vmalloc then. */
	ev = kvzalloc(size, GFP_KERNEL);
	if (!ev)
		return NULL;
	memcpy(ev->names, system, ls);
	memcpy(ev->names + ls, name, ln);
	ev->args = (struct bp_event_arg *)((char *)ev + head);
	at = (char *)(ev->args + nargs);
	for (i = 0; i < nargs; i++) {
		ev->args[i] = args[i];
		ev->args[i].name = bp_copy_string(&at, args[i].name);
		ev->args[i].type = bp_copy_string(&at, args[i].type);
	}
	ev->nargs = nargs;
	ev->fixed = fixed;
	INIT_LIST_HEAD(&ev->files);
	INIT_LIST_HEAD(&ev->orphan);
	atomic_set(&ev->perf_users, 0);
	atomic_set(&ev->head.users, 0);
	ev->rec_head = kind;
	INIT_LIST_HEAD(&ev->class.fields);
	ev->class.system = ev->names;
	ev->class.reg = bp_event_reg;
	ev->call.class = &ev->class;
	ev->call.name = ev->names + ls;
	ev->call.flags = TRACE_EVENT_FL_DYNAMIC;
	switch (kind) {
	case BP_HEAD_RETURN:
		ev->class.fields_array = bp_return_fields_array;
		ev->call.event.funcs = &bp_return_funcs;
		ev->call.print_fmt = "\"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip";
		break;
	case BP_HEAD_EXIT:
		ev->class.fields_array = bp_exit_fields_array;
		ev->call.event.funcs = &bp_return_funcs;
		ev->call.print_fmt = "\"(%lx <- %lx) duration=%llu\", "
			"REC->__probe_func, REC->__probe_ret_ip, REC->duration";
		break;
	default:
		ev->class.fields_array = bp_entry_fields_array;
		ev->call.event.funcs = &bp_entry_funcs;
		ev->call.print_fmt = "\"(%lx)\", REC->__probe_ip";
	}
	if (print_fmt)
		ev->call.print_fmt = (char *)bp_copy_string(&at, print_fmt);
	return ev;
}

/* Frees an event that is not (or no longer) in tracefs. */
void bp_event_free(struct bp_event *ev)
{
	if (!ev || WARN_ON_ONCE(ev->added))
		return;
	kvfree(ev);
}

/* ---- adding and removing, under event_mutex (see the top) ---- */

/*
 * Events whose set retired while they were in use (enabled, open by perf,
 * referred to by another event): in tracefs without records until a sync
 * removes them. Each holds a reference on the module (tracefs still calls
 * its reg() and print code), and the sync that removes one puts it. One
 * that is disabled, or closed by perf, queues such a sync at once; one
 * referred to (an eprobe's call->refcnt, which tells nobody when it goes)
 * is retried every BP_ORPHAN_RETRY while any is left, and by `flush`.
 * Module exit waits for the last one (bp_events_exit()).
 */
static LIST_HEAD(bp_orphans);
/* One sync at a time; never taken inside reg() (event_mutex is held there). */
static DEFINE_MUTEX(bp_sync_mutex);
/* The task running a sync: only its reg() calls do the work handed over. */
static struct task_struct *bp_sync_task;
/* batchprobe/sync's file in the top-level trace array, once reg() met it. */
static struct trace_event_file *bp_sync_file;

#define BP_ORPHAN_RETRY HZ
static void bp_orphan_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(bp_orphan_work, bp_orphan_work_fn);
/* Set once module exit waits: no retry is queued any more. */
static bool bp_events_exiting;

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
	kvfree(ev);
	module_put(THIS_MODULE);
}

/* From reg(), event_mutex held: an orphan no longer enabled may go now. */
static void bp_orphan_idle(struct bp_event *ev)
{
	if (READ_ONCE(ev->orphaned) && list_empty(&ev->files) &&
	    !atomic_read(&ev->perf_users) && !READ_ONCE(bp_events_exiting))
		mod_delayed_work(system_long_wq, &bp_orphan_work, 0);
}

struct bp_adds;

struct bp_sync {
	struct bp_adds *all;	/* the adds of every chunk, for the name check */
	struct bp_event **add;
	size_t nadd;
	struct bp_event **remove;
	size_t nremove;
	int ret;		/* of the adds: all or nothing */
	size_t taken;		/* -EEXIST: the add (of all) whose name tracefs has */
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

/*
 * Whether @pos, met on a walk of the top-level trace array's event files
 * that started at one of them (@tr's), is the list's head,
 * &global_trace.events: a static object of the kernel's image, where every
 * file is a slab object (file_cachep) of the direct map. (struct
 * trace_array is private to kernel/trace, so its head is found so.)
 */
static bool bp_events_list_head(const struct list_head *pos, const struct trace_array *tr)
{
	unsigned long p = (unsigned long)pos, t = (unsigned long)tr;

	return p >= __START_KERNEL_map && p - t < SZ_64K;
}

/*
 * The index of the one of @n adds named @name, or -1: by bisection if they
 * are @sorted by name (strcmp's order), else one by one.
 */
static long bp_name_in(struct bp_event **add, size_t n, bool sorted, const char *name)
{
	size_t lo = 0, hi = n, i;
	int c;

	if (!sorted) {
		for (i = 0; i < n; i++)
			if (!strcmp(add[i]->call.name, name))
				return i;
		return -1;
	}
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		c = strcmp(add[i]->call.name, name);
		if (!c)
			return i;
		if (c < 0)
			lo = i + 1;
		else
			hi = i;
	}
	return -1;
}

/*
 * The adds of a sync, all its chunks': @ev sorted by name (strcmp's order)
 * if @sorted, all of one system if @one (the adds of one set are both:
 * see src/events/tracefs.rs); @done of them added by earlier chunks, the
 * last of those @ev[@done - 1], the newest event file of the top-level
 * trace array's list, whose head (&global_trace.events) @head is once the
 * first chunk's walk met it.
 */
struct bp_adds {
	struct bp_event **ev;
	size_t n;
	size_t done;
	bool one;
	bool sorted;
	struct list_head *head;
};

/*
 * The index of the add named as @f's event (an event with a reg(), as
 * trace_get_event_file() finds one: not one that ignores enabling), or -1;
 * one not made yet (an earlier chunk's are ours). Where the adds are of
 * one system, a file of another costs one strcmp.
 */
static long bp_adds_find(const struct bp_adds *a, const struct trace_event_file *f)
{
	struct trace_event_call *call = f->event_call;
	const char *name = trace_event_name(call);
	long at = -1;
	size_t i;

	if (!name || !call->class || !call->class->reg ||
	    (call->flags & TRACE_EVENT_FL_IGNORE_ENABLE))
		return -1;
	if (a->one) {
		if (!strcmp(call->class->system, a->ev[0]->class.system))
			at = bp_name_in(a->ev, a->n, a->sorted, name);
	} else {
		for (i = 0; i < a->n && at < 0; i++)
			if (!strcmp(a->ev[i]->call.name, name) &&
			    !strcmp(a->ev[i]->class.system, call->class->system))
				at = i;
	}
	return at >= (long)a->done ? at : -1;
}

/*
 * The first of the adds not made yet whose SYSTEM/NAME tracefs has
 * already, or -1, event_mutex held: the first chunk walks every event file
 * of @file's trace array (the top-level one, which has every event),
 * meeting its list's head on the way; a later chunk walks only the files
 * newer than the last chunk's last add (a trace array keeps its files
 * newest first: trace_create_new_event()'s list_add()), those another
 * task added while event_mutex was free between the chunks. Where each
 * chunk walked every file, and compared it with its own adds only, the
 * checks of a create of 10,000 events grew with the square of the count
 * (40 chunks, each a walk past the chunks before it).
 */
static long bp_sync_taken(struct bp_adds *a, struct trace_event_file *file)
{
	const struct trace_event_call *last = a->done ? &a->ev[a->done - 1]->call : NULL;
	struct list_head *pos;
	long at, first = -1;

	if (a->head && last) {
		for (pos = a->head->next; pos != a->head; pos = pos->next) {
			struct trace_event_file *f = list_entry(pos, struct trace_event_file, list);

			if (f->event_call == last)
				break;
			at = bp_adds_find(a, f);
			if (at >= 0 && (first < 0 || at < first))
				first = at;
		}
		return first;
	}
	pos = &file->list;
	do {
		pos = pos->next;
		if (bp_events_list_head(pos, file->tr)) {
			a->head = pos;
			continue;
		}
		at = bp_adds_find(a, list_entry(pos, struct trace_event_file, list));
		if (at >= 0 && (first < 0 || at < first))
			first = at;
	} while (pos != &file->list);
	return first;
}

/*
 * This sync's adds first, then the removals (orphans', this sync's): an
 * add must not take the type id of an event removed in the same reg() call
 * (alloc_trace_event_type() hands out the lowest free id) before the
 * buffers that hold its records are reset, after the call.
 */
static void bp_sync_run(struct bp_sync *s, struct trace_event_file *file)
{
	struct bp_event *ev, *next;
	long taken;
	size_t i;

	if (s->nadd) {
		taken = bp_sync_taken(s->all, file);
		if (taken >= 0) {
			s->taken = taken;
			s->ret = -EEXIST;
			return;
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
		return;
	}
	list_for_each_entry_safe(ev, next, &bp_orphans, orphan) {
		if (!bp_event_remove(ev)) {
			bp_orphan_free(ev);
			s->removed++;
		}
	}
	/*
	 * Last added first: each instance keeps its event files newest first
	 * (trace_create_new_event()'s list_add()), and every removal walks
	 * that list to the event's file (probe_remove_event_call()), twice.
	 * In the order they were added, the N removals of a set walked past
	 * the set's own later files: O(N^2), 6 s for 17356 events under TCG.
	 */
	for (i = s->nremove; i-- > 0;) {
		ev = s->remove[i];
		if (!ev || !ev->added)
			continue;
		if (bp_event_remove(ev)) {
			bp_orphan_adopt(ev);
			s->remove[i] = NULL;
			s->busy++;
		} else {
			s->removed++;
		}
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
		WRITE_ONCE(bp_sync_file, data);
		s = xchg(&bp_pending, NULL);
		if (s)
			bp_sync_run(s, data);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * A static event of the module's, batchprobe/NAME, in its _ftrace_events
 * section (the module loader registers it): no fields and no records, its
 * class's reg() bp_NAME_reg().
 */
#define BP_STATIC_EVENT(NAME)							\
static enum print_line_t bp_##NAME##_print(struct trace_iterator *iter,	\
					    int flags, struct trace_event *event)	\
{										\
	trace_seq_puts(&iter->seq, #NAME "\n");					\
	return trace_handle_return(&iter->seq);					\
}										\
static struct trace_event_functions bp_##NAME##_funcs = {			\
	.trace = bp_##NAME##_print,						\
};										\
static struct trace_event_fields bp_##NAME##_fields[] = { {} };		\
static struct trace_event_class bp_##NAME##_class = {				\
	.system = "batchprobe",							\
	.reg = bp_##NAME##_reg,							\
	.fields_array = bp_##NAME##_fields,					\
	.fields = LIST_HEAD_INIT(bp_##NAME##_class.fields),			\
	.raw_init = trace_event_raw_init,					\
};										\
static struct trace_event_call bp_##NAME##_call = {				\
	.class = &bp_##NAME##_class,						\
	.name = #NAME,								\
	.event.funcs = &bp_##NAME##_funcs,					\
	.print_fmt = "\"" #NAME "\"",						\
};										\
static struct trace_event_call __used __section("_ftrace_events")		\
	*bp_##NAME##_ptr = &bp_##NAME##_call

BP_STATIC_EVENT(sync);

/*
 * batchprobe/hold: on while a sync of more than one chunk runs
 * (bp_events_sync()). Enabling an event with tracefs' record-cmd option on
 * (the default; or record-tgid) starts the kernel's recording of task
 * names, which registers the sched_switch and sched_wakeup tracepoints if
 * nothing else had it on, and disabling it stops that again: text patched
 * for each chunk's turn of batchprobe/sync (twice a chunk when each chunk
 * turned it on and off: under TCG 1.6 s of the 2.5 s a set of 10,000
 * events took to create, 2026-12-06).
 * While batchprobe/hold is on, those only count references: the recording
 * starts and stops once per sync. Its reg() does nothing; a user who
 * enables it keeps the recording on, until a sync's end turns it off.
 */
static int bp_hold_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

BP_STATIC_EVENT(hold);

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
 * One reg() call's worth of adds or removals: event_mutex is held for that
 * long, and every other tracing user (an event enabled, a perf tracepoint
 * opened, a dynamic event written, a module with trace events loaded)
 * waits behind it. A set's events go in chunks of this many, with
 * event_mutex dropped and a reschedule point between them (46 us an event
 * under TCG: about 12 ms a chunk there).
 */
#define BP_SYNC_CHUNK 256

/*
 * Whether batchprobe/sync is on in the top-level trace array, read without
 * event_mutex: a guess, which bp_sync_one() corrects.
 */
static bool bp_sync_is_on(void)
{
	struct trace_event_file *file = READ_ONCE(bp_sync_file);

	return file && (READ_ONCE(file->flags) & EVENT_FILE_FL_ENABLED);
}

/*
 * One reg() call: @nadd adds (all or none), the next of @all's, and
 * @nremove removals, and the orphans that can go. Returns the adds' error,
 * or -EBUSY if reg() was not reached (nothing done; every event to remove
 * is adopted). Under bp_sync_mutex.
 */
static int bp_sync_one(struct bp_adds *all, size_t nadd, struct bp_event **remove,
		       size_t nremove, size_t *busy, size_t *taken)
{
	struct bp_sync s = {
		.all = all, .add = all ? all->ev + all->done : NULL, .nadd = nadd,
		.remove = remove, .nremove = nremove, .taken = SIZE_MAX,
	};
	bool on = bp_sync_is_on();
	int ret;
	size_t i;

	WRITE_ONCE(bp_sync_task, current);
	WRITE_ONCE(bp_pending, &s);
	/*
	 * The call that turns batchprobe/sync over reaches reg(); if a user
	 * turned it over first, the call the other way does. It stays as it
	 * is between chunks (bp_events_sync() turns it off at its end): each
	 * call walks every event file, twice a chunk before.
	 */
	ret = trace_set_clr_event("batchprobe", "sync", !on);
	if (!ret && READ_ONCE(bp_pending))
		ret = trace_set_clr_event("batchprobe", "sync", on);
	WRITE_ONCE(bp_sync_task, NULL);
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
		return ret ?: -EBUSY;
	}
	/*
	 * Before the next registration, ours or anyone's, can take a removed
	 * event's type id: event_mutex is free again from here, which leaves
	 * a window for another task's (docs/design/events.md).
	 */
	if (s.removed)
		bp_reset_flagged_buffers();
	for (i = 0; i < nremove; i++) {
		if (remove[i] && !remove[i]->added) {
			kvfree(remove[i]);
			remove[i] = NULL;
		}
	}
	if (busy)
		*busy += s.busy;
	if (taken && s.ret == -EEXIST)
		*taken = s.taken;
	return s.ret;
}

/* Under bp_sync_mutex: a retry is queued while an orphan is left. */
static void bp_orphan_retry_later(void)
{
	if (!list_empty(&bp_orphans) && !bp_events_exiting)
		mod_delayed_work(system_long_wq, &bp_orphan_work, BP_ORPHAN_RETRY);
}

/*
 * Adds @nadd events (all or none: the first error, the added ones removed
 * again) or removes @nremove (a sync does one or the other), each set to
 * NULL once freed; one still in use stays in tracefs, without records,
 * until a later sync or bp_events_exit() removes it (its slot is set to
 * NULL too: this file owns it then). In chunks of BP_SYNC_CHUNK, each its
 * own reg() call. Returns the adds' error, or -EBUSY if the sync could not
 * run (then no add was made, and every event to remove is this file's, for
 * a later sync).
 */
int bp_events_sync(struct bp_event **add, size_t nadd, struct bp_event **remove,
		   size_t nremove, size_t *busy, size_t *taken)
{
	struct bp_adds all = { .ev = add, .n = nadd, .one = true, .sorted = true };
	size_t i, n, start, at = SIZE_MAX;
	bool held = false;
	int ret = 0;

	if (busy)
		*busy = 0;
	for (i = 1; i < nadd; i++) {
		all.one = all.one && !strcmp(add[i]->class.system, add[0]->class.system);
		all.sorted = all.sorted && strcmp(add[i - 1]->call.name, add[i]->call.name) < 0;
	}
	mutex_lock(&bp_sync_mutex);
	/* One start and stop of the kernel's comm recording (see bp_hold_reg). */
	if (DIV_ROUND_UP(nadd, BP_SYNC_CHUNK) + DIV_ROUND_UP(nremove, BP_SYNC_CHUNK) > 1)
		held = !trace_set_clr_event("batchprobe", "hold", 1);
	if (!nadd && !nremove)
		ret = bp_sync_one(NULL, 0, NULL, 0, NULL, NULL);
	for (; all.done < nadd; all.done += n) {
		n = min_t(size_t, nadd - all.done, BP_SYNC_CHUNK);
		ret = bp_sync_one(&all, n, NULL, 0, NULL, &at);
		if (ret) {
			if (ret == -EEXIST && taken && at != SIZE_MAX)
				*taken = at;
			break;
		}
		cond_resched();
	}
	if (ret && all.done) {
		/*
		 * All or none: the chunks added before go again (one a user
		 * enabled meanwhile stays as an orphan, and its slot is NULL).
		 */
		for (start = all.done; start > 0; start -= n) {
			n = min_t(size_t, start, BP_SYNC_CHUNK);
			bp_sync_one(NULL, 0, add + start - n, n, NULL, NULL);
			cond_resched();
		}
	}
	/* Last added first, as bp_sync_run() removes within a chunk. */
	for (start = nremove; start > 0; start -= n) {
		int r;

		n = min_t(size_t, start, BP_SYNC_CHUNK);
		r = bp_sync_one(NULL, 0, remove + start - n, n, busy, NULL);
		ret = ret ?: r;
		cond_resched();
	}
	/* Off after every sync (its reg() does nothing now). */
	if (bp_sync_is_on())
		trace_set_clr_event("batchprobe", "sync", 0);
	if (held)
		trace_set_clr_event("batchprobe", "hold", 0);
	bp_orphan_retry_later();
	mutex_unlock(&bp_sync_mutex);
	return ret;
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
	bp_events_sync(NULL, 0, NULL, 0, NULL, NULL);
}

/*
 * At unload, once every set is retired: no event of ours may outlive the
 * module's text (its reg(), print and field code are here). One another
 * event still refers to (an eprobe: `e:GROUP/NAME SET.EVENT` in
 * dynamic_events takes call->refcnt and no module reference) cannot be
 * removed, so module exit waits until it can, saying every
 * BP_EXIT_NAG which event and what to delete. An event enabled or open by
 * perf holds the module, so rmmod refused it before exit began.
 */
#define BP_EXIT_NAG (10 * HZ)
void bp_events_exit(void)
{
	unsigned long nag = jiffies;
	struct bp_event *ev;

	mutex_lock(&bp_sync_mutex);
	WRITE_ONCE(bp_events_exiting, true);
	mutex_unlock(&bp_sync_mutex);
	cancel_delayed_work_sync(&bp_orphan_work);
	while (bp_events_orphans()) {
		bp_events_sync(NULL, 0, NULL, 0, NULL, NULL);
		mutex_lock(&bp_sync_mutex);
		if (!list_empty(&bp_orphans) && time_after_eq(jiffies, nag)) {
			list_for_each_entry(ev, &bp_orphans, orphan)
				pr_warn("unload waits for event %s/%s: still referred to by another event (an eprobe? find it in dynamic_events: grep '%s[./]%s' dynamic_events, then delete it with -:GROUP/NAME)\n",
					ev->class.system, ev->call.name, ev->class.system,
					ev->call.name);
			nag = jiffies + BP_EXIT_NAG;
		}
		mutex_unlock(&bp_sync_mutex);
		if (bp_events_orphans())
			schedule_timeout_idle(HZ / 5);
	}
	/* One queued by a reg() call that saw bp_events_exiting still false. */
	cancel_delayed_work_sync(&bp_orphan_work);
}

/* flush: a sync that removes every orphan that can go now, waited for. */
void bp_events_flush(void)
{
	if (bp_events_orphans())
		bp_events_sync(NULL, 0, NULL, 0, NULL, NULL);
}
