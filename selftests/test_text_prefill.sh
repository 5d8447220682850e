#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: right after load the module walks the kernel's text symbols
#   on its own workqueue, with no write asking: stats' text_symbols counts
#   them once made, as many as /proc/kallsyms has in core-kernel text; a
#   create that comes during the walk waits for it and is served as later
#   ones are; an unload during the walk stops it, and the module loads again
# requires: CONFIG_KPROBES, CONFIG_FPROBE
#
# The oracle is /proc/kallsyms: the walk (src/kallsyms.rs) visits each
# address of core-kernel text from _stext to _etext once, so it counts the
# distinct addresses kallsyms lists there.
. ./bp_lib.sh
ktap_plan 9
# filled: polls text_symbols until the walk made the table (at most 600 s:
# a KASAN kernel under TCG); prints the count, or 0.
filled() {
    for _ in $(seq 1 600); do
        n=$(bp_stats_header text_symbols)
        [ "${n:-0}" -gt 0 ] && { echo "$n"; return 0; }
        sleep 1
    done
    echo 0
}
# The core kernel's text addresses, as the kernel lists them.
kallsyms_text=$(awk 'NF == 3 {
        a = tolower($1)
        if ($3 == "_stext") on = 1
        if ($3 == "_etext") { end = a; exit }
        if (on && !(a in seen)) { seen[a] = 1; order[++n] = a }
    }
    END { for (i = 1; i <= n; i++) if (order[i] < end) c++; print c + 0 }' /proc/kallsyms)
echo "# /proc/kallsyms: $kallsyms_text distinct addresses from _stext to _etext"

bp_load
n=$(filled)
ktap_check "made_without_a_write" test "$n" -gt 0
ktap_check "counts_kallsyms_core_text" test "$n" = "$kallsyms_text"
[ "$n" = "$kallsyms_text" ] || echo "# text_symbols=$n"

# An unload at once: the walk under way gives up, and the unload is not
# refused; the module comes back.
ktap_check "unload_during_walk" rmmod batchprobe
ktap_check "load_again" insmod "$BP_KO"

# A create at once, before the walk can be done: served by fprobes as
# any later one, with the table the walk made (or the one it made
# itself, if it came first).
rmmod batchprobe && insmod "$BP_KO"
ktap_check "create_during_walk" bp_ctl "p:w/ vfs_read\np:w/ vfs_write\ncreate w\nenable w\n"
ktap_check "table_made_by_then" test "$(bp_stats_header text_symbols)" = "$kallsyms_text"
ktap_check "served_by_fprobes" test "$(bp_field w fprobes)" = 2
cat /proc/version > /dev/null
ktap_check "counts" test "$(bp_field w hits)" -gt 0
ktap_finish
