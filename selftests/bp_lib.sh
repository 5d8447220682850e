# SPDX-License-Identifier: GPL-2.0
# batchprobe's selftest library (sourced; busybox sh): the KTAP output comes
# from the kernel's own kselftest/ktap_helpers.sh, installed next to this
# collection by the kselftest install (scripts/install-selftests.sh); below
# it, a thin shim keeping this collection's names for it, then batchprobe's
# own helpers (debugfs control and listings, the kernel's probe counts).

# When the program started (ktap_finish says how long it took).
: "${_BP_T0:=$(cut -d' ' -f1 /proc/uptime)}"
# The kernel's KTAP helpers: ../kselftest/ in an installed kselftest tree.
for d in "${KSFT_HELPERS_DIR:-}" ../kselftest /kselftest/kselftest; do
    [ -n "$d" ] && [ -r "$d/ktap_helpers.sh" ] && { . "$d/ktap_helpers.sh"; break; }
done
command -v ktap_test_pass > /dev/null || { echo "bp_lib.sh: kselftest/ktap_helpers.sh not found" >&2; exit 1; }

# The shim. A test program calls ktap_plan N, then one result per case,
# then ktap_finish (it exits: 0 when every planned case passed or skipped,
# none failed and none ran beyond the plan).
ktap_plan() { ktap_print_header; ktap_set_plan "$1"; }
ktap_pass() { ktap_test_pass "$1"; }
ktap_fail() {
    [ -n "${2:-}" ] && ktap_print_msg "$1: $2"
    ktap_test_fail "$1"
    return 0
}
# The kernel's ktap_print_msg expands its words unquoted: a message holding
# a lone * (a glob line) printed the working directory's listing instead.
# Here every line of the message is a KTAP comment, none a result.
ktap_print_msg() {
    printf '%s\n' "$*" | sed 's/^/# /'
}
ktap_skip() { ktap_test_skip "$1${2:+ ($2)}"; }
# ktap_check NAME COMMAND...: pass when COMMAND succeeds.
ktap_check() {
    name=$1; shift
    if out=$("$@" 2>&1); then ktap_pass "$name"; else ktap_fail "$name" "'$*' failed: $out"; fi
}
# The kernel's ktap_finished exits 0 when passed + skipped equal the plan,
# even with a failed case beside an unplanned one: here any failure, or any
# count of cases other than the plan, fails the program.
ktap_finish() {
    ktap_print_totals
    # How long the program ran (make check's times file keeps it per
    # program: scripts/check.sh, `CHECK program`), from the uptime when
    # this library was first sourced.
    echo "# took $(awk -v t0="$_BP_T0" '{ printf "%.1f", $1 - t0 }' /proc/uptime) s"
    _ran=$((KTAP_CNT_PASS + KTAP_CNT_SKIP + KTAP_CNT_FAIL))
    [ "$_ran" -eq "$KSFT_NUM_TESTS" ] || echo "# planned $KSFT_NUM_TESTS cases, ran $_ran"
    [ "$KTAP_CNT_FAIL" -eq 0 ] && [ "$_ran" -eq "$KSFT_NUM_TESTS" ] && exit "$KSFT_PASS"
    exit "$KSFT_FAIL"
}
# bp_bail_out REASON: the whole program cannot run, and that is a failure
# (the collection or the harness is broken, not the kernel lacking
# something): KTAP's "Bail out!", the program failed.
bp_bail_out() {
    ktap_print_header
    echo "Bail out! $1"
    exit "$KSFT_FAIL"
}
# bp_skip_all REASON: the whole program cannot run here: kselftest's skip.
bp_skip_all() {
    ktap_print_header
    ktap_skip_all "$1"
    exit "$KSFT_SKIP"
}
# bp_locked_down: the kernel runs locked down (lockdown=integrity or
# confidentiality, as on a Secure Boot machine): debugfs refuses to open a
# file that can be written, unsigned modules do not load. The lockdown LSM
# shows its mode in securityfs (mounted by the guest's init).
bp_locked_down() {
    grep -q '\[integrity\]\|\[confidentiality\]' /sys/kernel/security/lockdown 2>/dev/null
}
# bp_skip_if_locked_down WHAT: the whole program needs WHAT, which lockdown
# forbids: skipped, saying so.
bp_skip_if_locked_down() {
    bp_locked_down || return 0
    bp_skip_all "locked down ($(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/security/lockdown)): $1"
}

