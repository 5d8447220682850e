# SPDX-License-Identifier: GPL-2.0
# Kernel-version features of the tree we build against, found by reading
# that tree (its headers first, so that backports and releases in between
# are judged by what they have, not by their number), and handed to Rust as
# `--cfg bp_X` and to C and bindgen as `-DBP_X`. Included by Kbuild and by
# clients/rust/Kbuild. What the features change lives in src/kcompat.rs and
# rust/kcompat.h, nowhere else.
#
#   fprobe_fgraph  fprobe runs on function-graph tracing (6.14 on): its
#                  handlers take `struct ftrace_regs *`, there is no
#                  `nr_maxactive` and no per-fprobe return-instance pool.
#   rude_noop      synchronize_rcu_tasks_rude() returns at once where the
#                  architecture wants no instrumentation in its entry code
#                  (x86; see kernel/rcu/tasks.h). Read from kernel/rcu/tasks.h
#                  where the tree has it; a headers-only tree is judged by
#                  its release, 7.3 or later (the releases read: 6.12 waits,
#                  7.3 does not).
#   fetchargs_7_3  kprobe_events' fetch-argument grammar is 7.3's (255-byte
#                  arguments, $current, this_cpu_read/ptr, nested
#                  typecasts): read from kernel/trace/trace_probe.h's
#                  MAX_ARGSTR_LEN where the tree has it, else judged by
#                  release, 7.3 or later.

bp_grep = $(shell grep -q -E -- '$(1)' $(2) 2>/dev/null && echo y)

bp_features :=
ifeq ($(call bp_grep,nr_maxactive,$(srctree)/include/linux/fprobe.h),)
bp_features += fprobe_fgraph
endif
# $(call bp_judged,FILE,REGEX,RELEASE): y where the tree's FILE matches
# REGEX; in a tree without FILE (headers only), where the release is
# RELEASE (VERSION * 1000 + PATCHLEVEL) or later.
bp_release := $(shell printf '%d%03d' $(VERSION) $(PATCHLEVEL))
bp_judged = $(if $(wildcard $(1)),$(call bp_grep,$(2),$(1)),$(shell test $(bp_release) -ge $(3) && echo y))

ifeq ($(call bp_judged,$(srctree)/kernel/rcu/tasks.h,ARCH_WANTS_NO_INSTR,7003),y)
bp_features += rude_noop
endif
ifeq ($(call bp_judged,$(srctree)/kernel/trace/trace_probe.h,define MAX_ARGSTR_LEN[[:space:]]+255,7003),y)
bp_features += fetchargs_7_3
endif

rustflags-y += $(foreach f,$(bp_features),--cfg=bp_$(f))
ccflags-y += $(foreach f,$(bp_features),-DBP_$(shell echo $(f) | tr a-z A-Z))
