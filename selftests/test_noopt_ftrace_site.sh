#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a --noopt kprobe at a function's ftrace site (or past the end of the function before it) joins other kprobes there and leaves no stale kprobe and no warning; past the site it is never optimized
# requires: CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
# speed: slow on stock-7.3 distro-7.3
#
# Kprobes at a function's ftrace site (its fentry call: SYM+0, or SYM+4
# after the ENDBR under IBT) are ftrace-based. The kernel arms one through
# kprobe_ftrace_ops, or through kprobe_ipmodify_ops when it has a post
# handler, and disarms it through whichever its aggregate's post handler
# names at disarm time. A probe with a post handler that joins an armed
# ftrace-based probe there gives the aggregate one (add_new_kprobe()), and
# it keeps it: the last disarm then looks the address up in the other ops,
# fails ("Failed to disarm kprobe-ftrace", a WARNING), and the kprobe stays
# registered after its owner freed it (an oops at the next hit). A --noopt
# set gives its kprobes a post handler so that the optimizer never takes
# them: never at the ftrace site, where the kernel never optimizes anyway.
#
# The site is where kprobe_events' own probe on SYM lands (kprobes/list).
# At it a --noopt set joins: an enabled kprobe_events probe, which leaves
# after it (by SYM+OFF: the kernel resolves the name); a plain set (p!: at
# +0) armed first, by address and by a glob member (batchprobe knows the
# address); then the other way round. Each case ends with the kernel's
# kprobe count as at the start and no warning since. Past the site (the
# first instruction after the call), where a plain probe is optimized, a
# --noopt one is an int3 kprobe never optimized. A function ftrace does not
# trace is refused, as kprobe_events refuses it.
. ./bp_lib.sh
T=/sys/kernel/tracing
L=/sys/kernel/debug/kprobes/list
F=vfs_read
# The site, before anything is loaded.
echo "p:bpnf/site $F" >> $T/kprobe_events 2>/dev/null ||
    bp_skip_all "kprobe_events refuses a probe on $F (lockdown=confidentiality?)"