# The modules the tests load: installed into this collection by make check
# (scripts/install-selftests.sh), else at / (the guest's initramfs root).
BP_MODDIR=${BP_MODDIR:-$([ -f ./batchprobe.ko ] && pwd || echo /)}
BP_KO=${BP_KO:-$BP_MODDIR/batchprobe.ko}
BP_CLIENT_C=$BP_MODDIR/bpclient_c.ko
BP_CLIENT_RS=$BP_MODDIR/bpclient_rs.ko
BP_FOREIGN=$BP_MODDIR/bp_foreign.ko
BP_DEBUGFS=/sys/kernel/debug/batchprobe
# Where bp_ctl writes: the control device, which lockdown=integrity leaves
# writable (debugfs' control file is not, there); BP_CONTROL=debugfs for
# the debugfs file. BP_CTL is the path in use: tests that write a batch
# with bpwrite name it (a test that names $BP_DEBUGFS/control tests that file).
BP_DEV=/dev/batchprobe
if [ "${BP_CONTROL:-dev}" = debugfs ]; then BP_CTL=$BP_DEBUGFS/control; else BP_CTL=$BP_DEV; fi
# bptool's names (bpwrite, bptime, ...): links to this collection's bptool.
if [ -x ./bptool ] && ! command -v bpwrite > /dev/null; then
    mkdir -p /tmp/bp-bin
    for t in bpwrite bptime bphit bpsleep bpnocap bpuser bpfuzz bpperf bpperfopen bpopen bplines bpmkdir bpkprobe bpfg; do ln -sf "$PWD/bptool" "/tmp/bp-bin/$t"; done
    PATH=/tmp/bp-bin:$PATH
fi

# The syscall entries the tests probe (bphit calls getppid), by the name
# ftrace and a walk of kallsyms give them: __x64_sys_getppid on a
# clang-built kernel. On a GCC-built one (Debian's) a syscall without
# arguments is one function with three names, __do_sys_getppid,
# __ia32_sys_getppid and __x64_sys_getppid, and ftrace and sprint_symbol
# name it __do_sys_getppid: a `d:` line or a glob must use that name (an
# int3 line would take any). BP_SYS is the prefix (for globs such as
# ${BP_SYS}get*). Found once, exported to the shells the tests start.
if [ -z "${BP_SYS:-}" ]; then
    BP_SYS=__x64_sys_
    if ! grep -qx __x64_sys_getppid /sys/kernel/tracing/available_filter_functions 2>/dev/null &&
        grep -qx __do_sys_getppid /sys/kernel/tracing/available_filter_functions 2>/dev/null; then
        BP_SYS=__do_sys_
    fi
    export BP_SYS BP_GETPPID=${BP_SYS}getppid BP_GETPID=${BP_SYS}getpid
fi

