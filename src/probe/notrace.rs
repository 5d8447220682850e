// SPDX-License-Identifier: GPL-2.0

//! What `kprobe_events` refuses as a notrace function, batchprobe refuses
//! too: a `p:` or `r:` line (with or without `!`) on a function ftrace has
//! no call site in (`within_notrace_func()` in
//! `kernel/trace/trace_kprobe.c`: "Could not probe notrace function"),
//! whichever backend would serve it. Such functions are notrace for a
//! reason (the tracing code itself, early or low-level paths), and a probe
//! handler's own calls may lead into them. An explicit line on a suffixed
//! symbol (`foo.cold`, which never has a call site) is judged by `foo`, as
//! the kernel judges it; a glob member is skipped, as BPF's `kprobe_multi`
//! skips what ftrace cannot trace. `d:` lines are ftrace's own: ftrace
//! refuses them there already. API targets are not control lines and are
//! not judged here.

use kernel::prelude::*;

use crate::backend::{Refused, Target};
use crate::bindings;
use crate::command::ProbeKind;
use crate::ftrace;
use crate::kallsyms::{self, TextTable};
use crate::locked::Locked;

/// The refusal, in the kernel's words (`EINVAL`).
pub(crate) const REFUSAL: &str =
    "Could not probe notrace function (ftrace has no call site in it; kprobe_events refuses it too)";

/// Whether the rule applies to `t`: a control line's kprobe or kretprobe,
/// on a kernel whose `kprobe_events` refuses notrace functions (all but
/// those built with `CONFIG_KPROBE_EVENTS_ON_NOTRACE`, a debug option).
pub(crate) fn applies(t: &Target<'_>) -> bool {
    t.line.is_some()
        && matches!(t.kind, ProbeKind::Kprobe | ProbeKind::Kretprobe { .. })
        // SAFETY: It returns a constant.
        && unsafe { bindings::bp_notrace_refused() }
}

/// Whether the function at `start` (a text symbol's address) has no
/// ftrace call site: `site` as the set's builder knew it (`None`: ftrace
/// is asked now).
fn notrace(locked: Locked<'_>, start: usize, site: Option<Option<usize>>) -> Result<bool> {
    match ftrace::traceable(locked, start, site) {
        Ok(_) => Ok(false),
        Err(e) if e == EINVAL => Ok(true),
        Err(e) => Err(e),
    }
}

/// Whether `t`, whose function starts at `start` (`site`: its call site as
/// the builder knew it), is refused: its function is notrace, and it is
/// not an explicit line on `BASE.SUFFIX` whose `BASE` ftrace can trace.
/// `text`: the kernel's text symbols, if the caller has them (`BASE` is
/// looked up there; else they are walked for it).
pub(crate) fn refuses(
    locked: Locked<'_>,
    t: &Target<'_>,
    start: usize,
    site: Option<Option<usize>>,
    text: Option<&TextTable>,
) -> Result<bool> {
    refuses_named(locked, (t.symbol, t.explicit), start, site, text)
}

/// [`refuses`] for the target `symbol`, written on a line of its own or
/// not (`explicit`).
fn refuses_named(
    locked: Locked<'_>,
    (symbol, explicit): (&[u8], bool),
    start: usize,
    site: Option<Option<usize>>,
    text: Option<&TextTable>,
) -> Result<bool> {
    if !notrace(locked, start, site)? {
        return Ok(false);
    }
    let base = match symbol.iter().position(|&c| c == b'.') {
        Some(dot) if explicit && dot > 0 => symbol.get(..dot).unwrap_or(&[]),
        _ => return Ok(true),
    };
    // The first symbol of that name (`kprobe_lookup_name()`): in the
    // caller's table, else in one walk of the kernel's text symbols, for an
    // explicit suffixed line only.
    let walked;
    let text = match text {
        Some(t) => t,
        None => {
            walked = TextTable::new()?;
            &walked
        }
    };
    match text.first_named(base).and_then(|i| text.get(i)) {
        Some((addr, _)) => notrace(locked, addr, None),
        None => Ok(true),
    }
}

/// The rule for a probe the kernel put at `addr`: its function
/// is the symbol that contains `addr` (none: nothing to judge, as the
/// kernel's own check finds none).
pub(crate) fn refusal_at(locked: Locked<'_>, t: &Target<'_>, addr: usize) -> Result<(), Refused> {
    refusal_of(locked, (t.symbol, t.explicit), addr)
}

/// [`refusal_at`] for the target `symbol` (`explicit`: on a line of its
/// own): a `MOD:SYM` probe registered when its module comes, whose line is
/// gone by then.
pub(crate) fn refusal_of(
    locked: Locked<'_>,
    named: (&[u8], bool),
    addr: usize,
) -> Result<(), Refused> {
    const NO_ROOM: &str = "out of memory checking whether ftrace can trace the function";
    let start = match kallsyms::offset_in_symbol(addr) {
        Ok(Some(off)) => addr.wrapping_sub(off as usize),
        Ok(None) => return Ok(()),
        Err(error) => {
            return Err(Refused {
                error,
                what: NO_ROOM,
            })
        }
    };
    match refuses_named(locked, named, start, None, None) {
        Ok(false) => Ok(()),
        Ok(true) => Err(Refused {
            error: EINVAL,
            what: REFUSAL,
        }),
        Err(error) => Err(Refused {
            error,
            what: NO_ROOM,
        }),
    }
}
