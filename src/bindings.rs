// SPDX-License-Identifier: GPL-2.0

//! Raw bindings to the kernel APIs batchprobe uses beyond `kernel::bindings`.
//!
//! Generated at build time by the bindgen rule in `Kbuild` from
//! `rust/bindings_input.h`. Types that `kernel::bindings` already defines are
//! blocklisted there and imported from it here, so that the two agree.

// `allow`, not `expect`: which of these lints the generated code trips
// depends on what bindgen makes of each kernel's headers.
#![allow(
    dead_code,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    unreachable_pub,
    improper_ctypes,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::as_underscore,
    clippy::cast_lossless,
    clippy::ptr_as_ptr,
    clippy::ptr_cast_constness,
    clippy::ref_as_ptr,
    clippy::as_ptr_cast_mut,
    clippy::undocumented_unsafe_blocks
)]

// `allow`, not `expect`: it fires on neither 6.12 nor 7.3 (the generated code uses it).
#[allow(unused_imports)]
pub(crate) use kernel::bindings::*;

include!("../rust/bindings_generated.rs");
