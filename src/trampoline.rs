// SPDX-License-Identifier: GPL-2.0

//! The x86-64 ftrace-direct trampolines, in Rust's `global_asm!`.
//!
//! ftrace patches the traced function's fentry site into `call TRAMP`. On
//! entry the stack holds the return address into the traced function (just
//! past that call site) and the traced function's arguments are still in
//! `rdi, rsi, rdx, rcx, r8, r9` (`rax` holds the vararg count for variadic
//! callees). A trampoline saves all of those, calls its Rust handler with
//! `(return address, first argument)` on a 16-byte aligned stack, restores
//! them and returns to the traced function. Modelled on
//! `samples/ftrace/ftrace-direct-multi.c`; there are two, so that a live set
//! can be switched between them with `modify_ftrace_direct`.
//!
//! Stack at the `call`: entry `rsp ≡ 0 (mod 16)` (the traced function's
//! `rsp ≡ 8` right after its own caller's `call`, minus the fentry `call`);
//! `push rbp` and seven saved registers take 64 bytes, so `rsp ≡ 0` again.

#[cfg(not(CONFIG_X86_64))]
compile_error!("batchprobe's ftrace-direct trampolines are written for x86-64 only");

#[cfg(not(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS))]
compile_error!(
    "batchprobe needs CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y (ftrace-direct backend)"
);

#[cfg(CONFIG_MITIGATION_CALL_DEPTH_TRACKING)]
compile_error!(
    "batchprobe's direct trampolines do no call-depth accounting: build the kernel \
     without CONFIG_MITIGATION_CALL_DEPTH_TRACKING (or drop the direct backend)"
);

/// Defines a trampoline `$name` that calls `$handler(ret_ip, arg0)`.
macro_rules! trampoline {
    ($name:literal, $handler:path) => {
        core::arch::global_asm!(
            ".pushsection .text, \"ax\", @progbits",
            concat!(".globl ", $name),
            concat!(".type ", $name, ", @function"),
            ".p2align 4",
            concat!($name, ":"),
            // Harmless where IBT is off; required where it is on.
            "endbr64",
            "pushq %rbp",
            "movq %rsp, %rbp",
            "pushq %rdi",
            "pushq %rsi",
            "pushq %rdx",
            "pushq %rcx",
            "pushq %r8",
            "pushq %r9",
            "pushq %rax",
            // Return address into the traced function, and its first argument.
            "movq 8(%rbp), %rdi",
            "movq -8(%rbp), %rsi",
            "call {handler}",
            "popq %rax",
            "popq %r9",
            "popq %r8",
            "popq %rcx",
            "popq %rdx",
            "popq %rsi",
            "popq %rdi",
            "leave",
            trampoline!(@ret),
            concat!(".size ", $name, ", .-", $name),
            ".popsection",
            handler = sym $handler,
            options(att_syntax)
        );
    };
    (@ret) => {
        // With return thunks every `ret` must go through the thunk.
        if_rethunk!("jmp __x86_return_thunk", "ret")
    };
}

#[cfg(CONFIG_MITIGATION_RETHUNK)]
macro_rules! if_rethunk {
    ($yes:literal, $no:literal) => {
        $yes
    };
}

#[cfg(not(CONFIG_MITIGATION_RETHUNK))]
macro_rules! if_rethunk {
    ($yes:literal, $no:literal) => {
        $no
    };
}

use crate::command::DirectMode;

trampoline!("bp_direct_tramp_count", crate::direct::handle_count);
trampoline!("bp_direct_tramp_record", crate::direct::handle_record);

extern "C" {
    fn bp_direct_tramp_count();
    fn bp_direct_tramp_record();
    /// `rust/helpers.c`: a C-style trampoline that does nothing.
    fn bp_direct_tramp_empty();
}

/// The trampoline's address, for `register_ftrace_direct`.
pub(crate) fn addr(mode: DirectMode) -> usize {
    match mode {
        DirectMode::Count => bp_direct_tramp_count as *const () as usize,
        DirectMode::Record => bp_direct_tramp_record as *const () as usize,
        DirectMode::Empty => bp_direct_tramp_empty as *const () as usize,
    }
}
