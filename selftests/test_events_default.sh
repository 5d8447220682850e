#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: which probes of a set get a trace event: by default those named on a line of their own and those whose line has fetch arguments; --events every p:/r: probe; --no-events and --bare none
# requires: CONFIG_KPROBE_EVENTS, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# A kprobe_events line makes an event; batchprobe's create, given neither
# option, makes what those lines would: an event for each p: or r: probe
# named on a line of its own (a symbol, named or not, an address), and for
# each probe of a line with fetch arguments (a glob's members too: records
# are what arguments are for). A glob's members without arguments get none
# (batchprobe's own form for thousands of functions: counted, at no
# event's cost). d: lines likewise (a d: probe's event is named as an
# fprobe event's: SYM__entry). --events gives every probe one, a direct
# glob's members too, --no-events none (and refuses arguments), --bare
# none. Counting is the same whichever. And a set
# retired without --sync keeps its events until its teardown ends: a set of
# the same name made at once waits for that, and gets its own.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 26
EINVAL=22
S=$BP_GETPPID
# One function by a glob on every kernel (a syscall with arguments has no
# __do_sys_ symbol on a GCC-built one).
G=vfs_fsync_range
A=0x$(awk -v f=$S '$3 == f && ($2 == "T" || $2 == "t") { print $1; exit }' /proc/kallsyms)

bp_load insmod_batchprobe
has() { test -d $T/events/$1; }
# The default: explicit lines (unnamed, named, return, an address), a glob
# with arguments (one member), a glob without (two members), a d: line.
ktap_check "default_create" bp_ctl "p:dfl/ $S\np:dfl/named $S\nr:dfl/ $S\np:dfl/at $A\nr:dfl/ $A\np:dfl/ vfs_fsync_ra* c=\$comm max=1\np:dfl/ ksys_rea* max=2\nd:dfl/ ${BP_SYS}getuid\ncreate dfl\nenable dfl\n"
ls $T/events/dfl | tr '\n' ' ' | sed 's/^/# /'
echo
ktap_check "explicit_unnamed_has_one" has dfl/p_${S}_0
ktap_check "explicit_named_has_one" has dfl/named
ktap_check "explicit_return_has_one" has dfl/r_${S}_0
ktap_check "address_has_one" has dfl/at
ktap_check "unnamed_address_has_its_made_name" sh -c "ls $T/events/dfl | grep -q '^r_0x'"
ktap_check "glob_with_args_has_one" has dfl/p_${G}_0
ktap_check "glob_without_args_none" sh -c "! ls $T/events/dfl | grep -q '^p_ksys_rea'"
ktap_check "direct_has_one" has dfl/${BP_SYS}getuid__entry
# Its records, while it counts.
echo > $T/trace
echo 'comm == "bphit"' > $T/events/dfl/named/filter
echo 1 > $T/events/dfl/named/enable
echo 1 > $T/tracing_on
bphit 3 > /dev/null
echo 0 > $T/tracing_on
echo 0 > $T/events/dfl/named/enable
echo 0 > $T/events/dfl/named/filter
ktap_check "default_event_records" test "$(grep -c ' named: ' $T/trace)" -eq 3
# Every line's probes: two at getppid's entry, the address's kprobe, two
# returns, the vfs_fsync_range member, two ksys_rea* members, the direct
# call.
ktap_check "every_probe_made" test "$(bp_set_probes dfl)" -eq 9
# Retired without --sync, made again at once: the new create waits for the
# old teardown (its events' names), and has events of its own.
ktap_check "unregister_then_create_again" bp_ctl "unregister dfl\np:dfl/named $S\ncreate dfl\n"
ktap_check "the_new_set_has_its_event" has dfl/named
ktap_check "the_old_events_gone" test ! -d $T/events/dfl/at
ktap_check "unregister_default" bp_ctl 'unregister dfl --sync\n'
ktap_check "default_events_gone" test ! -d $T/events/dfl

# --events: a glob's members too.
ktap_check "events_create" bp_ctl "p:dall/ $S\np:dall/ ksys_rea* max=2\ncreate dall --events\n"
ktap_check "events_gives_members_one" test "$(ls $T/events/dall | grep -c '^p_ksys_rea')" -eq 2
ktap_check "events_gives_direct_members_one" bp_ctl "d:dd/ ${BP_SYS}getuid*\ncreate dd --events\n"
ktap_check "direct_member_has_one" has dd/${BP_SYS}getuid__entry
# --no-events and --bare: none; arguments refused.
ktap_check "no_events_create" bp_ctl "p:dno/ $S\nr:dno/ret $S\ncreate dno --no-events\np:dbare/ $S\ncreate dbare --bare\n"
ktap_check "no_events_none" sh -c "! test -d $T/events/dno && ! test -d $T/events/dbare"
bp_expect_err "no_events_refuses_args" "$EINVAL" "p:dna/ $S c=\$comm\ncreate dna --no-events\n"
ktap_check "unregister" bp_ctl 'unregister dall\nunregister dd\nunregister dno\nunregister dbare --sync\n'
ktap_check "rmmod" rmmod batchprobe
ktap_finish
