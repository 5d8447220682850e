// SPDX-License-Identifier: GPL-2.0

//! kprobes' blacklist, for the `p:` and `r:` lines fprobes serve.
//!
//! `kprobe_events` refuses a probe on a function kprobes blacklist
//! (`NOKPROBE_SYMBOL`, the entry and kprobes text: `register_kprobe()`'s
//! `check_kprobe_address_safe()`, `EINVAL`), and an int3 kprobe of ours
//! meets the same refusal. A `p:` or `r:` at +0 that an fprobe serves never
//! asks kprobes, and ftrace can trace some blacklisted functions (the NMI
//! path's `perf_event_nmi_handler`, for one): so an explicit line is judged
//! here, by what kprobes' own debugfs `blacklist` lists, as
//! `kprobe_events` would judge it. A glob member is not (BPF's
//! `kprobe_multi`, on fprobes too, takes blacklisted functions), nor is an
//! API target (always an int3 kprobe), nor a `d:` line (BPF's fentry does
//! not ask kprobes either).
//!
//! The file is read once per create that has such a line (the set's fprobe
//! backend keeps it until the set is built), as the writer:
//! where the writer may not see addresses (`kptr_restrict`, no
//! `CAP_SYSLOG`) it lists zeroes, and names are compared instead. If it
//! cannot be read (no debugfs at `/sys/kernel/debug`), the line is refused
//! with that error: `p!:` leaves the judgment to kprobes.

use kernel::prelude::*;

use crate::backend::Refused;
use crate::kallsyms::Printed;
use crate::sort;
use crate::symname::parse_blacklist_line;

/// The refusal, in `kprobe_events`' terms (`EINVAL`).
pub(crate) const REFUSAL: &str =
    "probing refused: blacklisted (kprobes/blacklist; kprobe_events refuses it too)";
/// Why a line could not be judged (with the read's errno).
pub(crate) const UNREAD: &str =
    "kprobes/blacklist (debugfs) could not be read to check the function against it (p!: asks kprobes instead)";

/// The most bytes of the blacklist read (`EFBIG` beyond): a few thousand
/// lines of under 100 bytes on the kernels we build for.
const MAX_BLACKLIST: usize = 4 << 20;

/// The verdict on a line naming the core-kernel function that starts at
/// `start`, named `name`: refused if kprobes blacklist it, or if the
/// blacklist (read into `cache` on first use) could not be read.
pub(crate) fn judge(
    cache: &mut Option<Result<Blacklist>>,
    start: usize,
    name: &[u8],
) -> Result<(), Refused> {
    match cache.get_or_insert_with(Blacklist::read) {
        Ok(b) if b.holds(start, name) => Err(Refused {
            error: EINVAL,
            what: REFUSAL,
        }),
        Ok(_) => Ok(()),
        Err(e) => Err(Refused {
            error: *e,
            what: UNREAD,
        }),
    }
}

/// The core kernel's blacklisted ranges, sorted by start; where addresses
/// were hidden, the names instead.
///
/// # Invariants
///
/// `ranges` is sorted by start; each `names` entry is a byte range of
/// `text`, and `names` is sorted by the bytes it names.
pub(crate) struct Blacklist {
    text: Printed,
    ranges: KVVec<(usize, usize)>,
    names: KVVec<(usize, usize)>,
}

impl Blacklist {
    /// Reads it (as the writer).
    pub(crate) fn read() -> Result<Self> {
        let text = Printed::kprobe_blacklist(MAX_BLACKLIST)?;
        let (mut ranges, mut names) = (KVVec::new(), KVVec::new());
        let mut at = 0usize;
        for line in text.bytes().split(|&c| c == b'\n') {
            let here = at;
            at = at.saturating_add(line.len() + 1);
            let Some(l) = core::str::from_utf8(line)
                .ok()
                .and_then(parse_blacklist_line)
            else {
                continue;
            };
            // A module's function is never an fprobe's (fprobes serve
            // core-kernel text only).
            if l.module.is_some() {
                continue;
            }
            if l.end > l.start {
                ranges.push((l.start as usize, l.end as usize), GFP_KERNEL)?;
            } else {
                // Hidden addresses: the name, at its place in the line.
                let off = line.len() - l.name.len();
                names.push((here + off, l.name.len()), GFP_KERNEL)?;
            }
        }
        sort::sort(&mut ranges);
        let bytes = text.bytes();
        let name_of = |&(o, n): &(usize, usize)| bytes.get(o..o + n).unwrap_or(&[]);
        sort::sort_by(&mut names, |a, b| name_of(a).cmp(name_of(b)));
        // INVARIANT: both sorted just above; every name is a range of `text`.
        Ok(Self {
            text,
            ranges,
            names,
        })
    }

    fn name(&self, at: (usize, usize)) -> &[u8] {
        self.text.bytes().get(at.0..at.0 + at.1).unwrap_or(&[])
    }

    /// Whether kprobes blacklist the core-kernel function that starts at
    /// `start`, named `name`.
    pub(crate) fn holds(&self, start: usize, name: &[u8]) -> bool {
        // The last range that starts at or below `start`, or any before it
        // that reaches past it (ranges do not overlap: one per symbol).
        let i = self.ranges.partition_point(|&(s, _)| s <= start);
        let in_range = i
            .checked_sub(1)
            .and_then(|j| self.ranges.get(j))
            .is_some_and(|&(_, e)| start < e);
        in_range
            || self
                .names
                .binary_search_by(|&n| self.name(n).cmp(name))
                .is_ok()
    }
}
