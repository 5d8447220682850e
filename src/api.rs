// SPDX-License-Identifier: GPL-2.0

//! The in-kernel API: what `include/batchprobe.h` declares.
//!
//! `extern "C"` functions that other modules call through the exports in
//! `rust/exports.c`. They validate everything they are given, turn it into
//! the same [`Builder`](crate::set::Builder) calls a control-file `create`
//! makes, and drive the same [`Engine`] (registry lock, workqueue,
//! teardown). A handle (`struct batchprobe_set *`) is one reference of an
//! `Arc<Set>`, made by [`Arc::into_raw`] and given back by
//! `batchprobe_put`.
//!
//! The rules (contexts, lifetimes, errors) are the header's; this file
//! implements them.

use kernel::ffi::{c_char, c_int, c_uint, c_void};
use kernel::prelude::*;
use kernel::sync::Arc;

use crate::backend::OwnedTarget;
use crate::bindings;
use crate::command::{self, ProbeKind};
use crate::engine::engine;
use crate::gate::Client;
use crate::set::{Owner, Set};

/// Called by the module notifier (`rust/module.c`) when a module goes
/// away: see [`Engine::owner_going`]. Every module that goes on the system
/// comes here; one that owns no set is told so without the registry lock
/// ([`crate::set::may_own`]), so that its unload never waits for a control
/// write holding it.
#[no_mangle]
extern "C" fn bp_rust_module_going(module: *mut bindings::module) {
    if !crate::set::may_own(module) {
        return;
    }
    if let Ok(e) = engine() {
        e.owner_going(module);
    }
}

/// The longest name, as the header says.
const MAX_NAME: usize = bindings::BATCHPROBE_MAX_NAME as usize;
const MAX_SYMBOL: usize = bindings::BATCHPROBE_MAX_SYMBOL as usize;
const MAX_TARGETS: usize = bindings::BATCHPROBE_MAX_TARGETS as usize;

/// `ENAMETOOLONG` (6.12's `kernel::error::code` has no constant for it).
fn enametoolong() -> Error {
    crate::error::pure(bindings::ENAMETOOLONG as i32)
}

/// Copies a NUL-terminated string of at most `max` bytes.
///
/// # Safety
///
/// `p` is null or points to a NUL-terminated string, or to at least
/// `max + 1` readable bytes.
unsafe fn copy_str(p: *const c_char, max: usize) -> Result<KVec<u8>> {
    if p.is_null() {
        return Err(EINVAL);
    }
    let mut v = KVec::new();
    for i in 0..=max {
        // SAFETY: Within the string or its first `max + 1` bytes (caller).
        let c = unsafe { p.add(i).read() };
        if c == 0 {
            return Ok(v);
        }
        v.push(c, GFP_KERNEL)?;
    }
    Err(enametoolong())
}

/// Validates and copies target `index`.
fn target(t: &bindings::batchprobe_target, index: u32) -> Result<OwnedTarget> {
    let kind = match t.kind {
        bindings::batchprobe_kind_BATCHPROBE_KPROBE => ProbeKind::Kprobe,
        bindings::batchprobe_kind_BATCHPROBE_KRETPROBE => ProbeKind::Kretprobe {
            maxactive: (t.maxactive > 0).then_some(t.maxactive),
        },
        bindings::batchprobe_kind_BATCHPROBE_DIRECT
        | bindings::batchprobe_kind_BATCHPROBE_DIRECT_EXIT => ProbeKind::Direct,
        _ => return Err(EINVAL),
    };
    if t.maxactive > 0
        && (!matches!(kind, ProbeKind::Kretprobe { .. }) || t.maxactive > command::MAX_ACTIVE)
    {
        return Err(EINVAL);
    }
    if t.offset > 0 && kind != ProbeKind::Kprobe {
        return Err(EINVAL);
    }
    let by_symbol = !t.symbol.is_null();
    if by_symbol == (t.addr != 0) {
        return Err(EINVAL);
    }
    if by_symbol {
        // SAFETY: A non-null `symbol` is a NUL-terminated string (header).
        let symbol = unsafe { copy_str(t.symbol, MAX_SYMBOL) }?;
        if symbol.is_empty() {
            return Err(EINVAL);
        }
        return Ok(OwnedTarget {
            kind,
            symbol,
            offset: t.offset,
            addr: 0,
            text: None,
            index,
        });
    }
    // An address: the core-kernel text symbol that contains it.
    if t.offset > 0 {
        return Err(EINVAL);
    }
    let addr = t.addr;
    let sym = crate::kallsyms::symbol_at(addr)?.ok_or(ENOENT)?;
    if kind != ProbeKind::Kprobe && sym.offset != 0 {
        // Kretprobes and direct calls attach at a function's start.
        return Err(EINVAL);
    }
    Ok(OwnedTarget {
        kind,
        offset: sym.offset,
        addr,
        text: Some((addr.wrapping_sub(sym.offset as usize), sym.size)),
        symbol: sym.name,
        index,
    })
}

