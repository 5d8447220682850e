// SPDX-License-Identifier: GPL-2.0

//! The kretprobe backend: `r[MAXACTIVE]!:SET/NAME SYM`, and any `r:` that
//! the fprobe backend cannot serve.

use kernel::error::{to_result, Result};
use kernel::ffi::{c_char, c_int};

use super::{slot_of, How, Int3Kind, Slot};
use crate::backend::{Fit, Target};
use crate::bindings;
use crate::command::ProbeKind;
use crate::errtext;
use crate::events::tracefs::Fired;
use crate::retpool::{self, Machine};

/// Kretprobes, counted when the probed function returns.
pub(crate) struct Kretprobe;

/// The kretprobe `ri` is an instance of, and its slot (`None` once the
/// kretprobe is gone).
///
/// # Safety
///
/// `ri` must be an instance of a kretprobe set up by `Kretprobe::init`,
/// which lives as the `raw` field of a live `Slot<Kretprobe>`.
unsafe fn instance_slot<'a>(
    ri: *mut bindings::kretprobe_instance,
) -> Option<(*mut bindings::kretprobe, &'a Slot<Kretprobe>)> {
    // SAFETY: The kernel passes a live instance of one of our kretprobes.
    let rp = unsafe { bindings::bp_get_kretprobe(ri) };
    if rp.is_null() {
        return None;
    }
    // SAFETY: `rp` is one of our kretprobes, the `raw` field of a live slot.
    Some((rp, unsafe { slot_of::<Kretprobe>(rp) }))
}

/// The return handler of every batchprobe kretprobe.
///
/// # Safety
///
/// As [`instance_slot`].
unsafe extern "C" fn ret_handler(
    ri: *mut bindings::kretprobe_instance,
    regs: *mut bindings::pt_regs,
) -> c_int {
    // SAFETY: By the function's contract.
    let Some((rp, slot)) = (unsafe { instance_slot(ri) }) else {
        return 0;
    };
    // SAFETY: `rp` is a live, registered kretprobe.
    let func = || unsafe { (*rp).kp.addr } as usize;
    let fired = || Fired::Return {
        func: func(),
        // SAFETY: `ri` is the live instance the kernel passed.
        ret_ip: unsafe { bindings::bp_kretprobe_retaddr(ri) },
        regs,
        fetch_regs: regs,
        // SAFETY: As above; its data is the entry data `entry_handler`
        // wrote where the probe keeps any.
        edata: unsafe { bindings::bp_kretprobe_data(ri) }
            .cast_const()
            .cast(),
    };
    slot.hit(fired, || bindings::batchprobe_hit {
        kind: bindings::batchprobe_kind_BATCHPROBE_KRETPROBE,
        ip: func(),
        regs,
        ..Default::default()
    });
    0
}

/// The entry handler of a kretprobe whose arguments read the function's
/// arguments (`$argN` on a return probe): keeps them in the instance's
/// data, as `trace_kprobe_entry_handler` does.
///
/// # Safety
///
/// As [`instance_slot`]; the kretprobe's `data_size` is its line's
/// [`crate::events::program::FetchProgram::entry_data_size`].
unsafe extern "C" fn entry_handler(
    ri: *mut bindings::kretprobe_instance,
    regs: *mut bindings::pt_regs,
) -> c_int {
    // SAFETY: By the function's contract.
    let Some((_, slot)) = (unsafe { instance_slot(ri) }) else {
        return 0;
    };
    // SAFETY: `regs` are the entry's; the instance's data has the slot's
    // entry data size (the function's contract).
    unsafe { slot.keep_entry(regs, bindings::bp_kretprobe_data(ri).cast()) };
    0
}

/// The return handler of `--bare` sets: the cost of a kretprobe hit alone.
///
/// # Safety
///
/// None needed: it reads none of its arguments. `unsafe` only to match
/// the type of the kernel's handler pointer.
unsafe extern "C" fn bare_ret_handler(
    _ri: *mut bindings::kretprobe_instance,
    _regs: *mut bindings::pt_regs,
) -> c_int {
    0
}

