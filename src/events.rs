// SPDX-License-Identifier: GPL-2.0

//! Events out (issue 35, `docs/events.md`): a trace event per probe, in
//! tracefs, and the records its probe writes. Built into the module so
//! far: the events' names ([`name`]) and their registration and records
//! without fetch arguments ([`tracefs`]). The fetch-argument compiler and
//! the record writer that runs it (`fetch.rs`, `format.rs`, `record.rs`,
//! pure) are compiled by the host tests only until the module runs them.

pub mod name;
pub(crate) mod tracefs;
