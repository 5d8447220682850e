#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kprobe_events_to_batch.sh [FILE...]: a kprobe_events file (FILE, or
# stdin) as one batchprobe batch, on stdout: its probe lines as they are
# (a group is a set, a line without one goes to the set kprobes, as in
# tracefs), then each set created (each line's probe gets its event, as
# every probe named on a line of its own does) and enabled. Comments and
# blank lines are left out; "-:" lines (removals) are refused, as they
# remove what the file would add. Write the result to batchprobe's control
# file in one write (bpwrite, or any single write(2)): all or nothing.
awk '
/^[ \t]*(#|$)/ { next }
$1 ~ /^-:/ { print "kprobe_events_to_batch: line " NR ": a removal (" $1 ")" > "/dev/stderr"; bad = 1; exit 1 }
{
    print
    w = $1
    if (!sub(/^[^:]*:/, "", w))
        w = ""
    i = match(w, /[\/.]/)
    g = i ? substr(w, 1, i - 1) : "kprobes"
    if (!(g in seen)) { seen[g] = 1; order[n++] = g }
}
END {
    if (bad)
        exit 1
    for (i = 0; i < n; i++)
        printf "create %s\nenable %s\n", order[i], order[i]
}' "$@"
