#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a distribution's own module probed where it runs: Debian's ext4 (its image's modules package, loaded in the guest with modprobe, a file system mounted on a loop device), its functions on p:, r: and d: lines and in an exit set over ext4:ext4_* with --hist --errors, against the kernel's kprobe_events and fprobe events (%return, hist triggers on the return values) on the same calls; ext4 unloaded and loaded again under a live set
# requires: /var/lib/batchprobe/ext4.img, CONFIG_KPROBE_EVENTS, CONFIG_FPROBE_EVENTS, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF_MODULES
#
# Only Debian's image (stock-7.3) carries the file system image and the
# image's own ext4, jbd2, mbcache, crc16 and loop modules
# (scripts/stock-kernel.sh): the kernels we build have no ext4 module.
#
# One workload (w: in a directory of the mounted file system: mkdir,
# create, write, two rmdirs of a directory that is not empty: ENOTEMPTY,
# a lookup of a 300-byte name: ENAMETOOLONG, then everything removed)
# runs three times:
#  1. under a set of p:/r: lines on ext4's functions (bp4: an event per
#     named line; a p!: glob, int3 kprobes), a set of p:/r: globs over
#     ext4's functions (bg4: fprobes, which hold ext4 loaded until the set
#     is unregistered) and a d: entry set (bd4), beside kprobe_events' probes on
#     the same functions (ke4): the same hits, and the kretprobe's return
#     values are the r: event's, call by call;
#  2. under an exit set over every ext4_* function ftrace traces (bx4,
#     --exit --hist --errors: the module's BTF gives prototypes and error
#     classes), beside the kernel's fprobe events with %return on five of
#     them (kf4) and a hist trigger keyed on each one's return value: per
#     function the set's returns are the kernel's records, its histogram
#     counts each of them, and its errors are the kernel's negative return
#     values, class by class (ENOTEMPTY=2, ENAMETOOLONG=1);
#  3. after ext4 was unloaded under bp4 (its probes gone, as kprobe_events'
#     are) and loaded again (registered again, as the kernel's): the same
#     hits again.
# Only the workload calls the functions compared (directory operations;
# ext4's own threads write back and commit, which calls none of them).
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 46
IMG=/var/lib/batchprobe/ext4.img
MNT=/tmp/bp-ext4
M=ext4

# Field KEY of set bp4's probe NAME (bmk and the p!: glob's members are
# kprobes, brm a kretprobe: "  KIND NAME SYM+OFF hits=N ... [state=S]").
pfield() {
    case $1 in brm) bp_line_field bp4 kretprobe "$1" "$2" ;; *) bp_line_field bp4 kprobe "$1" "$2" ;; esac
}
# The kernel's hist trigger on fprobe event kf4/EVENT, keyed on rv: "RV N"
# lines, and its total. The hist file prints a key as an unsigned 64-bit
# number (-39 as 18446744073709551577); the shell's 64-bit arithmetic
# (busybox ash's) reads it back as the signed value.
khist() {
    sed -n 's/^{ rv: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1 \2/p' $T/events/kf4/$1/hist |
        while read -r k n; do echo "$((k)) $n"; done
}
ktotal() { khist "$1" | awk '{ n += $2 } END { print n + 0 }'; }
ename() {
    case $1 in
        36) echo ENAMETOOLONG ;; 39) echo ENOTEMPTY ;; 2) echo ENOENT ;; 17) echo EEXIST ;;
        28) echo ENOSPC ;; 22) echo EINVAL ;; 5) echo EIO ;; *) echo "errno$1" ;;
    esac
}
# The kernel's errors of EVENT (return values in -4095..-1, MAX_ERRNO) as
# batchprobe names them ("ENOTEMPTY=2", a line each, sorted), and
# batchprobe's of its probe NAME in set bx4.
kerrs() { khist "$1" | awk '$1 < 0 && $1 >= -4095 { print -$1, $2 }' | while read -r e n; do echo "$(ename "$e")=$n"; done | sort; }
berrs() {
    awk -v n="$1" '$1 == "set" { cur = $2; next } cur == "bx4" && $1 == "errors" && $2 == n' "$BP_DEBUGFS/stats" |
        tr ' ' '\n' | grep '=' | grep -v '^\(total\|other\)=' | sort
}
w() {
    (
        cd $MNT || exit 1
        mkdir -p a/b && touch a/f && echo hi > a/g
        rmdir a 2> /dev/null
        rmdir a 2> /dev/null
        ls "$(printf 'x%.0s' $(seq 300))" 2> /dev/null
        rmdir a/b && rm a/f a/g && rmdir a
    )
}
cleanup_ext4() {
    umount $MNT 2> /dev/null
    rmmod $M 2> /dev/null
}

