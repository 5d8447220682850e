# KTAP helpers for batchprobe's selftests (sourced; busybox sh).
# A test program calls ktap_plan N, then one ktap_* result per case, then
# ktap_finish, which prints the kselftest totals line and sets the exit code.
KTAP_N=0 KTAP_PASS=0 KTAP_FAIL=0 KTAP_SKIP=0
BP_DEBUGFS=/sys/kernel/debug/batchprobe
BP_KO=/batchprobe.ko

ktap_plan() { echo "TAP version 13"; echo "1..$1"; }
ktap_pass() { KTAP_N=$((KTAP_N + 1)) KTAP_PASS=$((KTAP_PASS + 1)); echo "ok $KTAP_N $1"; }
ktap_fail() {
    KTAP_N=$((KTAP_N + 1)) KTAP_FAIL=$((KTAP_FAIL + 1))
    echo "not ok $KTAP_N $1"
    [ -n "${2:-}" ] && echo "# $1: $2"
    return 0
}
ktap_skip() { KTAP_N=$((KTAP_N + 1)) KTAP_SKIP=$((KTAP_SKIP + 1)); echo "ok $KTAP_N $1 # SKIP ${2:-}"; }
# ktap_check NAME COMMAND...: pass when COMMAND succeeds.
ktap_check() {
    name=$1; shift
    if out=$("$@" 2>&1); then ktap_pass "$name"; else ktap_fail "$name" "'$*' failed: $out"; fi
}
ktap_finish() {
    echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
    [ "$KTAP_FAIL" -eq 0 ]
}
