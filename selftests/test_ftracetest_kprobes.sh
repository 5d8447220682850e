#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the kernel's own ftracetest kprobe cases pass with 1000 batchprobe probes attached
# requires: CONFIG_KPROBE_EVENTS
# speed: slow
#
# batchprobe must coexist with every other kprobe user: with a set of 1000
# kprobes (250 on the debug kernels: bp_sized) enabled and one of direct
# calls attached, the kernel's own ftracetest kprobe cases (run by ftracetest itself, from the same
# linux-source tree) still pass, and the set still counts afterwards.
. ./bp_lib.sh
CASES="multiple_kprobes kprobe_insn_boundary kprobe_opt_types kprobe_ftrace busy_check add_and_remove"
ktap_plan 11
FT=/ftracetest

bp_load
ktap_check "kprobes_enabled" bp_ctl "p:bp/ *+5 max=$(bp_sized 1000) skip=*lock*\ncreate bp\nenable bp\n"
ktap_check "direct_set_attached" bp_ctl 'd:bpd/ '"${BP_SYS}getpp*"'\ncreate bpd\nenable bpd\n'
echo "# batchprobe: $(bp_field bp kprobes) kprobes, $(bp_field bpd direct) direct calls"
if [ ! -x $FT/ftracetest ] && [ -s $FT.absent ]; then
    # The kernel tree the image was built from has none (build-initramfs.sh).
    for c in $CASES; do ktap_skip "ftracetest_$c" "$(cat $FT.absent)"; done
elif [ ! -x $FT/ftracetest ]; then
    for c in $CASES; do ktap_fail "ftracetest_$c" "no $FT/ftracetest, though the image's tree was not said to lack it"; done
else
    list=""
    for c in $CASES; do list="$list test.d/kprobe/$c.tc"; done
    out=$(cd $FT && ./ftracetest -l - $list 2>&1)
    echo "$out" | sed 's/^/# /'
    # ftracetest prints the cases' names, then their results, one per line
    # and in the order given.
    results=$(echo "$out" | grep -o '\[\(PASS\|FAIL\|UNRESOLVED\|UNTESTED\|UNSUPPORTED\|XFAIL\|UNDEFINED\)\]' | tr -d '[]')
    i=0
    for c in $CASES; do
        i=$((i + 1))
        r=$(echo "$results" | sed -n "${i}p")
        case "$r" in
            PASS) ktap_pass "ftracetest_$c" ;;
            UNSUPPORTED) ktap_skip "ftracetest_$c" "ftracetest: unsupported on this kernel (see its requires: line)" ;;
            *) ktap_fail "ftracetest_$c" "ftracetest: ${r:-no result}" ;;
        esac
    done
fi
before=$(bp_field bp hits)
bphit 100 > /dev/null; cat /proc/version > /dev/null
ktap_check "set_still_counts" test "$(bp_field bp hits)" -gt "$before"
ktap_check "rmmod" sh -c "printf 'unregister bp\nunregister bpd\nflush\n' | bpwrite $BP_CTL && rmmod batchprobe"
ktap_finish
