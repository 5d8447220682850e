#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-skips.sh EXPECTED FLAVOR SKIPS: the lines of SKIPS (a guest's
# skips as scripts/check-log.sh writes them) that no line of EXPECTED
# (selftests/skips.expected: FLAVORS, then how a skip starts) allows for
# FLAVOR, printed; exit 1 if there is one. A skip is allowed only where
# the kernel lacks what a test needs, or the list says why else.
set -eu
expected=$1 flavor=$2 skips=$3
[ -r "$expected" ] || { echo "check-skips: $expected: not readable" >&2; exit 2; }
[ -s "$skips" ] || exit 0
awk -v flavor="$flavor" '
    FNR == NR {
        if ($0 ~ /^[ \t]*(#|$)/) next
        fl = $1
        rest = $0
        sub(/^[^ \t]+[ \t]+/, "", rest)
        if (fl == "*" || index("," fl ",", "," flavor ",")) allow[++n] = rest
        next
    }
    {
        for (i = 1; i <= n; i++)
            if (substr($0, 1, length(allow[i])) == allow[i]) next
        print
        bad = 1
    }
    END { exit bad }' "$expected" "$skips"