cleanup_ext4
ktap_check "modprobe_ext4" modprobe $M
ktap_check "ext4_is_a_module" test -f /sys/module/$M/initstate -a -s /sys/kernel/btf/$M
mkdir -p $MNT
ktap_check "mounted_on_a_loop_device" mount -t ext4 -o loop $IMG $MNT
bp_load insmod_batchprobe
echo 0 > $T/tracing_on
echo > $T/trace

# 1. p:, r: and d: lines on ext4's functions, beside kprobe_events'.
ktap_check "kprobe_events_on_them" sh -c "printf '%s\n' 'p:ke4/kmk $M:ext4_mkdir' 'r:ke4/krm $M:ext4_rmdir rv=\$retval:s32' 'p:ke4/klk $M:ext4_lookup' >> $T/kprobe_events"
echo 1 > $T/events/ke4/enable
ktap_check "create_probe_set" bp_ctl "p:bp4/bmk $M:ext4_mkdir\nr:bp4/brm $M:ext4_rmdir rv=\$retval:s32\np!:bp4/ $M:ext4_look*\ncreate bp4\nenable bp4\n"
ktap_check "int3_glob_over_the_module" test "$(bp_field bp4 kprobes)" -ge 2 -a -n "$(pfield $M:ext4_lookup hits)" -a -z "$(bp_field bp4 holds)"
ktap_check "create_fprobe_glob_set" bp_ctl "p:bg4/ $M:ext4_*\nr:bg4/ $M:ext4_*dir\ncreate bg4\nenable bg4\n"
ktap_check "fprobes_hold_ext4" test "$(bp_field bg4 fprobes)" -ge 300 -a "$(bp_field bg4 fretprobes)" -ge 2 -a \
    "$(bp_field bg4 kprobes)" = 0 -a "$(bp_field bg4 holds)" = $M
ktap_check "create_direct_set" bp_ctl "d:bd4/ $M:ext4_lookup\nd:bd4/ $M:ext4_mkd*\ncreate bd4\nenable bd4\n"
ktap_check "direct_set_holds_ext4" test "$(bp_field bd4 direct) $(bp_field bd4 holds)" = "2 $M"
echo 1 > $T/events/bp4/enable
echo 1 > $T/tracing_on
w
echo 0 > $T/tracing_on
grep -E "^(bp4|bg4|bd4) " $BP_DEBUGFS/sets | sed 's/^/# /'
ktap_check "kernel_saw_the_workload" test "$(bp_nhit kmk) $(bp_nhit krm)" = "2 4" -a "$(bp_nhit klk)" -ge 5
ktap_check "p_counts_as_the_kernel" test "$(pfield bmk hits)" = "$(bp_nhit kmk)"
ktap_check "r_counts_as_the_kernel" test "$(pfield brm hits)" = "$(bp_nhit krm)"
ktap_check "glob_member_counts_as_the_kernel" test "$(pfield $M:ext4_lookup hits)" = "$(bp_nhit klk)"
ktap_check "fprobes_count_as_the_kernel" test "$(bp_line_field bg4 fprobe $M:ext4_mkdir hits) $(bp_line_field bg4 fprobe $M:ext4_lookup hits)" = "$(bp_nhit kmk) $(bp_nhit klk)"
ktap_check "fretprobe_counts_as_the_kernel" test "$(bp_line_field bg4 fretprobe $M:ext4_rmdir hits)" = "$(bp_nhit krm)"
refs=$(cat /sys/module/$M/refcnt)
ktap_check "unregister_fprobe_glob_set" bp_ctl 'unregister bg4 --sync\n'
ktap_check "let_ext4_go" test "$(cat /sys/module/$M/refcnt)" = $((refs - 1))
bp_same_records "return_values_as_the_kernel" "$(bp_rv_values krm)" "$(bp_rv_values brm)" 4
ktap_check "direct_counts_as_the_kernel" test "$(bp_exit_field bd4 $M:ext4_lookup hits)" = "$(bp_nhit klk)" -a \
    "$(bp_exit_field bd4 $M:ext4_mkdir hits)" = "$(bp_nhit kmk)"
ktap_check "unregister_direct_set" bp_ctl 'unregister bd4 --sync\n'
echo 0 > $T/events/bp4/enable

