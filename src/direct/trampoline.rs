// SPDX-License-Identifier: GPL-2.0

//! The x86-64 ftrace-direct trampolines: which one a set's `ftrace_ops` points at.
//!
//! ftrace patches each traced function's fentry site into `call TRAMP`.
//! The trampolines save the argument registers, call their Rust handler
//! (`bp_direct_handle_count` / `_record` in [`super`]) with the return
//! address into the traced function, its first argument and the frame pointer
//! the argument registers are saved below, restore the registers and return.
//! Their text is in `rust/trampolines.c`, built from the kernel's own
//! `ASM_ENDBR`, `CALL_DEPTH_ACCOUNT` and `ASM_RET`, so that it is right for
//! IBT, call-depth tracking, return thunks and SLS on whatever kernel the
//! module is built against, as the kernel's
//! `samples/ftrace/ftrace-direct-multi.c` is; those macros (alternatives
//! patched at load time among them) exist only in C headers.
//!
//! The exit trampoline (`bp_direct_tramp_exit`, mode `exit`) also calls the
//! traced function's body itself and calls `bp_direct_handle_exit_return`
//! with its return value before returning to the caller; see its comment in
//! `rust/trampolines.c`, and [`super::signature`] for the functions it serves.
//!
//! A second exit trampoline (`bp_direct_tramp_exit_args`) keeps the
//! argument registers in its frame while the body runs, for the sets whose
//! return records read the call's arguments (`$argN`): the exit handler
//! reads them there. Such a set's mode `exit` means that one.
//!
//! There are several, so that a live set can be switched between them with
//! `modify_ftrace_direct`.

#[cfg(not(CONFIG_X86_64))]
compile_error!("batchprobe's ftrace-direct trampolines are written for x86-64 only");

#[cfg(not(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS))]
compile_error!(
    "batchprobe needs CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y (ftrace-direct backend)"
);

use kernel::prelude::*;

use crate::bindings;
use crate::command::DirectMode;

/// Every mode, for [`check_alignment`].
const MODES: [DirectMode; 4] = [
    DirectMode::Count,
    DirectMode::Record,
    DirectMode::Empty,
    DirectMode::Exit,
];

/// Fails (`EINVAL`) unless every trampoline starts on a 16-byte boundary,
/// as `BP_TRAMP_ALIGN` in `rust/trampolines.c` places them. An odd address
/// would be worse than slow: ftrace (`CONFIG_DYNAMIC_FTRACE_WITH_JMP`, 6.19
/// on) reads its bit 0 as "jump" and enters one byte early.
pub(crate) fn check_alignment() -> Result {
    let all = MODES.iter().map(|&m| (m, false));
    for (mode, keep) in Iterator::chain(all, [(DirectMode::Exit, true)]) {
        let a = addr(mode, keep);
        if a % 16 != 0 {
            // The misalignment, never the address (the kernel log is
            // readable where dmesg_restrict is 0).
            pr_err!(
                "trampoline for mode {} is {} bytes past a 16-byte boundary\n",
                mode as u8,
                a % 16
            );
            return Err(EINVAL);
        }
    }
    Ok(())
}

/// The trampoline's address, for `register_ftrace_direct`: mode `exit`'s
/// keeps the arguments for the exit handler if `keep_args`.
pub(crate) fn addr(mode: DirectMode, keep_args: bool) -> usize {
    let f: unsafe extern "C" fn() = match mode {
        DirectMode::Count => bindings::bp_direct_tramp_count,
        DirectMode::Record => bindings::bp_direct_tramp_record,
        DirectMode::Empty => bindings::bp_direct_tramp_empty,
        DirectMode::Exit if keep_args => bindings::bp_direct_tramp_exit_args,
        DirectMode::Exit => bindings::bp_direct_tramp_exit,
    };
    f as usize
}
