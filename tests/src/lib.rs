// SPDX-License-Identifier: GPL-2.0

//! The module's pure logic, compiled from `src/` exactly as the kernel module
//! compiles it, so that host tests exercise the same source.

#[path = "../../src/errno.rs"]
pub mod errno;

#[path = "../../src/sort.rs"]
pub mod sort;

#[path = "../../src/command.rs"]
pub mod command;

#[path = "../../src/lifecycle.rs"]
pub mod lifecycle;

#[path = "../../src/symname.rs"]
pub mod symname;

#[path = "../../src/direct/addrset.rs"]
pub mod addrset;

#[path = "../../src/engine/registry/validate/batchkeys.rs"]
pub mod batchkeys;

#[path = "../../src/btf/parse.rs"]
pub mod btf;

#[path = "../../src/aggregate.rs"]
pub mod aggregate;

#[path = "../../src/direct/signature.rs"]
pub mod signature;

#[path = "../../src/errtext.rs"]
pub mod errtext;

#[path = "../../src/retpool.rs"]
pub mod retpool;

#[path = "../../src/probecap.rs"]
pub mod probecap;

// The events wing's pure files (`format` and `record` find `fetch` as
// `super::fetch`, here and in the module).
#[path = "../../src/events/fetch.rs"]
pub mod fetch;

#[path = "../../src/events/format.rs"]
pub mod format;

#[path = "../../src/events/record.rs"]
pub mod record;

#[path = "../../src/events/prototype.rs"]
pub mod prototype;

#[path = "../../src/events/name.rs"]
pub mod event_name;

// Test support, not module source.
pub mod btf_blob;
pub mod vfs_read;