SITE=$(awk -v f=$F '$3 ~ "^" f "\\+0x" { print $3; exit }' $L)
ADDR=0x$(awk -v f=$F '$3 ~ "^" f "\\+0x" { print $1; exit }' $L)
echo "-:bpnf/site" >> $T/kprobe_events
OFF=$((${SITE#"$F+"}))
# Hidden addresses (kptr_restrict) read as zeroes.
case $ADDR in 0x*[1-9a-f]*) ;; *) ADDR="" ;; esac
ktap_plan 27

bp_load
echo "# $F's ftrace site: $SITE (${ADDR:-address hidden})"
ktap_check "site_found" test -n "$SITE"
kp0=$(kprobes_registered)
MARK="bp-noopt-ftrace-site: start"
echo "$MARK" > /dev/kmsg
echo 0 > $T/tracing_on
# The optimizer's window: 10 s, 30 s on the debug kernels (KASAN, lockdep,
# kmemleak: 3-4x slower under TCG).
W=10
[ -e /sys/kernel/debug/kmemleak ] && W=30

# unchanged NAME: the kernel holds as many kprobes as at the start and
# logged no warning since.
unchanged() {
    ktap_check "$1" test "$(kprobes_registered) $(warnings_since_start)" = "$kp0 0"
}
warnings_since_start() {
    dmesg | sed -n "/$MARK/,\$p" | grep -E "WARNING:|BUG:|Failed to disarm kprobe-ftrace" |
        grep -cvF "$BP_UNWIND_NOTE"
}
# flags_of SYM+OFF: the flags kprobes/list shows for the probe there.
flags_of() {
    _p=$(printf '%s+0x%x' "${1%+*}" "${1#*+}")
    awk -v p="$_p" '$3 == p { $1 = $2 = $3 = ""; print; exit }' $L
}
# optimized SYM+OFF: whether kprobes/list shows the probe there optimized
# within $W seconds of its arm (the optimizer runs 5 jiffies after an arm,
# then waits for an RCU-tasks grace period).
optimized() {
    _t=0
    while [ $_t -lt $W ]; do
        sleep 1
        flags_of "$1" | grep -q OPTIMIZED && return 0
        _t=$((_t + 1))
    done
    return 1
}
# plain_optimized SYM+OFF: a plain set's kprobe there, armed, is optimized;
# the set is gone again after.
plain_optimized() {
    bp_ctl "p:op/ $1\ncreate op\nenable op\n" || return 1
    optimized "$1"
    _r=$?
    bp_ctl "unregister op --sync\n"
    return $_r
}
# int3_never_optimized SYM+OFF: armed, neither ftrace-based nor optimized
# in the window in which a plain probe there is.
int3_never_optimized() {
    ! optimized "$1" && ! flags_of "$1" | grep -q FTRACE
}
# at_site N: N kprobes at the site (children of one ftrace-based aggregate).
at_site() {
    test "$(grep -cF " $SITE " $L) $(grep -F " $SITE " $L | grep -cF '[FTRACE]')" = "$1 $1"
}

if [ "$OFF" -eq 0 ]; then
    # No ENDBR: a --noopt probe at the site is at +0, which has no post
    # handler anyway.
    for c in beside_kprobe_events joins_at_site kprobe_events_leaves_last case_1 \
             by_address case_2 plain_then_noopt noopt_then_plain case_3 \
             by_glob case_4; do
        ktap_skip "$c" "$F's ftrace site is at +0 on this kernel"
    done
else
    # A kprobe_events probe armed first; the --noopt set joins it by name
    # (the kernel resolves it), and leaves first.
    echo "p:bpnf/site $F" >> $T/kprobe_events
    echo 1 > $T/events/bpnf/site/enable
    ktap_check "beside_kprobe_events" bp_ctl "p:nf/ $F+$OFF\ncreate nf --noopt\nenable nf\n"
    ktap_check "joins_at_site" at_site 2
    cat /proc/version > /dev/null
    bp_ctl "unregister nf --sync\n"
    echo 0 > $T/events/bpnf/site/enable
    ktap_check "kprobe_events_leaves_last" sh -c "echo '-:bpnf/site' >> $T/kprobe_events"
    unchanged "case_1"

    # By address, beside a plain set armed first.
    if [ -n "$ADDR" ]; then
        bp_ctl "p!:pl/ $F\ncreate pl\nenable pl\n"
        ktap_check "by_address" bp_ctl "p:nf/ $ADDR\ncreate nf --noopt\nenable nf\n"
        bp_ctl "unregister nf --sync\nunregister pl --sync\n"
        unchanged "case_2"
    else
        ktap_skip "by_address" "kprobes/list hides addresses"
        ktap_skip "case_2" "kprobes/list hides addresses"
    fi

    # A plain set armed first, then a --noopt one; and the other way round.
    bp_ctl "p!:pl/ $F\ncreate pl\nenable pl\n"
    ktap_check "plain_then_noopt" bp_ctl "p:nf/ $F+$OFF\ncreate nf --noopt\nenable nf\n"
    bp_ctl "unregister pl --sync\nunregister nf --sync\n"
    bp_ctl "p:nf/ $F+$OFF\ncreate nf --noopt\nenable nf\n"
    ktap_check "noopt_then_plain" bp_ctl "p!:pl/ $F\ncreate pl\nenable pl\n"
    bp_ctl "unregister nf --sync\nunregister pl --sync\n"
    unchanged "case_3"

    # A glob member: batchprobe walked its address.
    bp_ctl "p!:pl/ $F\ncreate pl\nenable pl\n"
    ktap_check "by_glob" bp_ctl "p:nf/ ${F%?}[${F#"${F%?}"}]+$OFF\ncreate nf --noopt\nenable nf\n"
    bp_ctl "unregister nf --sync\nunregister pl --sync\n"
    unchanged "case_4"
fi

# Past the end of the symbol before $F (its __pfx_ padding symbol under
# call padding), by name: SYM+OFF lands on $F's first byte, which the
# kernel moves to its ftrace site (past an ENDBR) and makes ftrace-based.
# The --noopt set is refused (past the end), before a probe with a post
# handler could join the plain set's armed probe there; the plain set's
# disarm and removal then leave nothing and warn nothing.
# (The fuzzer met it: vfs_read+4096 is the next function's +0 on the test
# kernel, and a kretprobe there stayed registered, "Failed to disarm
# kprobe-ftrace", the module held for good.)
FA=$(awk -v f=$F '$3 == f && ($2 == "t" || $2 == "T") { print $1; exit }' /proc/kallsyms)
PREV=$(awk -v a="$FA" '($2 == "t" || $2 == "T") && NF == 3 && $1 < a { p = $3 } $1 >= a { print p; exit }' /proc/kallsyms)
PA=$(awk -v p="$PREV" '$3 == p && ($2 == "t" || $2 == "T") { print $1 }' /proc/kallsyms)
case $FA in *[1-9a-f]*) ;; *) FA="" ;; esac
if [ -n "$FA" ] && [ -n "$PREV" ] && [ "$(echo "$PA" | wc -w)" = 1 ]; then
    DELTA=$((0x$FA - 0x$PA))
    echo "# $PREV+$DELTA is $F+0"
    bp_ctl "p!:pl/ $F\ncreate pl\nenable pl\n"
    bp_expect_err "past_end_noopt_refused" 22 "p:nf/ $PREV+$DELTA\ncreate nf --noopt\n"
    bp_expect_err "past_end_noopt_int3_refused" 22 "p!:nf/ $PREV+$DELTA\ncreate nf --noopt\n"
    bp_ctl "disable pl\nunregister pl --sync\n"
    unchanged "case_7"
else
    for c in past_end_noopt_refused past_end_noopt_int3_refused case_7; do
        ktap_skip "$c" "no unique symbol right before $F, or /proc/kallsyms hides addresses"
    done
