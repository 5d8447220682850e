// SPDX-License-Identifier: GPL-2.0

//! The event a probe line's probe writes to, as `kprobe_events` names it:
//! the name `-:SET/EVENT` drops and `--events` makes.

use crate::command::{self, ProbeKind, Target};
use crate::events::address::address_event_name;
use crate::events::name::{auto_event_name, EventName, ProbeEventName};

/// The event of a probe line, as `-:SET/EVENT` names it: the line's name
/// (`name`), or for an unnamed `p:` or `r:` line on one symbol the name
/// `kprobe_events` gives it (`p_SYM_OFF`, `r_SYM_0`: the event the line's
/// probe writes to); `None` for an unnamed glob or `d:` line, which only
/// `-:SET` drops. Symbols are ASCII (`command.rs`).
pub(super) fn line_event<'a>(
    name: Option<&'a [u8]>,
    kind: ProbeKind,
    glob: bool,
    symbol: &[u8],
    offset: u32,
) -> Option<ProbeEventName<'a>> {
    let made = |ret| {
        let symbol = core::str::from_utf8(symbol).ok()?;
        Some(ProbeEventName::Auto(auto_event_name(ret, symbol, offset)))
    };
    match (name, kind) {
        (Some(n), _) => Some(ProbeEventName::Given(n)),
        (None, ProbeKind::Direct) => None,
        (None, _) if glob => None,
        (None, ProbeKind::Kprobe) => made(false),
        (None, ProbeKind::Kretprobe { .. }) => made(true),
    }
}

/// [`line_event`] of a line being staged.
pub(super) fn spec_event<'a>(spec: &command::ProbeSpec<'a>) -> Option<ProbeEventName<'a>> {
    let (symbol, offset, glob) = match spec.target {
        Target::Symbol { name, offset } => (name, offset, false),
        Target::Glob { pattern, offset } => (pattern, offset, true),
        Target::Address { addr } => {
            let made = made_name(spec.kind, addr);
            return match spec.name {
                Some(n) => Some(ProbeEventName::Given(n.as_bytes())),
                None => made.map(ProbeEventName::Auto),
            };
        }
    };
    line_event(
        spec.name.map(str::as_bytes),
        spec.kind,
        glob,
        symbol.as_bytes(),
        offset,
    )
}

/// The event name `kprobe_events` gives an unnamed line of `kind` on the
/// address `addr` (`p_0x%p`, `r_0x%p`).
pub(super) fn made_name(kind: ProbeKind, addr: u64) -> Option<EventName> {
    match kind {
        ProbeKind::Kprobe => Some(address_event_name(false, addr)),
        ProbeKind::Kretprobe { .. } => Some(address_event_name(true, addr)),
        ProbeKind::Direct => None,
    }
}
