// SPDX-License-Identifier: GPL-2.0

//! The kprobe backend: `p:SET/NAME SYM+OFF`, `p!:SET/NAME SYM[+OFF]`, and
//! any `p:` at +0 that the fprobe backend cannot serve.

use kernel::error::to_result;
use kernel::ffi::{c_char, c_int};
use kernel::prelude::*;

use super::{slot_of, How, Int3Kind, Post};
use crate::backend::{Ctx, Fit, Refused, Target};
use crate::bindings;
use crate::command::ProbeKind;
use crate::errtext;
use crate::events::tracefs::Fired;
use crate::ftrace;
use crate::kallsyms;

/// Kprobes, counted in their pre-handler.
pub(crate) struct Kprobe;

/// The pre-handler of every batchprobe kprobe.
///
/// # Safety
///
/// `p` must be the `raw` field of a live `Slot<Kprobe>`; the kernel only
/// calls it for probes that `Kprobe::init` set up, which live in slots.
unsafe extern "C" fn pre_handler(p: *mut bindings::kprobe, regs: *mut bindings::pt_regs) -> c_int {
    // SAFETY: See the function's safety section.
    let slot = unsafe { slot_of::<Kprobe>(p) };
    // SAFETY: `p` is a live, registered kprobe (see above).
    let ip = || unsafe { (*p).addr } as usize;
    slot.hit(
        || Fired::Entry {
            ip: ip(),
            regs,
            fetch_regs: regs,
        },
        || bindings::batchprobe_hit {
            kind: bindings::batchprobe_kind_BATCHPROBE_KPROBE,
            ip: ip(),
            regs,
            ..Default::default()
        },
    );
    0
}

/// The pre-handler of `--bare` sets: the cost of a kprobe hit alone.
///
/// # Safety
///
/// None needed: it reads none of its arguments. `unsafe` only to match
/// the type of the kernel's handler pointer.
unsafe extern "C" fn bare_pre_handler(
    _p: *mut bindings::kprobe,
    _regs: *mut bindings::pt_regs,
) -> c_int {
    0
}

/// The post-handler of `--noopt` kprobes: its presence alone keeps the
/// probe from being optimized.
///
/// # Safety
///
/// None needed: it reads none of its arguments. `unsafe` only to match
/// the type of the kernel's handler pointer.
unsafe extern "C" fn noop_post_handler(
    _p: *mut bindings::kprobe,
    _regs: *mut bindings::pt_regs,
    _flags: kernel::ffi::c_ulong,
) {
}

/// Whether a `--noopt` kprobe at `at` gets its post handler: not where
/// ftrace knows a call site, at it or at the function `at` is the first
/// byte of (`ftrace_location()` maps `SYM+0` to the call).
fn post_at(ctx: &Ctx<'_>, at: usize) -> Post {
    match ftrace::traceable(ctx.locked, at, None) {
        Ok(_) => Post::No,
        // No call site there.
        Err(e) if e == EINVAL => Post::Yes,
        Err(_) => Post::IfNotFtrace,
    }
}

/// What a refusal of `SYM+OFF` past the end of SYM says.
const PAST_END: &str = "offset past the end of the symbol";

// SAFETY: `pre_handler` only uses its pointer as the first field of a
// `Slot<Kprobe>`; the functions below are the kprobe API.
unsafe impl Int3Kind for Kprobe {
    type Raw = bindings::kprobe;
    const NAME: &'static str = "kprobe";
    const FIELD: &'static str = "kprobes";
    const SITE: errtext::Site = errtext::Site::Kprobe;

    fn fit(t: &Target<'_>) -> Fit {
        match (t.kind, t.int3) {
            (ProbeKind::Kprobe, true) => Fit::Best,
            (ProbeKind::Kprobe, false) => Fit::Fallback,
            _ => Fit::No,
        }
    }

    /// SYM+OFF must lie inside SYM: past its end, the kernel would probe
    /// whatever function follows. A glob member's size is known here.
    fn precheck(t: &Target<'_>) -> Option<Refused> {
        match t.text {
            Some((_, size)) if t.offset > 0 && t.offset as usize >= size => Some(Refused {
                error: EINVAL,
                what: PAST_END,
            }),
            _ => None,
        }
    }

    /// An explicit symbol's size is checked where the kernel resolved it
    /// (a module's function, which no walk meets, as well).
    fn verify(raw: *mut bindings::kprobe, offset: u32) -> Result<(), Refused> {
        // SAFETY: `raw` is a registered kprobe; `addr` was set by the
        // kernel when it resolved the symbol.
        let addr = unsafe { (*raw).addr } as usize;
        if offset == 0 {
            return Ok(());
        }
        match kallsyms::offset_in_symbol(addr) {
            Ok(Some(off)) if off == u64::from(offset) => Ok(()),
            Ok(_) => Err(Refused {
                error: EINVAL,
                what: PAST_END,
            }),
            Err(error) => Err(Refused {
                error,
                what: "out of memory checking the offset against the symbol's size",
            }),
        }
    }

