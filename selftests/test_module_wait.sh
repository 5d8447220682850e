#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: MOD:SYM probes on a module that is not loaded wait for it, as kprobe_events' do: the set says which wait, they are registered when the module loads (armed if the set is enabled), go when it unloads, come back when it loads again, and count what the kernel's own probes on the same function count
# requires: bp_foreign.ko (selftests/modules), CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# The kernel is the oracle: kprobe_events' probes on the same lines (group
# kpw, events on throughout) beside the set (group bpw, made with
# --events): both made while bp_foreign is not loaded, both registered
# when it loads (the module notifier's MODULE_STATE_COMING), both counting
# the calls a write of N to bp_foreign's poke parameter makes
# (bp_foreign_extra_a, N times), across an unload and two loads more. A
# probe on the module's init function does what the kernel's does there.
# A second set (bpd) is made, not enabled: its probes are registered
# disarmed on load and count once it is enabled. A line on a function the
# module lacks waits too, as kprobe_events' does, and is left waiting, said
# in the kernel log, when the module comes without it.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 46
ENOENT=2
M=bp_foreign F=bp_foreign_extra_a
P=p_${M}_${F}_0
POKE=/sys/module/$M/parameters/poke

bp_load insmod_batchprobe
rmmod $M 2>/dev/null
echo 0 > $T/tracing_on
echo > $T/trace
ktap_check "module_not_loaded" test ! -d /sys/module/$M
ktap_check "kprobe_events_keeps_them" sh -c "printf '%s\n' 'p:kpw/ $M:$F' 'p:kpw/kin $M:$F' 'r:kpw/kout $M:$F' 'p:kpw/ki $M:init_module' >> $T/kprobe_events"
ktap_check "set_made_waiting" bp_ctl "p:bpw/ $M:$F\np:bpw/bin $M:$F\nr:bpw/bout $M:$F\np:bpw/bi $M:init_module\ncreate bpw --events\nenable bpw\n"
ktap_check "disabled_set_made_waiting" bp_ctl "p:bpd/din $M:$F\ncreate bpd\n"
# "  KIND NAME SYM+OFF hits=N missed=N [state=S]": SET's probe NAME.
line() { awk -v set="$1" -v n="$2" '$1 == "set" { cur = $2; next } cur == set && $2 == n' $BP_DEBUGFS/stats; }
state() { line "$1" "$2" | tr ' ' '\n' | sed -n 's/^state=//p'; }
hits() { line "$1" "$2" | tr ' ' '\n' | sed -n 's/^hits=//p'; }
poke() { echo "$1" > $POKE; }
line bpw bin | sed 's/^/#/'
ktap_check "stats_says_entry_waits" test "$(state bpw bin)" = waiting
ktap_check "stats_says_return_waits" test "$(state bpw bout)" = waiting
ktap_check "sets_counts_them" test "$(bp_field bpw waiting)" = 4 -a "$(bp_state bpw)" = enabled
ktap_check "events_made_as_the_kernel" test -d $T/events/kpw/$P -a -d $T/events/bpw/$P -a -d $T/events/bpw/bout
ktap_check "same_entry_format" bp_same_format $T/events/kpw/$P/format $T/events/bpw/$P/format
echo 1 > $T/events/kpw/enable
echo 1 > $T/events/bpw/enable

# Loaded: every probe registered, the enabled set's armed.
ktap_check "insmod_foreign" insmod "$BP_FOREIGN"
line bpw bin | sed 's/^/#/'
ktap_check "registered_on_load" test -z "$(state bpw bin)$(state bpw bout)$(state bpd din)"
# The module's init function (init_module), probed by both: the kernel's
# probe counts its one call, then is gone with the init text (kprobes' own
# notifier on MODULE_STATE_LIVE), or the kernel refuses it at the load
# ("Failed to re-register probe") and it stays waiting: batchprobe's does
# as the kernel's did.
init_ok=0
[ "$(bp_nhit ki)" = 1 ] && init_ok=1
echo "# init_module: kprobe_events $(bp_nhit ki) hit(s), batchprobe $(hits bpw bi) ($(state bpw bi))"
if [ $init_ok = 1 ]; then want_init="1 gone"; else want_init="0 waiting"; fi
ktap_check "init_function_as_the_kernel" test "$(hits bpw bi) $(state bpw bi)" = "$want_init"
ktap_check "sets_counts_none_waiting" test "$(bp_field bpw waiting)" = "$([ $init_ok = 1 ] || echo 1)"
echo 1 > $T/tracing_on
poke 5
echo 0 > $T/tracing_on
ktap_check "kernel_counts_5" test "$(bp_nhit kin)" = 5 -a "$(bp_nhit kout)" = 5
ktap_check "entry_counts_as_the_kernel" test "$(hits bpw bin)" = "$(bp_nhit kin)"
ktap_check "return_counts_as_the_kernel" test "$(hits bpw bout)" = "$(bp_nhit kout)"
ktap_check "disabled_set_counts_nothing" test "$(hits bpd din)" = 0
# Each group's entry records of the same calls (two kretprobes on one
# function see each other's trampoline as the caller: their records are
# counted here, compared as text in test_kprobe_module_symbol.sh).
records() { grep -v '^#' $T/trace | sed -n "s/.* $1: //p"; }
bp_same_records "entry_records_as_the_kernel" "$(records kin)" "$(records bin)" 5
ktap_check "return_records_as_many" test "$(records bout | grep -c .)" = 5 -a "$(records kout | grep -c .)" = 5
ktap_check "enable_disabled_set" bp_ctl 'enable bpd\n'
poke 2
ktap_check "both_count_as_the_kernel" test "$(hits bpw bin)" = 7 -a "$(bp_nhit kin)" = 7 -a "$(hits bpd din)" = 2

