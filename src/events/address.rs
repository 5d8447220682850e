// SPDX-License-Identifier: GPL-2.0

//! The event of an unnamed probe on an address (`p 0xADDR`): named as
//! `trace_kprobe_create()` names it, `snprintf(buf, MAX_EVENT_NAME_LEN,
//! "%c_0x%p", is_return ? 'r' : 'p', addr)` then `sanitize_event_name()`.
//! `%p` prints a hash of the pointer, keyed once per boot, which only the
//! kernel's own `%p` gives: so the name is made in C
//! (`bp_format_addr_event()`), and equals the one `kprobe_events` gives the
//! same line in the same boot.

use kernel::ffi::c_char;

use super::name::{made_event_name, EventName, MAX_EVENT_NAME_LEN};
use crate::bindings;

/// The name `kprobe_events` gives an unnamed probe on `addr` (`ret`: a
/// return probe, `r:`).
pub(crate) fn address_event_name(ret: bool, addr: u64) -> EventName {
    let mut buf = [0u8; MAX_EVENT_NAME_LEN];
    let kind = if ret { b'r' } else { b'p' };
    // SAFETY: `buf` holds `buf.len()` bytes, all that `scnprintf` writes,
    // NUL included.
    let len = unsafe {
        bindings::bp_format_addr_event(
            buf.as_mut_ptr().cast::<c_char>(),
            buf.len(),
            kind as c_char,
            addr as usize,
        )
    };
    let len = usize::try_from(len).unwrap_or(0).min(buf.len() - 1);
    made_event_name(core::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or(""))
}
