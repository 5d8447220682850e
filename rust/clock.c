// SPDX-License-Identifier: GPL-2.0
/* The clock batchprobe's phase timings read. */
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/timekeeping.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "helpers.h"

/*
 * Phase timings read this clock, not ktime_get_ns() alone: ktime_get_ns()
 * calls the clocksource's read_tsc(), an ordinary probe-able text symbol
 * (the bench probes it at N = 4096, being among the first kernel text
 * symbols), so a timing's second reading could take an int3 trap of its
 * own and time the probe instead of the phase. Here rdtsc and the
 * conversion are inline in a notrace function: nothing on the path can
 * carry a probe. The TSC is used only when the kernel itself trusts it
 * (known rate, not marked unstable, so synchronized across CPUs: the
 * start and end of a timing may be read on different CPUs); otherwise,
 * ktime_get_ns().
 */
static bool bp_clock_tsc __read_mostly;

void bp_clock_init(void)
{
#ifdef CONFIG_X86_TSC
	WRITE_ONCE(bp_clock_tsc, boot_cpu_has(X86_FEATURE_TSC) && tsc_khz &&
				 !check_tsc_unstable());
#endif
}

bool bp_clock_is_tsc(void)
{
	return READ_ONCE(bp_clock_tsc);
}

notrace u64 bp_clock_ns(void)
{
#ifdef CONFIG_X86_TSC
	if (likely(READ_ONCE(bp_clock_tsc)))
		return mul_u64_u32_div(rdtsc_ordered(), USEC_PER_SEC, tsc_khz);
#endif
	return ktime_get_ns();
}

/*
 * CLOCK_MONOTONIC as BPF's bpf_ktime_get_ns() reads it: NMI-safe and notrace
 * (the TSC's read_tsc() is built without fentry), right across a suspend
 * (the TSC may be reset on resume; timekeeping is not) and a TSC the
 * watchdog marks unstable after load (timekeeping moves to another
 * clocksource). Then an lfence, so that later loads come after the read.
 */
notrace u64 bp_clock_event_ns(void)
{
	u64 ns = ktime_get_mono_fast_ns();

	rmb();
	return ns;
}

notrace u64 bp_clock_event_ns_cpu(unsigned int *cpu)
{
	*cpu = raw_smp_processor_id();
	return bp_clock_event_ns();
}

notrace unsigned int bp_this_cpu(void)
{
	return raw_smp_processor_id();
}

unsigned int bp_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}