# bp_load [CASE [PARAM...]]: the case CASE ("insmod" by default): batchprobe
# loaded with PARAMs. From then on, however the program ends, bp_cleanup runs.
bp_load() {
    bp_cleanup_on_exit
    _case=${1:-insmod}
    [ $# -gt 0 ] && shift
    ktap_check "$_case" insmod "$BP_KO" "$@"
}
# bp_cleanup_on_exit: bp_cleanup runs when the program ends, at its last
# case, an early exit, or the runner's timeout (SIGTERM).
bp_cleanup_on_exit() {
    trap bp_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
# bp_cleanup: what a program left behind goes, so that the next one starts
# from a clean kernel: the API clients and the foreign tracer, every live
# set (retired in one write, and waited for), batchprobe, and tracefs'
# kprobe events; and the ring buffer is on again. Silent when nothing is
# left (a program that ran to its end undid everything itself); else each
# step is a KTAP comment. The program's exit status stays.
bp_cleanup() {
    _rc=$?
    trap - EXIT INT TERM
    for _m in bpclient_c bpclient_rs bp_foreign; do
        [ -d "/sys/module/$_m" ] || continue
        echo "# cleanup: rmmod $_m"
        rmmod "$_m" 2>&1 | sed 's/^/# /'
    done
    if [ -d /sys/module/batchprobe ]; then
        _live=$(bp_live_sets 2>/dev/null | awk '{ printf " %s", $1 }')
        if [ -n "$_live" ]; then
            echo "# cleanup: unregister$_live"
            bp_unregister_all 2>&1 | sed 's/^/# /'
        fi
        echo "# cleanup: rmmod batchprobe"
        if ! rmmod batchprobe 2>/dev/null; then
            # An enabled event of a set (--events) keeps the module.
            echo "# cleanup: every event disabled"
            echo 0 > /sys/kernel/tracing/events/enable 2>/dev/null
            bp_ctl 'flush\n' 2>/dev/null
            rmmod batchprobe 2>&1 | sed 's/^/# /'
        fi
    fi
    _kev=/sys/kernel/tracing/kprobe_events
    if [ -s "$_kev" ] || [ -n "$(cat "$_kev" 2>/dev/null)" ]; then
        echo "# cleanup: kprobe events"
        echo 0 > /sys/kernel/tracing/events/kprobes/enable 2>/dev/null
        echo > "$_kev"
    fi
    # The ring buffer on, as at boot: a program that turned it off to read
    # a quiet buffer leaves it so for the next.
    echo 1 > /sys/kernel/tracing/tracing_on 2>/dev/null
    exit "$_rc"
}

# bp_ctl TEXT: writes TEXT (printf-style escapes) to the control device
# (BP_CONTROL=debugfs: the control file) in exactly one write(2); on
# failure bpwrite prints "(errno N)".
bp_ctl() {
    printf "$1" | bpwrite "$BP_CTL"
}
# bp_ctl_file NAME FILE: FILE written to the control device in one write:
# NAME passes, or fails showing last_error.
bp_ctl_file() {
    if bpwrite "$BP_CTL" < "$2"; then
        ktap_pass "$1"
    else
        ktap_fail "$1"
        sed 's/^/# /' $BP_DEBUGFS/last_error
    fi
}
# bp_expect_err NAME ERRNO TEXT: a control write that must fail with ERRNO.
bp_expect_err() {
    name=$1 want="(errno $2)"
    if out=$(bp_ctl "$3" 2>&1); then
        ktap_fail "$name" "write succeeded, wanted '$want'"
    elif echo "$out" | grep -qF "$want"; then
        ktap_pass "$name"
    else
        ktap_fail "$name" "got '$out', wanted '$want'"
    fi
}
# bp_field SET FIELD: a field (key=value) of SET's line in the sets file.
bp_field() {
    grep "^$1 " "$BP_DEBUGFS/sets" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# bp_set_probes SET: SET's probes, every backend's fields of its sets line summed.
bp_set_probes() {
    grep "^$1 " "$BP_DEBUGFS/sets" | tr ' ' '\n' |
        awk -F= '$1 ~ /^(kprobes|kretprobes|fprobes|fretprobes|direct)$/ { n += $2 } END { print n + 0 }'
}
# bp_same_format WANT GOT: two events' format files (the kernel's, WANT,
# and batchprobe's, GOT) say the same but for their name and ID lines (an
# empty WANT never does: tracefs' files show size 0, so it is read); on a
# difference the diff is printed, as comments.
bp_same_format() {
    if grep -q . "$1" 2>/dev/null && [ -e "$2" ] && ! diff -u "$1" "$2" |
        grep '^[-+][^-+]' | grep -qv '^[-+]\(name\|ID\):'; then
        return 0
    fi
    diff -u "$1" "$2" 2>&1 | sed 's/^/# /'
    return 1
}
# bp_same_records TEST WANT GOT N: batchprobe's records' texts (GOT) are
# the kernel's (WANT), of which there are N (lines): TEST passes, showing
# the first; else it fails, showing their counts and the first four of
# each.
bp_same_records() {
    if [ "$(echo "$2" | grep -c .)" -eq "$4" ] && [ "$3" = "$2" ]; then
        ktap_pass "$1"
        ktap_print_msg "$(echo "$3" | head -1 | cut -c1-200)"
    else
        ktap_print_msg "kprobe_events: $(echo "$2" | grep -c .) record(s), batchprobe: $(echo "$3" | grep -c .)"
        echo "$2" | head -4 | while IFS= read -r _l; do ktap_print_msg "kprobe_events: $(echo "$_l" | cut -c1-200)"; done
        echo "$3" | head -4 | while IFS= read -r _l; do ktap_print_msg "batchprobe:    $(echo "$_l" | cut -c1-200)"; done
        ktap_fail "$1"
    fi
}
# bp_state SET: the state of SET in the sets file.
bp_state() {
    grep "^$1 " "$BP_DEBUGFS/sets" | cut -d' ' -f2
}
# bp_probe_hits SET NAME: hits of probe NAME of SET in the stats file.
bp_probe_hits() {
    awk -v s="$1" -v n="$2" '$1 == "set" { cur = $2 } cur == s && $2 == n { sub("hits=", "", $4); print $4 }' \
        "$BP_DEBUGFS/stats"
}
# bp_getppid_counts N SET PROBE [SET PROBE ...]: what each probe counted
# of N getppid() calls (bphit), "A/B/...": its hits after minus before.
# Nothing between the readings calls getppid (a new shell would; the
# subshells that read stats do not).
bp_getppid_counts() {
    _n=$1
    shift
    _probes="$*" _before=""
    while [ $# -ge 2 ]; do
        _before="$_before $(bp_probe_hits "$1" "$2")"
        shift 2
    done
    bphit "$_n" > /dev/null
    set -- $_probes
    _out=""
    for _b in $_before; do
        _out="$_out/$(($(bp_probe_hits "$1" "$2") - _b))"
        shift 2
    done
    echo "${_out#/}"
}
# bp_direct_1001 SET: a direct set of 1001 functions, enabled: getppid's
# (probe "pid") and the first 1000 others the glob * finds.
bp_direct_1001() {
    bp_ctl "d:$1/pid ${BP_GETPPID}\nd:$1/ * max=1000\ncreate $1\nenable $1\n"
}
# bp_probe_kind SET NAME: the backend probe NAME of SET got, the first word
# of its stats line: kprobe, kretprobe, fprobe, fretprobe or direct.
bp_probe_kind() {
    awk -v s="$1" -v n="$2" '$1 == "set" { cur = $2; next } cur == s && $2 == n { print $1 }' \
        "$BP_DEBUGFS/stats"
}
# bp_stats_header KEY: a key=value of the stats file's first line, the
# module's own counters (exit_inside, exit_gone, text_symbols, ...).
bp_stats_header() {
    head -1 "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# bp_stats_field SET KEY: a key=value of SET's header line in the stats file.
bp_stats_field() {
    awk -v s="$1" '$1 == "set" && $2 == s' "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# bp_timing SET KEY: a phase timing (ns) of SET from the stats file.
bp_timing() {
    awk -v s="$1" '$1 == "set" { cur = $2; next } cur == s && /register_ns=/ { print; exit }' \
        "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# bp_gps SET PHASE: the grace periods (rcu/rcu_tasks/rcu_tasks_rude, "-"
# for a kind the kernel lacks) SET's PHASE waited for, from the stats file.
bp_gps() {
    awk -v s="$1" '$1 == "set" { cur = $2; next } cur == s && $1 == "grace_periods" { print; exit }' \
        "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# Functions ftrace calls a direct trampoline for, batchprobe's or another's.
direct_attached() {
    grep -c 'direct-->' /sys/kernel/tracing/enabled_functions
}
# ftrace_users SYM: how many ftrace users (ftrace_ops: an fprobe, the shared
# ops of kprobes on ftrace, a direct call, the function tracer) call out
# from core function SYM: its count in enabled_functions, 0 when unlisted.
ftrace_users() {
    awk -v f="$1" '$1 == f { for (i = 2; i <= NF; i++) if ($i ~ /^\([0-9]+\)$/) { gsub(/[()]/, "", $i); n += $i; break } }
        END { print n + 0 }' /sys/kernel/tracing/enabled_functions
}
# ftrace_enabled: every function ftrace calls out from, with its count of
# users ("SYM (N)", a module's "SYM [MOD] (N)"), sorted; trampoline
# addresses left out, so two readings compare equal when nothing changed.
# Left out too: batchprobe's own bp_fgraph_anchor, which holds fprobe's
# fgraph ops from the first return fprobe until rmmod where fprobe runs on
# fgraph (src/fprobe.rs: FgraphAnchor); test_fprobe_fgraph_anchor.sh checks it.
ftrace_enabled() {
    awk '/^[^[:space:]]/ && $1 != "bp_fgraph_anchor" { s = $1; for (i = 2; i <= NF; i++) { s = s " " $i; if ($i ~ /^\([0-9]+\)$/) break }; print s }' \
        /sys/kernel/tracing/enabled_functions | sort
}
# The live (registered, enabled or disabled) sets' lines in the sets file.
bp_live_sets() {
    grep -E '^[A-Za-z_0-9.]+ (registered|enabled|disabled) ' "$BP_DEBUGFS/sets"
}
# bp_live_sum FIELD: FIELD (kprobes, kretprobes, fprobes, fretprobes,
# direct) summed over live sets.
bp_live_sum() {
    bp_live_sets | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { s += $2 } END { print s + 0 }'
}
# The module's own kprobes: one grace-period counter per kind this kernel
# has. (What counts the tasks ending inside an exit trampoline's body is an
# ftrace callback on do_exit(), not a kprobe: rust/exit_tasks.c.)
bp_counter_kprobes() {
    head -1 "$BP_DEBUGFS/stats" | tr ' ' '\n' | grep -c '^rcu[a-z_]*=[0-9]'
}
# bp_agrees_kprobes KP_BASE, bp_agrees_direct DIRECT_BASE: the kernel's
# kprobe (direct-call) count is what it had before batchprobe (the base) plus
# what batchprobe lists: its counters and its live sets' probes (kprobes and
# kretprobes only: fprobe-served probes are ftrace users, not kprobes), but
# those waiting for their module (not registered: waiting=; a gone one is
# still listed, as the kernel's).
bp_agrees_kprobes() {
    test "$(kprobes_registered)" -eq \
        $(($1 + $(bp_counter_kprobes) + $(bp_live_sum kprobes) + $(bp_live_sum kretprobes) - $(bp_live_sum waiting)))
}
bp_agrees_direct() {
    test "$(direct_attached)" -eq $(($1 + $(bp_live_sum direct)))
}
# Unregisters every live set and waits for the teardowns, in one write.
bp_unregister_all() {
    bp_ctl "$(bp_live_sets | awk '{ printf "unregister %s\\n", $1 }')flush\n"
}
# The kernel's own count of registered kprobes.
# bp_same_raw CASE WANT GOT [WHO]: bpperfopen's lines for two events on the
# same calls (COUNT SAMPLES RECORDS..., each record decoded with its
# event's format) are equal, three samples each; a failure prints both.
bp_same_raw() {
    if [ "$3" = "$2" ] && [ "$(echo "$2" | cut -d' ' -f1-2)" = "3 3" ]; then
        ktap_pass "$1"
    else
        ktap_fail "$1" "perf's records, decoded with the format, differ (count samples records)"
        ktap_print_msg "${4:-the kernel's}: $2"
        ktap_print_msg "batchprobe's: $3"
    fi
}
kprobes_registered() {
    wc -l < /sys/kernel/debug/kprobes/list
}

# fprobe_on_fgraph: true where the kernel's fprobe runs on the function-graph
# tracer (6.14 on; 7.3): one shared ops, no return-instance pool, so batchprobe
# serves rN: with a kretprobe there (src/fprobe.rs). Read from the kernel, not
# from batchprobe: its fgraph entry handler is in kallsyms.
fprobe_on_fgraph() {
    grep -q ' fprobe_fgraph_entry$' /proc/kallsyms
}

# bp_kernel_warnings [RE]: how many kernel log lines are warnings (WARNING:,
# BUG:, or RE), for a test to compare before and after what it does. One line
# is not counted: the ORC unwinder's one-time note "WARNING: stack going in
# the wrong direction? at return_to_handler+0x46" (printk_deferred_once in
# arch/x86/kernel/unwind_orc.c, not a WARN(): no backtrace). On 7.3 an
# unwind of the current task (kmemleak, KASAN and lockdep save one on
# allocations) that starts in an interrupt taken on the last instructions of
# fgraph's return_to_handler (its retpoline tail) prints it; it came on
# debug-7.3 while BPF's kprobe_multi return links were on 1000 functions
# (test_bpf_kprobe_multi.sh, 2026-12-03). scripts/check-log.sh leaves out the
# same line.
BP_UNWIND_NOTE='WARNING: stack going in the wrong direction? at return_to_handler+'
bp_kernel_warnings() {
    dmesg | grep -E "WARNING:|BUG:${1:+|$1}" | grep -cvF "$BP_UNWIND_NOTE"
}

# bp_no_new_warnings W0 [RE]: true while bp_kernel_warnings [RE] still counts
# W0; else prints how many lines came and the first new report in nine
# lines: the line before its banner (a WARN's message, or "cut here"), the
# banner, its RIP line and the first five sure frames of its call trace
# (those without "?"), so that the failed case says which warning it saw:
# CI keeps a run's last lines and the summary a failed case's last ten.
bp_no_new_warnings() {
    _bw=$(bp_kernel_warnings "${2:-}")
    [ "$_bw" -eq "$1" ] && return 0
    echo "$((_bw - $1)) new warning line(s) in the kernel log; the first report:"
    dmesg | awk -v re="WARNING:|BUG:${2:+|$2}" -v note="$BP_UNWIND_NOTE" -v want=$(($1 + 1)) '
        n < want && $0 ~ re && index($0, note) == 0 && ++n == want {
            if (prev != "") print prev
            print; frames = 5; next
        }
        n < want { prev = $0; next }
        frames == 0 || /---\[ end trace/ { exit }
        /RIP: [0-9]+:/ && !rip { print; rip = 1 }
        trace && !/(^|\]) +\? / && !/<\/?(TASK|IRQ|NMI)>/ { print; frames-- }
        /Call Trace:/ { trace = 1 }'
    return 1
}

# bp_unblacklisted: the names on stdin (one a line) that kprobes do not
# blacklist: a line of its own on a blacklisted function is refused, as
# kprobe_events refuses it (test_blacklist_oracle.sh), and fails its set.
bp_unblacklisted() {
    awk 'NR == FNR { if (NF == 2) black[$2] = 1; next } !($1 in black)' \
        /sys/kernel/debug/kprobes/blacklist -
}

# bp_kernel_verdict VERB SYM: the kernel's verdict on "VERB:bpkv/c SYM" in
# kprobe_events ("ok", or the errno), the event removed again: the oracle
# of the *_oracle.sh programs.
bp_kernel_verdict() {
    if _out=$(printf '%s:bpkv/c %s\n' "$1" "$2" | bpwrite /sys/kernel/tracing/kprobe_events 2>&1); then
        echo '-:bpkv/c' | bpwrite /sys/kernel/tracing/kprobe_events
        echo ok
    else
        echo "$_out" | sed -n 's/.*(errno \([0-9]*\)).*/\1/p'
    fi
}
# bp_verdict KIND SYM: batchprobe's verdict on "KIND:bpv/c SYM" + create
# ("ok", or the errno), the set unregistered again (a failed write stages
# nothing: nothing to drop).
bp_verdict() {
    if _out=$(printf '%s:bpv/c %s\ncreate bpv\n' "$1" "$2" | bpwrite "$BP_CTL" 2>&1); then
        printf 'unregister bpv --sync\n' | bpwrite "$BP_CTL"
        echo ok
    else
        echo "$_out" | sed -n 's/.*(errno \([0-9]*\)).*/\1/p'
    fi
}

# bp_oracle_cases N SYM: batchprobe's p:, p!:, r: and r!: on SYM against
# kprobe_events' p: and r: on it, a case each (cN_p, cN_p_int3, cN_r,
# cN_r_int3): the same verdict, "ok" or the errno.
bp_oracle_cases() {
    for _kind in p p! r r!; do
        _k=$(bp_kernel_verdict "${_kind%!}" "$2") _o=$(bp_verdict "$_kind" "$2")
        echo "# $_kind:$2: kprobe_events ${_k:-?}, batchprobe ${_o:-?}"
        ktap_check "c$1_${_kind%!}$( [ "$_kind" != "${_kind%!}" ] && echo _int3)_agrees_with_kprobe_events" \
            test "${_k:-?}" = "${_o:-?}"
    done
}

# bp_sized N: N, or a quarter of it (at least 1) on the debug kernels
# (KASAN, lockdep, kmemleak: 3-4x slower under TCG), for the sizes that only
# make a test's window long or its race likely, not the thing it checks. The
# debug guests are the longest part of `make check`, which must fit CI's 90
# minutes on two cores.
bp_sized() {
    [ -e /sys/kernel/debug/kmemleak ] || { echo "$1"; return; }
    set -- $(( $1 / 4 ))
    [ "$1" -gt 0 ] && echo "$1" || echo 1
}

# bp_pick_kprobes SET N: creates (and leaves registered) a control-file set
# SET of up to N kprobes at +5 on text symbols that accept one (as the seed
# script picks them), and prints "p SYM+5" for each: targets the kernel is
# known to accept, for the C client's targets file.
bp_pick_kprobes() {
    bp_ctl "p:$1/ *+5 max=$2 skip=*lock*\ncreate $1\n" || return 1
    awk -v s="$1" '$1 == "set" { cur = $2; next } cur == s && $1 == "kprobe" { print "p " $3 }' \
        "$BP_DEBUGFS/stats"
}
# bp_client_c_load TARGETS ARGS...: loads the C client with defer=1, writes
# TARGETS (lines) to its targets file in one write, then creates its set.
bp_client_c_load() {
    targets=$1; shift
    insmod "$BP_CLIENT_C" defer=1 "$@" || return 1
    printf '%s\n' "$targets" | bpwrite /sys/kernel/debug/bpclient_c/targets || return 1
    printf create | bpwrite /sys/kernel/debug/bpclient_c/control
}
# bp_client_field KEY: a key=value of bpclient_c's status file.
bp_client_field() {
    tr ' ' '\n' < /sys/kernel/debug/bpclient_c/status | sed -n "s/^$1=//p"
}
# bp_modinfo_depends KO: what modinfo says KO depends on (busybox modinfo
# needs a modules.dep, even an empty one, for the running kernel).
bp_modinfo_depends() {
    d=/lib/modules/$(uname -r)
    [ -e "$d/modules.dep" ] || { mkdir -p "$d" && : > "$d/modules.dep"; }
    modinfo -F depends "$1"
}
# bp_line_field SET KIND NAME KEY: KEY's value on SET's stats line of KIND
# (kprobe, fprobe, fretprobe, direct, or an exit set's hist or errors) for
# probe NAME; empty when none.
bp_line_field() {
    awk -v s="$1" -v k="$2" -v n="$3" '$1 == "set" { cur = $2; next } cur == s && $1 == k && $2 == n' \
        "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$4=//p"
}
# bp_exit_field SET NAME KEY: a key=value (exits, last_ret, hits...) of
# direct probe NAME of SET in the stats file.
bp_exit_field() { bp_line_field "$1" direct "$2" "$3"; }
# bp_nhit EVENT: the kernel's hits of its kprobe event EVENT
# (kprobe_profile: EVENT NHIT NMISSED).
bp_nhit() { awk -v e="$1" '$1 == e { print $2 }' /sys/kernel/tracing/kprobe_profile; }
# bp_rv_values EVENT: the values of rv= in event EVENT's records in the
# trace, one a line.
bp_rv_values() { grep -v '^#' /sys/kernel/tracing/trace | grep " $1: " | sed -n 's/.* rv=\(-*[0-9][0-9]*\).*/\1/p'; }
# bp_inside SET NAME: the calls of direct probe NAME of exit set SET that
# entered and have not returned yet (hits minus exits, from one read of stats).
bp_inside() {
    awk -v s="$1" -v n="$2" '$1 == "set" { cur = $2; next } cur == s && $1 == "direct" && $2 == n' \
        "$BP_DEBUGFS/stats" | tr ' ' '\n' | awk -F= '$1 == "hits" { h = $2 } $1 == "exits" { x = $2 } END { print h - x }'
}
# bp_wait_inside SET NAME [SECONDS]: waits until a call of NAME is inside
# (bp_inside at least 1; default 30 s): a sleeper started in the
# background has reached the traced body, however slow the guest.
bp_wait_inside() {
    i=$((${3:-30} * 10))
    while [ "$(bp_inside "$1" "$2")" -lt 1 ] && [ "$i" -gt 0 ]; do
        usleep 100000
        i=$((i - 1))
    done
    [ "$(bp_inside "$1" "$2")" -ge 1 ]
}
# bp_hex HEX: HEX (as stats prints values, no 0x) in decimal; -1 when empty.
bp_hex() {
    case "$1" in
        '' | *[!0-9a-fA-F]*) echo -1 ;;
        *) echo $((0x$1)) ;;
    esac
}
# bp_wait_unpinned [SECONDS]: after its last exit-trampoline set is gone,
# batchprobe drops its pin on itself once no task is inside a function the
# trampoline called (polled, backing off from 100 ms to 5 s); waits for that (default 20 s).
bp_wait_unpinned() {
    i=$((${1:-20} * 10))
    while [ "$(cat /sys/module/batchprobe/refcnt 2>/dev/null || echo 0)" -ne 0 ] && [ "$i" -gt 0 ]; do
        usleep 100000
        i=$((i - 1))
    done
    [ "$(cat /sys/module/batchprobe/refcnt 2>/dev/null || echo 0)" -eq 0 ]
}

# The BPF peers (bpfpeer, make bench's peers section).
# bp_need_peer MODE: skip the whole program unless this kernel takes MODE.
bp_need_peer() {
    # Every collection is built with it (selftests/Makefile): missing, the
    # collection is broken, not the kernel lacking something.
    [ -x ./bpfpeer ] || bp_bail_out "no bpfpeer in this collection (selftests/Makefile builds it)"
    [ -r /sys/kernel/btf/vmlinux ] || bp_skip_all "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
    ./bpfpeer modes | grep -qx "$1" ||
        bp_skip_all "no $1 on $(uname -r): tracing_multi links came in Linux 7.2"
}
# bp_peer_names N: N functions every peer can take: ftrace-able, core
# kernel, names unique in ftrace's list and in kallsyms, one traceable BTF
# function each, no '.' or *lock*, and none of the allocator's (*alloc*,
# *free*, *kmem*, *slab*, *page*): a BPF link on those traces the
# allocations of its own detach, which on the KASAN kernel took the 1000-
# function fexit detach past 120 s and the hung-task detector's limit
# (debug-7.3, 2026-12-03: __kmalloc under a BPF trampoline inside
# update_ftrace_direct_del).
bp_peer_names() {
    grep -i ' t ' /proc/kallsyms | cut -d' ' -f3 | sort | uniq -d > /tmp/bp-ksym-dups
    grep -v '\[' /sys/kernel/tracing/available_filter_functions | grep -v '\.' |
        grep -v -e lock -e alloc -e free -e kmem -e slab -e page |
        sort | uniq -u | grep -vxF -f /tmp/bp-ksym-dups | ./bpfpeer filter | head -n "$1"
}
# bp_peer_calls MODE FUNC N: "ENTRIES EXITS" that MODE on FUNC counted of
# N getppid() calls bpfpeer makes itself (its own calls only, between two
# reads of the counters: exact, whatever exec and exit call).
bp_peer_calls() {
    out=$(./bpfpeer count "$1" "$2" "$3")
    echo "# $1 on $2, $3 getppid() calls: $out" >&2
    e=$(echo "$out" | sed -n 's/.*entry=\([0-9]*\).*/\1/p'); x=$(echo "$out" | sed -n 's/.*exit=\([0-9]*\).*/\1/p')
    echo "${e:-0} ${x:-0}"
}
# bp_peer_check MODE FUNC N ENTRIES_CHECK EXITS_CHECK EXITS: two checks
# of what MODE on FUNC counted of N getppid() calls: exactly N entries, and
# exactly EXITS exits (0 for an entry-only mode, N otherwise).
bp_peer_check() {
    set -- $(bp_peer_calls "$1" "$2" "$3") "$3" "$4" "$5" "$6"
    ktap_check "$4" test "$1" -eq "$3"
    ktap_check "$5" test "$2" -eq "$6"
}
# bp_peer_on_names MODE N BASE: three checks of MODE's links on the N
# functions in /tmp/bp-peer-names (ftrace_calls_N_more, bench_attached_N,
# nothing_left): while they run, ftrace calls at least N more functions
# than BASE (ftrace_attached before the names were picked); `bpfpeer bench`
# attaches all N; once the programs are gone, ftrace calls BASE again.
bp_peer_on_names() {
    _base=$3
    _during=$(./bpfpeer run "$1" - -- sh -c 'wc -l < /sys/kernel/tracing/enabled_functions' < /tmp/bp-peer-names | head -1)
    echo "# enabled_functions: $_base before, $_during with the links on $2 functions"
    ktap_check "ftrace_calls_$2_more" test "$_during" -ge $((_base + $2))
    _out=$(./bpfpeer bench "$1" < /tmp/bp-peer-names)
    echo "# bench: $_out"
    ktap_check "bench_attached_$2" test "$(bp_peer_field "$_out" got)" = "$2"
    ktap_check "nothing_left" test "$(ftrace_attached)" -eq "$_base"
}
# bp_peer_field LINE KEY: KEY's value in a `bpfpeer bench` line.
bp_peer_field() {
    echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# Functions ftrace calls anything for (every kind of caller).
ftrace_attached() {
    wc -l < /sys/kernel/tracing/enabled_functions
}

# bp_requires PROGRAM: PROGRAM's `# requires:` header, read as ftracetest
# reads its own: each comma-separated item must hold in the running kernel,
# or the whole program is skipped with kselftest's skip code, naming the
# item (words after an item's first, in parentheses, say why it is needed).
# An item is a kernel option (CONFIG_*: seen through what it adds, below,
# for these kernels have no /proc/config.gz), a module of this collection
# (NAME.ko), or a file: absolute, or under tracefs; FILE:WORD asks that the
# file hold WORD. Run for every program that sources this library.
bp_requires() {
    _req=$(sed -n 's/^# requires: *//p' "$1" 2>/dev/null | head -1)
    [ -n "$_req" ] || return 0
    _old_ifs=$IFS
    IFS=,
    set -- $_req
    IFS=$_old_ifs
    for _item in "$@"; do
        set -- $_item
        [ $# -gt 0 ] || continue
        _why=$(bp_lacks "$1")
        case $? in
        0) ;;
        1) bp_skip_all "requires $1: $_why" ;;
        *) bp_bail_out "$_why" ;;
        esac
    done
}
# bp_lacks ITEM: succeeds (printing nothing) when ITEM holds; else prints
# what is missing and fails (1), or, for a kernel option it knows no
# evidence for (a test bug: the program fails), says so and returns 2.
bp_lacks() {
    case $1 in
    CONFIG_*)
        set -- "$1" $(bp_config_evidence "$1")
        case ${2:-} in
        file) [ -e "$3" ] || { echo "no $3"; return 1; } ;;
        word) grep -qw "$4" "$3" 2>/dev/null || { echo "no $4 in $3"; return 1; } ;;
        symbol) bp_kernel_has "$3" || { echo "no $3 in /proc/kallsyms"; return 1; } ;;
        *) echo "bp_lib.sh: no evidence known for $1"; return 2 ;;
        esac ;;
    *.ko) [ -f "$BP_MODDIR/$1" ] || { echo "no $BP_MODDIR/$1"; return 1; } ;;
    *:*)
        _f=${1%%:*}
        case $_f in /*) ;; *) _f=/sys/kernel/tracing/$_f ;; esac
        grep -qw -- "${1#*:}" "$_f" 2>/dev/null || { echo "no ${1#*:} in $_f"; return 1; } ;;
    /*) [ -e "$1" ] || { echo "no $1"; return 1; } ;;
    *) [ -e "/sys/kernel/tracing/$1" ] || { echo "no /sys/kernel/tracing/$1"; return 1; } ;;
    esac
    return 0
}
# bp_config_evidence CONFIG_X: what CONFIG_X adds that a program can see:
# "file PATH", "word PATH WORD" or "symbol NAME" (a function it builds in).
bp_config_evidence() {
    _t=/sys/kernel/tracing
    case $1 in
    # On x86-64 KRETPROBES is on wherever KPROBES is (def_bool y).
    CONFIG_KPROBES | CONFIG_KRETPROBES) echo file /sys/kernel/debug/kprobes/list ;;
    CONFIG_KPROBE_EVENTS) echo file $_t/kprobe_events ;;
    CONFIG_DYNAMIC_FTRACE) echo file $_t/available_filter_functions ;;
    CONFIG_STACK_TRACER) echo file $_t/stack_trace ;;
    CONFIG_FUNCTION_TRACER) echo word $_t/available_tracers function ;;
    CONFIG_FUNCTION_GRAPH_TRACER) echo word $_t/available_tracers function_graph ;;
    CONFIG_DEBUG_INFO_BTF) echo file /sys/kernel/btf/vmlinux ;;
    CONFIG_BPF_SYSCALL) echo file /proc/sys/kernel/unprivileged_bpf_disabled ;;
    CONFIG_FPROBE) echo symbol register_fprobe ;;
    CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) echo symbol register_ftrace_direct ;;
    CONFIG_BPF_JIT) echo symbol bpf_int_jit_compile ;;
    CONFIG_BPF_EVENTS) echo symbol trace_call_bpf ;;
    CONFIG_UNWINDER_ORC) echo symbol unwind_module_init ;;
    # Modules' BTF in /sys/kernel/btf/MOD: its module notifier.
    CONFIG_DEBUG_INFO_BTF_MODULES) echo symbol btf_module_notify ;;
    # f: lines in dynamic_events: their parser.
    CONFIG_FPROBE_EVENTS) echo symbol trace_fprobe_create ;;
    esac
}
# bp_kernel_has NAME: the kernel has a function NAME (one of the evidence
# symbols above). One pass over /proc/kallsyms per boot finds them all; the
# programs after read what it found (/tmp/bp-kernel-has).
bp_kernel_has() {
    if [ ! -f /tmp/bp-kernel-has ]; then
        awk '$3 == "register_fprobe" || $3 == "register_ftrace_direct" ||
             $3 == "bpf_int_jit_compile" || $3 == "trace_call_bpf" ||
             $3 == "unwind_module_init" || $3 == "btf_module_notify" ||
             $3 == "trace_fprobe_create" { print $3 }' /proc/kallsyms > /tmp/bp-kernel-has.new &&
            mv /tmp/bp-kernel-has.new /tmp/bp-kernel-has
    fi
    grep -qx "$1" /tmp/bp-kernel-has
}

bp_requires "$0"
