#!/bin/sh
# kselftest-style runner: runs every test_*.sh, nests each one's KTAP under
# "# ", and prints one top-level result per program plus the summed totals
# of every test case.
cd "$(dirname "$0")" || exit 1
progs=$(ls test_*.sh)
[ "${BP_INJECT:-}" = fail ] && progs="$progs inject_failure.sh"
n=0; for p in $progs; do n=$((n + 1)); done
echo "TAP version 13"
echo "1..$n"
i=0 pass=0 fail=0 skip=0 rc=0
for p in $progs; do
    i=$((i + 1))
    echo "# selftests: batchprobe: $p"
    timeout "${BP_TEST_TIMEOUT:-900}" sh "./$p" > /tmp/ktap.out 2>&1
    prc=$?
    sed 's/^/# /' /tmp/ktap.out
    p_pass=$(grep -c '^ok .*' /tmp/ktap.out)
    p_skip=$(grep -c '^ok .* # SKIP' /tmp/ktap.out)
    p_fail=$(grep -c '^not ok ' /tmp/ktap.out)
    [ "$prc" -ne 0 ] && [ "$p_fail" -eq 0 ] && p_fail=1   # died or timed out
    pass=$((pass + p_pass - p_skip)) skip=$((skip + p_skip)) fail=$((fail + p_fail))
    if [ "$prc" -eq 0 ]; then echo "ok $i selftests: batchprobe: $p"
    else echo "not ok $i selftests: batchprobe: $p # exit=$prc"; rc=1; fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
exit $rc
