// SPDX-License-Identifier: GPL-2.0

//! Events out (issue 35, `docs/design/events.md`): a trace event per probe, in
//! tracefs, and the records its probe writes. The events' names
//! ([`name`]); the fetch-argument compiler, the `format` it gives and the
//! record writer that runs it ([`fetch`], [`format`], [`record`]: pure,
//! and host-tested from the same source); the probed function's BTF
//! prototype, which names and types its arguments ([`prototype`], pure); a
//! line's arguments compiled for this kernel ([`program`]), the addresses
//! of the symbols they name ([`symbols`]); the events' registration in
//! tracefs and their records ([`tracefs`]); the name of an unnamed probe's
//! event on an address ([`address`]).

pub(crate) mod address;
pub mod fetch;
pub mod format;
pub mod name;
pub(crate) mod program;
pub mod prototype;
pub mod record;
pub(crate) mod symbols;
pub(crate) mod tracefs;
