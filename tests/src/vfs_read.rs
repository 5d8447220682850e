// SPDX-License-Identifier: GPL-2.0

//! Test support: `ssize_t vfs_read(struct file *file, char __user *buf,
//! size_t count, loff_t *pos)` as the fetch-argument compiler's
//! [`Prototype`], what BTF gives on every kernel the tests run: the
//! prototype `fetch-oracle` compiles the corpus with (checked against the
//! kernel by `test_fetchargs_oracle.sh`), and the reference the BTF reader
//! is compared with.

use crate::fetch::{BtfType, Prototype};

/// `vfs_read`'s prototype, written by hand.
pub struct VfsRead;

impl Prototype<'static> for VfsRead {
    fn found(&self) -> bool {
        true
    }
    fn ret(&self) -> Option<BtfType> {
        Some(BtfType::Scalar("s64"))
    }
    fn nr_params(&self) -> usize {
        4
    }
    fn param(&self, name: &str) -> Option<(u32, BtfType)> {
        Some(match name {
            "file" => (0, BtfType::StructPtr),
            "buf" => (1, BtfType::CharPtr),
            "count" => (2, BtfType::Scalar("u64")),
            "pos" => (3, BtfType::Ptr),
            _ => return None,
        })
    }
    fn param_name(&self, index: usize) -> Option<&'static str> {
        ["file", "buf", "count", "pos"].get(index).copied()
    }
}