fi

# The same through a glob member an earlier function of its name shadows:
# the kernel resolves the member's name to that function, and SYM+OFF, in
# the member, is past the end of the first: there the first byte of a
# traced function G. The glob's first member is past its end (skipped),
# the second is judged by the first (past its end: no post handler), lands
# on G's site and is refused there, so the set has nothing: refused with
# ENOENT, and the plain set on G leaves nothing and warns nothing.
# A name twice, both functions traced (else the member is refused as
# notrace first), the first followed by a traced G of a name of its own
# (past G's __pfx_ padding symbol, if any), the second longer: "N OFF G"
# (sizes up to the next symbol, as kallsyms counts them).
SH=$(awk 'function lo(x, i, v) { # the low 32 bits of a hex address (awk: doubles)
              x = tolower(substr(x, length(x) - 7)); v = 0
              for (i = 1; i <= 8; i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
              return v }
          function dist(x, y, d) { d = lo(y) - lo(x); return d < 0 ? d + 4294967296 : d }
          NR == FNR { tr[$1]++; next }
          NF == 3 { n++; a[n] = $1; t[n] = $2; s[n] = $3; c[$3]++ }
          END {
              for (i = 1; i < n; i++) {
                  if (t[i] !~ /^[tT]$/ || c[s[i]] != 2 || tr[s[i]] != 2 || seen[s[i]]++) continue
                  k = i + 1
                  if (s[k] ~ /^__pfx_/) k++   # the padding before G (CALL_PADDING)
                  g = s[k]
                  if (!(g in tr) || c[g] != 1 || t[k] !~ /^[tT]$/) continue
                  off = dist(a[i], a[k])
                  for (j = i + 1; j < n; j++) if (s[j] == s[i]) break
                  if (j < n && t[j] ~ /^[tT]$/ && dist(a[j], a[j + 1]) > off + 16) {
                      print s[i], off, g; exit
                  }
              }
          }' $T/available_filter_functions /proc/kallsyms 2>/dev/null)
if [ -n "$FA" ] && [ -n "$SH" ]; then
    set -- $SH
    echo "# $1, twice: the first $2 bytes long, then $3; the second longer"
    bp_ctl "p!:pl/ $3\ncreate pl\nenable pl\n"
    bp_expect_err "shadowed_member_past_end_refused" 2 "p:nf/ ${1%?}[${1#"${1%?}"}]+$2\ncreate nf --noopt\n"
    bp_ctl "disable pl\nunregister pl --sync\n"
    unchanged "case_8"
else
    for c in shadowed_member_past_end_refused case_8; do
        ktap_skip "$c" "no name given twice before a traced function here, or /proc/kallsyms hides addresses"
    done
fi

# Past the site (the instruction after the 5-byte call): where the kernel
# optimizes a plain probe, a --noopt one is an int3 kprobe never optimized.
PAST=$((OFF + 5))
if plain_optimized "$F+$PAST"; then
    ktap_pass "past_plain_optimized"
    ktap_check "past_site_armed" bp_ctl "p:nf/ $F+$PAST\ncreate nf --noopt\nenable nf\n"
    ktap_check "past_site_never_optimized" int3_never_optimized "$F+$PAST"
    bp_ctl "unregister nf --sync\n"
else
    ktap_skip "past_plain_optimized" "the kernel does not optimize a kprobe at $F+$PAST"
    ktap_skip "past_site_armed" "no optimized plain probe to compare with"
    ktap_skip "past_site_never_optimized" "no optimized plain probe to compare with"
fi
unchanged "case_5"

# SYM+OFF of a function ftrace does not trace: kprobe_events refuses such
# functions ("Could not probe notrace function"), and so does batchprobe,
# --noopt or not (test_notrace_oracle.sh compares the two): one of the
# trace events' output functions (notrace, and only called when a trace is
# read), refused with EINVAL before the kernel could make a probe of it.
N=$(awk 'NR == FNR { tr[$1] = 1; next }
         ($2 == "t" || $2 == "T") && NF == 3 && !($3 in tr) &&
         $3 ~ /^trace_raw_output_/ && $3 !~ /\./ { print $3; exit }' \
        $T/available_filter_functions /proc/kallsyms)
if [ -n "$N" ]; then
    echo "# untraced: $N"
    bp_expect_err "untraced_noopt_refused" 22 "p:nf/ $N+$OFF\ncreate nf --noopt\n"
    bp_expect_err "untraced_int3_refused" 22 "p!:nf/ $N+$OFF\ncreate nf\n"
    ktap_check "untraced_refusal_in_the_kernels_words" sh -c "grep -q 'Could not probe notrace function' $BP_DEBUGFS/last_error || { sed 's/^/# /' $BP_DEBUGFS/last_error; false; }"
else
    for c in untraced_noopt_refused untraced_int3_refused untraced_refusal_in_the_kernels_words; do
        ktap_skip "$c" "no trace_raw_output_* function on this kernel"
    done
fi
unchanged "case_6"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
