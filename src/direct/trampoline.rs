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
//! Six more exit trampolines (`bp_direct_tramp_exit_args1` ... `6`) keep
//! the first one to six argument registers in their frame while the body
//! runs, for the sets whose return records read the call's arguments
//! (`$argN`): the exit handler reads them there. Such a set's mode `exit`
//! means the one that keeps as many as its records read (its highest
//! `$argN`, up to `$arg6`): 8 bytes a register under every body.
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
    let all = MODES.iter().map(|&m| (m, 0));
    let kept = (1..=KEPT_MAX).map(|k| (DirectMode::Exit, k));
    for (mode, keep) in Iterator::chain(all, kept) {
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

/// The most argument registers an exit trampoline keeps (rdi ... r9).
pub(crate) const KEPT_MAX: usize = 6;

/// The trampoline's address, for `register_ftrace_direct`: mode `exit`'s
/// keeps the first `kept` argument registers for the exit handler (0: none;
/// more than [`KEPT_MAX`]: all six).
pub(crate) fn addr(mode: DirectMode, kept: usize) -> usize {
    let f: unsafe extern "C" fn() = match (mode, kept) {
        (DirectMode::Count, _) => bindings::bp_direct_tramp_count,
        (DirectMode::Record, _) => bindings::bp_direct_tramp_record,
        (DirectMode::Empty, _) => bindings::bp_direct_tramp_empty,
        (DirectMode::Exit, 0) => bindings::bp_direct_tramp_exit,
        (DirectMode::Exit, 1) => bindings::bp_direct_tramp_exit_args1,
        (DirectMode::Exit, 2) => bindings::bp_direct_tramp_exit_args2,
        (DirectMode::Exit, 3) => bindings::bp_direct_tramp_exit_args3,
        (DirectMode::Exit, 4) => bindings::bp_direct_tramp_exit_args4,
        (DirectMode::Exit, 5) => bindings::bp_direct_tramp_exit_args5,
        (DirectMode::Exit, _) => bindings::bp_direct_tramp_exit_args6,
    };
    f as usize
}