    /// `--noopt`: a post handler, unless the probe is at a function's
    /// ftrace call site. That is `SYM+0`, or under IBT the call right
    /// after the endbr64 (`SYM+4`): nothing deeper into SYM, but `SYM+OFF`
    /// past SYM's end is another function's, and may be its call site
    /// (the kernel moves a probe at a function's endbr64 to the call).
    /// An address target is registered at its address, whatever offset
    /// into its symbol it had when its line was staged (a module may have
    /// gone since, another come there): ftrace says ([`post_at`]).
    /// Anything else the kernel resolves by name, to the first symbol of
    /// that name, which the walk met (for a glob member an earlier symbol
    /// of its name shadows, that one: [`Target::shadowed_by`]): past its
    /// end the probe gets none (`verify` refuses it where it lands; the
    /// precheck refused a walked one already), inside it one deeper than
    /// the call site can be, or ftrace says. A name no walk met lands where
    /// only the kernel knows: registered without one first
    /// ([`Post::IfNotFtrace`]).
    fn post(ctx: &Ctx<'_>, t: &Target<'_>) -> Post {
        if !ctx.options.noopt {
            return Post::No;
        }
        if t.addr != 0 {
            return post_at(ctx, t.addr);
        }
        if t.offset == 0 {
            return Post::No;
        }
        let Some((start, size)) = t.shadowed_by.or(t.text) else {
            return Post::IfNotFtrace;
        };
        if t.offset as usize >= size {
            Post::No
        } else if t.offset > ftrace::fentry_max_offset() {
            Post::Yes
        } else {
            post_at(ctx, start + t.offset as usize)
        }
    }

    /// `check_ftrace_location()` flags a kprobe at an ftrace call site.
    unsafe fn ftrace_based(raw: *const bindings::kprobe) -> bool {
        // SAFETY: `raw` is registered (caller), so live: the kernel set
        // this bit when registering it and changes only others since, so
        // one volatile read.
        let flags = unsafe { core::ptr::read_volatile(&raw const (*raw).flags) };
        flags & bindings::KPROBE_FLAG_FTRACE != 0
    }

    fn init(raw: &mut bindings::kprobe, symbol: *const c_char, how: How) {
        if how.addr != 0 {
            raw.addr = how.addr as *mut u8;
        } else {
            raw.symbol_name = symbol;
            raw.offset = how.offset;
        }
        raw.pre_handler = Some(if how.bare {
            bare_pre_handler
        } else {
            pre_handler
        });
        // The kernel never optimizes a kprobe with a post handler (it must
        // single-step the probed instruction to call it), so arming and
        // disarming queue no optimizer pass and its RCU-tasks grace
        // period. Never at the ftrace call site (see [`Post`]).
        if how.post == Post::Yes {
            raw.post_handler = Some(noop_post_handler);
        }
        raw.flags = bindings::KPROBE_FLAG_DISABLED;
    }

    unsafe fn register(raw: *mut bindings::kprobe) -> Result {
        // SAFETY: Guaranteed by the caller.
        to_result(unsafe { bindings::register_kprobe(raw) })
    }

    unsafe fn unregister_many(ptrs: *mut *mut bindings::kprobe, n: c_int) {
        // SAFETY: Guaranteed by the caller.
        unsafe { bindings::unregister_kprobes(ptrs, n) }
    }

    unsafe fn addr(raw: *const bindings::kprobe) -> usize {
        // SAFETY: `raw` is live (caller); the kernel writes `addr` under its
        // mutex: one volatile read.
        unsafe { core::ptr::read_volatile(&raw const (*raw).addr) as usize }
    }

    unsafe fn kprobe(raw: *mut bindings::kprobe) -> *mut bindings::kprobe {
        raw
    }

    unsafe fn enable(raw: *mut bindings::kprobe) -> Result {
        // SAFETY: Guaranteed by the caller.
        let armed = to_result(unsafe { bindings::enable_kprobe(raw) });
        // SAFETY: Guaranteed by the caller.
        unsafe { leave_gone(raw, armed) }
    }

    unsafe fn disable(raw: *mut bindings::kprobe) -> Result {
        // SAFETY: Guaranteed by the caller.
        to_result(unsafe { bindings::disable_kprobe(raw) })
    }

    unsafe fn missed(raw: *const bindings::kprobe) -> u64 {
        // SAFETY: `raw` is live (caller); the kernel updates `nmissed`
        // concurrently, so read it once, volatile.
        unsafe { core::ptr::read_volatile(core::ptr::addr_of!((*raw).nmissed)) as u64 }
    }
}

/// What enabling the registered kprobe `raw` came to, `armed` being what
/// `enable_kprobe()` said: `Ok` too where it refused because the probe is
/// gone (its module was unloaded), as `kprobe_events`' enable leaves a gone
/// probe as it is (`__enable_trace_kprobe()` skips it), so that a set
/// whose module went away can still be enabled for the rest.
///
/// # Safety
///
/// `raw` is a registered kprobe (a kretprobe's `kp` too).
pub(super) unsafe fn leave_gone(raw: *const bindings::kprobe, armed: Result) -> Result {
    let Err(e) = armed else {
        return armed;
    };
    // SAFETY: `raw` is registered (caller); the kernel sets GONE under its
    // mutex, before `enable_kprobe()` reads it: one volatile read.
    let flags = unsafe { core::ptr::read_volatile(&raw const (*raw).flags) };
    if e == EINVAL && flags & bindings::KPROBE_FLAG_GONE != 0 {
        return Ok(());
    }
    Err(e)
}
