// SPDX-License-Identifier: GPL-2.0

//! The report's sections, one per kind of run.

pub(crate) mod direct;
pub(crate) mod entry;
pub(crate) mod events;
pub(crate) mod exit;
pub(crate) mod goals;
pub(crate) mod gp;
pub(crate) mod modules;
pub(crate) mod peers;