/// Validates and copies the targets; says whether they are entry + exit
/// targets (`BATCHPROBE_DIRECT_EXIT`). A set's direct calls are on one
/// trampoline: its direct targets are all `BATCHPROBE_DIRECT` or all
/// `BATCHPROBE_DIRECT_EXIT`.
fn targets(
    engine: &crate::engine::Engine,
    given: &[bindings::batchprobe_target],
) -> Result<(KVVec<OwnedTarget>, bool)> {
    let is = |k| given.iter().any(|t| t.kind == k);
    let exit = is(bindings::batchprobe_kind_BATCHPROBE_DIRECT_EXIT);
    if exit && is(bindings::batchprobe_kind_BATCHPROBE_DIRECT) {
        return Err(engine.api_error(
            EINVAL,
            format_args!("direct and direct_exit targets in one set"),
        ));
    }
    let mut targets = KVVec::with_capacity(given.len(), GFP_KERNEL)?;
    for (i, t) in given.iter().enumerate() {
        if i % 1024 == 1023 {
            crate::sched::cond_resched();
        }
        let t = target(t, i as u32)
            .map_err(|e| engine.api_error(e, format_args!("target {i}: bad target")))?;
        targets.push(t, GFP_KERNEL)?;
    }
    Ok((targets, exit))
}

/// `batchprobe_create` without the ERR_PTR encoding.
///
/// # Safety
///
/// As the header says: `desc` is null or valid, with `count` targets.
unsafe fn create(desc: *const bindings::batchprobe_set_desc) -> Result<Arc<Set>> {
    // SAFETY: Null or valid (caller).
    let desc = unsafe { desc.as_ref() }.ok_or(EINVAL)?;
    let engine = engine()?;
    let bad = |what: &str| engine.api_error(EINVAL, format_args!("{what}"));
    let handler = desc.handler.ok_or_else(|| bad("no handler"))?;
    if desc.owner.is_null() {
        // Only modules can call this API; without an owner nothing would
        // keep the handler's module loaded.
        return Err(bad("no owner module"));
    }
    if desc.targets.is_null() || desc.count == 0 {
        return Err(bad("no targets"));
    }
    if desc.count as usize > MAX_TARGETS {
        return Err(engine.api_error(
            E2BIG,
            format_args!("more than BATCHPROBE_MAX_TARGETS targets"),
        ));
    }
    if desc.flags & !bindings::BATCHPROBE_F_ALL != 0 {
        return Err(bad("unknown flags"));
    }
    // SAFETY: A NUL-terminated string (header).
    let name = unsafe { copy_str(desc.name, MAX_NAME) }
        .map_err(|e| engine.api_error(e, format_args!("bad set name")))?;
    let name_str = core::str::from_utf8(&name).map_err(|_| bad("bad set name"))?;
    command::set_name(name_str).map_err(|_| bad("bad set name"))?;
    // SAFETY: `targets` holds `count` targets (header).
    let given = unsafe { core::slice::from_raw_parts(desc.targets, desc.count as usize) };
    let (targets, exit) = targets(engine, given)?;
    // The set's name: OWNER.NAME.
    // SAFETY: `owner` is the caller's live module (not null: checked above).
    let owner_name = unsafe { bindings::bp_module_name(desc.owner) };
    // SAFETY: `bp_module_name` returns a NUL-terminated string.
    let mut full = unsafe { copy_str(owner_name, 64) }?;
    full.push(b'.', GFP_KERNEL)?;
    full.extend_from_slice(&name, GFP_KERNEL)?;
    let client = Client {
        handler,
        ctx: desc.ctx,
    };
    // A client's handler gets the hits: no trace events.
    // The exit trampoline times each call for the handler's return.
    let options = command::CreateOptions {
        noopt: desc.flags & bindings::BATCHPROBE_F_NOOPT != 0,
        events: command::Events::Off,
        exit,
        timed: exit,
        ..Default::default()
    };
    let owner = Owner::new(desc.owner, targets.len())?;
    engine.create_api(&full, options, client, owner, &targets)
}

