// SPDX-License-Identifier: GPL-2.0

//! The errno numbers batchprobe's pure logic returns, in one place.
//!
//! Positive, as `include/uapi/asm-generic/errno-base.h` and `errno.h`
//! define them on every architecture the module builds for. This file has
//! no kernel types in it: the host-side tests in `tests/` compile it with
//! [`crate::command`] and [`crate::lifecycle`], which use it.

/// No such file or directory: an unknown set, symbol or target.
pub const ENOENT: i32 = 2;
/// Argument list too long: a control line over the limit.
pub const E2BIG: i32 = 7;
/// Device or resource busy: the set is retiring; another tracer holds it.
pub const EBUSY: i32 = 16;
/// Invalid argument.
pub const EINVAL: i32 = 22;
/// Operation not supported: the exit trampoline cannot call this function
/// (see [`crate::direct::signature`]).
pub const EOPNOTSUPP: i32 = 95;
/// Operation already in progress: the set is already retiring.
pub const EALREADY: i32 = 114;
