#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Samples a TCG guest's instruction pointers through QEMU's monitor, and
maps them to symbols (scripts/profile-records.sh).

Usage: profile-sample.py sample MONITOR_SOCKET CONSOLE_LOG OUT
       profile-sample.py report OUT SYSTEM_MAP CONSOLE_LOG [TOP]

`sample` waits for PROFILE-START (or PROFILE-RESUME) in the console log,
then asks the monitor for every vCPU's registers (`info registers -a`) as
fast as it answers, until PROFILE-END; between a PROFILE-PAUSE and the next
PROFILE-RESUME it takes none. Under TCG a vCPU stops for the monitor between
translation blocks, so a sample names where the next block starts: a
function's count is the time of the blocks that lead into it, roughly.
Read sums over a path and compare runs of one boot's kind, not single
instructions. `report` maps the samples with System.map (the guest boots
with nokaslr) and the module's symbols and ftrace's and kprobes'
trampolines (PROFILE-SYM lines), leaves out the
idle loop, and prints each symbol's samples, its share of all, and its
samples per sample of do_syscall_64: per call of a syscall loop, as near
as sampling gives it.
"""
import bisect
import collections
import re
import socket
import sys
import time


def wait_for(log, word):
    while True:
        try:
            with open(log, errors="ignore") as f:
                if word in f.read():
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.2)


MARK = re.compile(r"PROFILE-(START|RESUME|PAUSE|END)")


def state(log):
    """The console log's last marker: START, RESUME, PAUSE, END or None."""
    with open(log, errors="ignore") as f:
        marks = MARK.findall(f.read())
    return marks[-1] if marks else None


def sample(sock_path, log, out):
    while state(log) not in ("START", "RESUME"):
        time.sleep(0.2)
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    buf = b""

    def cmd(c):
        nonlocal buf
        s.sendall(c.encode() + b"\n")
        while b"(qemu) " not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("profile: the monitor closed")
            buf += chunk
        r, _, buf = buf.partition(b"(qemu) ")
        return r.decode(errors="ignore")

    cmd("")
    n = 0
    with open(out, "w") as f:
        while True:
            try:
                r = cmd("info registers -a")
            except (ConnectionError, SystemExit):
                # QEMU exits when the guest is done: the end if it said so.
                with open(log, errors="ignore") as lf:
                    if "PROFILE-END" in lf.read():
                        break
                raise
            for m in re.finditer(r"CPU#(\d+).*?RIP=([0-9a-f]+)", r, re.S):
                f.write(f"{m.group(1)} {m.group(2)}\n")
            n += 1
            if n % 10 == 0:
                st = state(log)
                while st == "PAUSE":
                    time.sleep(0.05)
                    st = state(log)
                if st == "END":
                    break
    print(f"profile: {n} samples")


def report(out, system_map, log, top=40):
    syms = []
    with open(system_map) as f:
        for line in f:
            a, t, name = line.split()[:3]
            if t in "tTwW":
                syms.append((int(a, 16), name))
    with open(log, errors="ignore") as f:
        for line in f:
            p = line.split()
            if len(p) >= 5 and p[0] == "PROFILE-SYM" and p[2] in "tTwW":
                syms.append((int(p[1], 16), p[3] + " " + p[4]))
    syms.sort()
    addrs = [a for a, _ in syms]
    count = collections.Counter()
    with open(out) as f:
        for line in f:
            rip = int(line.split()[1], 16)
            if rip < 0xFFFF800000000000:
                name = "(user)"
            else:
                i = bisect.bisect_right(addrs, rip) - 1
                name = syms[i][1] if i >= 0 else "(unknown)"
            count[name] += 1
    for idle in [k for k in count if "idle" in k]:
        del count[idle]
    per = count.get("do_syscall_64", 0) or 1
    total = sum(count.values()) or 1
    print(f"{total} samples (idle left out)")
    print(f"| symbol | samples | share | per do_syscall_64 |")
    print(f"| --- | ---: | ---: | ---: |")
    for name, n in count.most_common(top):
        print(f"| {name} | {n} | {100 * n / total:.1f}% | {n / per:.2f} |")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "sample":
        sample(*sys.argv[2:5])
    elif len(sys.argv) >= 5 and sys.argv[1] == "report":
        report(*sys.argv[2:5], *(int(a) for a in sys.argv[5:6]))
    else:
        sys.exit(__doc__)