# 2. An exit set over ext4's functions, beside the kernel's fprobe events
# (kf4/fNAME for ext4_NAME; batchprobe's probe on ext4_rmdir is its named
# line, xrm, with an event: its records are the kernel's).
fns="rmdir lookup mkdir create unlink"
pname() { if [ "$1" = rmdir ]; then echo xrm; else echo "$M:ext4_$1"; fi; }
ktap_check "create_exit_set" bp_ctl "d:bx4/xrm $M:ext4_rmdir rv=\$retval:s32\nd:bx4/ $M:ext4_*\ncreate bx4 --exit --hist --errors\n"
grep "^bx4 " $BP_DEBUGFS/sets | sed 's/^/# /'
awk '$1 == "set" { cur = $2; next } cur == "bx4" && $1 == "skipped"' $BP_DEBUGFS/stats | head -4 | sed 's/^/# /'
ktap_check "exit_set_over_hundreds" test "$(bp_field bx4 direct)" -ge 300 -a "$(bp_field bx4 holds)" = $M
ok=1
for f in $fns; do
    ty=s32
    [ $f = lookup ] && ty=s64 # a struct dentry *: ERR_PTR(-ENAMETOOLONG)
    echo "f:kf4/f$f ext4_$f%return rv=\$retval:$ty" >> $T/dynamic_events &&
        echo 'hist:keys=rv' > $T/events/kf4/f$f/trigger || ok=0
done
ktap_check "fprobe_events_and_hist_triggers" test $ok = 1
echo 1 > $T/events/kf4/enable
echo 1 > $T/events/bx4/xrm/enable
ktap_check "enable_exit_set" bp_ctl 'enable bx4\n'
echo > $T/trace
echo 1 > $T/tracing_on
w
echo 0 > $T/tracing_on
ktap_check "disable_exit_set" bp_ctl 'disable bx4\n'
echo 0 > $T/events/kf4/enable
echo 0 > $T/events/bx4/xrm/enable
for f in $fns; do
    echo "# ext4_$f: kernel $(khist f$f | tr '\n' ' ')| batchprobe exits=$(bp_exit_field bx4 "$(pname $f)" exits) $(berrs "$(pname $f)" | tr '\n' ' ')"
done
ktap_check "kernel_saw_the_errors" test "$(kerrs frmdir)/$(kerrs flookup)" = "ENOTEMPTY=2/ENAMETOOLONG=1"
ok=1
for f in $fns; do [ "$(bp_exit_field bx4 "$(pname $f)" exits)" = "$(ktotal f$f)" ] || ok=0; done
ktap_check "returns_as_the_kernel" test $ok = 1
ok=1
for f in $fns; do [ "$(bp_line_field bx4 hist "$(pname $f)" count)" = "$(ktotal f$f)" ] || ok=0; done
ktap_check "hist_counts_as_the_kernel" test $ok = 1
ok=1
for f in $fns; do [ "$(berrs "$(pname $f)")" = "$(kerrs f$f)" ] || ok=0; done
ktap_check "errors_as_the_kernel" test $ok = 1
ktap_check "error_totals" test "$(bp_line_field bx4 errors xrm total) $(bp_line_field bx4 errors $M:ext4_lookup total)" = "2 1"
bp_same_records "return_records_as_the_kernel" "$(bp_rv_values frmdir)" "$(bp_rv_values xrm)" 4
ktap_check "unregister_exit_set" bp_ctl 'unregister bx4 --sync\n'
for f in $fns; do
    echo '!hist:keys=rv' > $T/events/kf4/f$f/trigger
    echo "-:kf4/f$f" >> $T/dynamic_events
done
ktap_check "fprobe_events_gone" test ! -d $T/events/kf4

# 3. ext4 unloaded under bp4 and loaded again: its probes go and come back
# as kprobe_events' (the glob's member stays gone, as a MOD:GLOB member does).
ktap_check "umount" umount $MNT
ktap_check "rmmod_ext4_under_the_set" rmmod $M
ktap_check "probes_gone_with_it" test "$(pfield bmk state) $(pfield brm state) $(pfield $M:ext4_lookup state)" = "gone gone gone"
ktap_check "set_says_gone" test "$(bp_field bp4 gone)" = 3 -a "$(bp_state bp4)" = enabled
ktap_check "kernel_lists_all_gone" test "$(grep -c '\[GONE\]' /sys/kernel/debug/kprobes/list)" -eq 6
ktap_check "modprobe_ext4_again" modprobe $M
ktap_check "registered_again" test -z "$(pfield bmk state)$(pfield brm state)"
mount -t ext4 -o loop $IMG $MNT
w
ktap_check "counts_again_as_the_kernel" test "$(pfield bmk hits) $(pfield brm hits)" = "$(bp_nhit kmk) $(bp_nhit krm)" -a "$(bp_nhit kmk)" = 6

ktap_check "unregister_probe_set" bp_ctl 'unregister bp4 --sync\n'
echo 0 > $T/events/ke4/enable
echo > $T/kprobe_events
cleanup_ext4
ktap_check "ext4_unloads" test ! -d /sys/module/$M
ktap_check "rmmod" rmmod batchprobe
ktap_finish