# Unloaded under the sets: their probes go, as the kernel's go.
ktap_check "rmmod_under_the_sets" rmmod $M
ktap_check "stats_says_gone" test "$(state bpw bin)" = gone -a "$(state bpw bout)" = gone
ktap_check "sets_counts_them_gone" test "$(bp_field bpw gone)" = $((3 + init_ok)) -a "$(bp_state bpw)" = enabled
ktap_check "kernel_lists_all_gone" test "$(grep -c '\[GONE\]' /sys/kernel/debug/kprobes/list)" -eq $((7 + 2 * init_ok))

# Loaded again: registered again, and armed, as the kernel's.
ktap_check "insmod_again" insmod "$BP_FOREIGN"
ktap_check "registered_again" test -z "$(state bpw bin)$(state bpw bout)$(state bpd din)"
echo > $T/trace
echo 1 > $T/tracing_on
poke 3
echo 0 > $T/tracing_on
ktap_check "counts_again_as_the_kernel" test "$(hits bpw bin)" = 10 -a "$(bp_nhit kin)" = 10 -a "$(hits bpw bout)" = "$(bp_nhit kout)"
ktap_check "disabled_then_enabled_set_counts_again" test "$(hits bpd din)" = 5
bp_same_records "entry_records_again_as_the_kernel" "$(records kin)" "$(records bin)" 3

# A disabled set's probes are registered disarmed on a load.
ktap_check "disable" bp_ctl 'disable bpw\nflush\n'
rmmod $M
ktap_check "insmod_under_a_disabled_set" insmod "$BP_FOREIGN"
poke 1
ktap_check "disabled_counts_nothing" test "$(hits bpw bin)" = 10 -a "$(bp_nhit kin)" = 11 -a -z "$(state bpw bin)"
ktap_check "enabled_counts" bp_ctl 'enable bpw\n'
poke 1
ktap_check "enabled_counts_as_the_kernel" test "$(hits bpw bin)" = 11 -a "$(bp_nhit kin)" = 12

# A function the module lacks: refused while it is loaded (as
# kprobe_events refuses it), waits while it is not, and is left waiting
# when the module comes without it.
bp_expect_err "missing_function_refused_while_loaded" "$ENOENT" "p:bpn/ $M:no_such_function\ncreate bpn\n"
rmmod $M
ktap_check "missing_function_waits" bp_ctl "p:bpn/ $M:no_such_function\ncreate bpn\nenable bpn\n"
dmesg -c > /dev/null
insmod "$BP_FOREIGN"
ktap_check "missing_function_left_waiting" test "$(state bpn $M:no_such_function)" = waiting
ktap_check "kernel_log_says_why" sh -c "dmesg | grep -q 'set bpn: kprobe $M:no_such_function: not registered on $M.s load, left waiting'"

# Gone with their sets: nothing waits, nothing pins the module.
echo 0 > $T/events/kpw/enable
echo 0 > $T/events/bpw/enable
ktap_check "unregister_all" bp_ctl 'unregister bpw\nunregister bpd\nunregister bpn --sync\n'
ktap_check "sets_freed" test "$(bp_state bpw)$(bp_state bpd)$(bp_state bpn)" = freedfreedfreed
echo > $T/kprobe_events
ktap_check "rmmod" sh -c "rmmod $M && rmmod batchprobe"
# Waiting, then unregistered: the module's next load finds nothing.
bp_load insmod_batchprobe_again
ktap_check "waits_then_goes" bp_ctl "p:bpu/ $M:$F\ncreate bpu\nunregister bpu --sync\n"
ktap_check "load_after" sh -c "insmod $BP_FOREIGN && echo 1 > $POKE && rmmod $M && rmmod batchprobe"
ktap_finish