/// Creates a set; see `include/batchprobe.h`.
///
/// # Safety
///
/// `desc` is null or points to a valid `batchprobe_set_desc` whose
/// `targets` holds `count` targets, as the header says.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_create(
    desc: *const bindings::batchprobe_set_desc,
) -> *mut bindings::batchprobe_set {
    // SAFETY: As the function's own contract.
    match unsafe { create(desc) } {
        Ok(set) => Arc::into_raw(set).cast_mut().cast(),
        Err(e) => e.to_errno() as isize as *mut bindings::batchprobe_set,
    }
}

/// The lowest address an ERR_PTR takes: `-MAX_ERRNO` (4095, as
/// `include/linux/err.h`'s `IS_ERR_VALUE`), as an address.
const ERR_PTR_FIRST: usize = (-4095isize) as usize;

/// Borrows the set behind a handle, without taking the reference.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a handle from `batchprobe_create` not
/// yet given to `batchprobe_put`.
unsafe fn handle<'a>(set: *mut bindings::batchprobe_set) -> Result<&'a Set> {
    if set.is_null() || (set as usize) >= ERR_PTR_FIRST {
        return Err(EINVAL);
    }
    // SAFETY: A live handle is a pointer from `Arc::into_raw` whose
    // reference the caller still owns (caller).
    Ok(unsafe { &*set.cast::<Set>() })
}

fn errno(r: Result) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// Arms a set; see `include/batchprobe.h`.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a live handle.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_enable(set: *mut bindings::batchprobe_set) -> c_int {
    // SAFETY: As the function's own contract.
    errno(unsafe { handle(set) }.and_then(|s| engine()?.api_enable(s)))
}

/// Disables a set; see `include/batchprobe.h`.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a live handle.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_disable(set: *mut bindings::batchprobe_set) -> c_int {
    // SAFETY: As the function's own contract.
    errno(unsafe { handle(set) }.and_then(|s| engine()?.api_disable(s)))
}

/// Retires a set asynchronously; see `include/batchprobe.h`.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a live handle; `done`, if not null, may
/// be called with `arg` from process context until the owner's module
/// reference is dropped.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_unregister(
    set: *mut bindings::batchprobe_set,
    done: Option<unsafe extern "C" fn(*mut c_void)>,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: As the function's own contract.
    errno(unsafe { handle(set) }.and_then(|s| engine()?.api_unregister(s, done, arg)))
}

/// Retires a set and waits for its teardown; see `include/batchprobe.h`.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a live handle.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_unregister_sync(set: *mut bindings::batchprobe_set) -> c_int {
    // SAFETY: As the function's own contract.
    let r = unsafe { handle(set) }.and_then(|s| {
        let e = engine()?;
        let r = e.api_unregister(s, None, core::ptr::null_mut());
        // Already retiring (by another caller, or an administrator): its
        // teardown is queued all the same, and this call waits for it.
        if r.is_ok() || r.is_err_and(|e| e == crate::error::pure(crate::errno::EALREADY)) {
            e.flush();
        }
        r
    });
    errno(r)
}

/// Drops a handle; see `include/batchprobe.h`.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a live handle, which this call consumes.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_put(set: *mut bindings::batchprobe_set) {
    // SAFETY: As the function's own contract.
    let Ok(s) = (unsafe { handle(set) }) else {
        return;
    };
    // An API set always has an owner; its handle is put once.
    if s.owner().is_some_and(|o| o.take_handle()) {
        // SAFETY: A live handle is one reference from `Arc::into_raw`,
        // given back here once (`take_handle`).
        drop(unsafe { Arc::from_raw(set.cast::<Set>().cast_const()) });
    }
}

/// Waits for every queued teardown; see `include/batchprobe.h`.
#[no_mangle]
pub extern "C" fn batchprobe_flush() {
    if let Ok(e) = engine() {
        e.flush();
    }
}

/// Reads per-target counts; see `include/batchprobe.h`.
///
/// # Safety
///
/// `set` is null, an ERR_PTR, or a live handle; `counts` is null or has
/// room for `n` entries.
#[no_mangle]
pub unsafe extern "C" fn batchprobe_read_counts(
    set: *mut bindings::batchprobe_set,
    counts: *mut bindings::batchprobe_counts,
    n: c_uint,
) -> c_int {
    // SAFETY: As the function's own contract.
    let Ok(set) = (unsafe { handle(set) }) else {
        return EINVAL.to_errno();
    };
    if counts.is_null() {
        return EINVAL.to_errno();
    }
    // SAFETY: `counts` has room for `n` entries (caller).
    let out = unsafe { core::slice::from_raw_parts_mut(counts, n as usize) };
    set.read_counts(out) as c_int
}