// SAFETY: `ret_handler` only uses the kretprobe as the first field of a
// `Slot<Kretprobe>`; the functions below are the kretprobe API.
unsafe impl Int3Kind for Kretprobe {
    type Raw = bindings::kretprobe;
    const NAME: &'static str = "kretprobe";
    const FIELD: &'static str = "kretprobes";
    const SITE: errtext::Site = errtext::Site::Kretprobe;

    fn fit(t: &Target<'_>) -> Fit {
        match (t.kind, t.int3) {
            (ProbeKind::Kretprobe { .. }, true) => Fit::Best,
            (ProbeKind::Kretprobe { .. }, false) => Fit::Fallback,
            _ => Fit::No,
        }
    }

    /// Each kretprobe has a pool of its own (`register_kretprobe`: a
    /// `rethook` of `maxactive` instances, the same on 6.12 and 7.3).
    fn pool_bytes(t: &Target<'_>, m: Machine) -> usize {
        let ProbeKind::Kretprobe { maxactive } = t.kind else {
            return 0;
        };
        let entry_data = t.args.map_or(0, |a| a.entry_data_size());
        retpool::kretprobe_bytes(
            maxactive.unwrap_or(0) as usize,
            core::mem::size_of::<bindings::kretprobe_instance>() + entry_data,
            core::mem::size_of::<bindings::rethook>(),
            m,
        )
    }

    fn init(raw: &mut bindings::kretprobe, symbol: *const c_char, how: How) {
        if how.addr != 0 {
            raw.kp.addr = how.addr as *mut u8;
        } else {
            raw.kp.symbol_name = symbol;
        }
        raw.handler = Some(if how.bare {
            bare_ret_handler
        } else {
            ret_handler
        });
        raw.maxactive = how.maxactive as c_int;
        if how.entry_data != 0 && !how.bare {
            raw.entry_handler = Some(entry_handler);
            raw.data_size = how.entry_data;
        }
        raw.kp.flags = bindings::KPROBE_FLAG_DISABLED;
    }

    unsafe fn register(raw: *mut bindings::kretprobe) -> Result {
        // SAFETY: Guaranteed by the caller.
        to_result(unsafe { bindings::register_kretprobe(raw) })
    }

    unsafe fn unregister_many(ptrs: *mut *mut bindings::kretprobe, n: c_int) {
        // SAFETY: Guaranteed by the caller.
        unsafe { bindings::unregister_kretprobes(ptrs, n) }
    }

    unsafe fn addr(raw: *const bindings::kretprobe) -> usize {
        // SAFETY: `raw` is live (caller); the kernel writes `kp.addr` under
        // its mutex: one volatile read.
        unsafe { core::ptr::read_volatile(&raw const (*raw).kp.addr) as usize }
    }

    unsafe fn kprobe(raw: *mut bindings::kretprobe) -> *mut bindings::kprobe {
        // SAFETY: `raw` is live (caller): a field's address, nothing read.
        unsafe { core::ptr::addr_of_mut!((*raw).kp) }
    }

    unsafe fn enable(raw: *mut bindings::kretprobe) -> Result {
        // SAFETY: Guaranteed by the caller; `enable_kretprobe` is this macro.
        let kp = unsafe { core::ptr::addr_of_mut!((*raw).kp) };
        // SAFETY: Guaranteed by the caller.
        let armed = to_result(unsafe { bindings::enable_kprobe(kp) });
        // SAFETY: `kp` is the registered kretprobe's kprobe.
        unsafe { super::kprobe::leave_gone(kp, armed) }
    }

    unsafe fn disable(raw: *mut bindings::kretprobe) -> Result {
        // SAFETY: Guaranteed by the caller; `disable_kretprobe` is this macro.
        to_result(unsafe { bindings::disable_kprobe(core::ptr::addr_of_mut!((*raw).kp)) })
    }

    unsafe fn missed(raw: *const bindings::kretprobe) -> u64 {
        // SAFETY: `raw` is live (caller); read the racy counters once.
        unsafe {
            core::ptr::read_volatile(core::ptr::addr_of!((*raw).nmissed)) as u64
                + core::ptr::read_volatile(core::ptr::addr_of!((*raw).kp.nmissed)) as u64
        }
    }
}
