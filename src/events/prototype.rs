// SPDX-License-Identifier: GPL-2.0

//! A probed function's prototype in the kernel's BTF, as the fetch-argument
//! compiler asks about it ([`super::fetch::Prototype`]): what
//! `query_btf_context()` and `fetch_type_from_btf_type()` in the kernel's
//! `trace_probe.c` find, so that an argument without `NAME=` or `:TYPE` is
//! named and typed as `kprobe_events` names and types it on a kernel with
//! `CONFIG_PROBE_EVENTS_BTF_ARGS`.
//!
//! Pure logic on the parsed BTF ([`crate::btf`]), so that `tests/` runs it
//! on the host.

use super::fetch::{BtfType, Prototype};
use crate::btf::{
    Btf, Type, KIND_ARRAY, KIND_ENUM, KIND_ENUM64, KIND_FUNC, KIND_FUNC_PROTO, KIND_INT, KIND_PTR,
    KIND_STRUCT, KIND_UNION,
};

/// `BTF_INT_SIGNED` in an INT's encoding bits.
const INT_SIGNED: u32 = 1;

/// A function's FUNC_PROTO in a BTF blob, or nothing (no BTF function of
/// that name: the compiler then reads as without BTF).
pub struct BtfPrototype<'b> {
    btf: Btf<'b>,
    offsets: &'b [u32],
    proto: Option<Type>,
}

impl<'b> BtfPrototype<'b> {
    /// The prototype of the function `name`: the first BTF function of that
    /// name in `funcs` (the blob's [`Btf::index_functions`], whose `offsets`
    /// are [`Btf::offsets`]), as `btf_find_func_proto()` takes the one
    /// `bpf_find_btf_id()` finds.
    pub fn new(btf: Btf<'b>, offsets: &'b [u32], funcs: &[u32], name: &[u8]) -> Self {
        let proto = btf
            .functions_named(offsets, funcs, name)
            .first()
            .and_then(|&id| btf.get(offsets, id))
            .filter(|f| f.kind == KIND_FUNC)
            .and_then(|f| btf.get(offsets, f.size_or_type))
            .filter(|p| p.kind == KIND_FUNC_PROTO);
        Self {
            btf,
            offsets,
            proto,
        }
    }

    /// Whether `id` (typedefs and qualifiers skipped) is an unsigned 8-bit
    /// integer: `btf_type_is_char_ptr()`'s and `_char_array()`'s test.
    fn is_char(&self, id: u32) -> bool {
        self.btf
            .skip_modifiers(self.offsets, id)
            .filter(|t| t.kind == KIND_INT)
            .and_then(|t| self.btf.first_word(&t))
            .is_some_and(|enc| (enc >> 24) & INT_SIGNED == 0 && enc & 0xff == 8)
    }

    /// What type `id` is to the compiler: `fetch_type_from_btf_type()`'s
    /// answer, and whether `:string` or `->` apply.
    fn classify(&self, id: u32) -> BtfType {
        let Some(t) = self.btf.skip_modifiers(self.offsets, id) else {
            return BtfType::Other;
        };
        match t.kind {
            KIND_ENUM => BtfType::Scalar("s32"),
            KIND_ENUM64 => BtfType::Scalar("s64"),
            KIND_PTR if self.is_char(t.size_or_type) => BtfType::CharPtr,
            KIND_PTR => match self.btf.skip_modifiers(self.offsets, t.size_or_type) {
                Some(p) if matches!(p.kind, KIND_STRUCT | KIND_UNION) => BtfType::StructPtr,
                _ => BtfType::Ptr,
            },
            KIND_INT => {
                let enc = self.btf.first_word(&t).unwrap_or(0);
                let signed = (enc >> 24) & INT_SIGNED != 0;
                match (signed, enc & 0xff) {
                    (true, 8) => BtfType::Scalar("s8"),
                    (true, 16) => BtfType::Scalar("s16"),
                    (true, 32) => BtfType::Scalar("s32"),
                    (true, 64) => BtfType::Scalar("s64"),
                    (true, _) => BtfType::Other,
                    (false, 8) => BtfType::Scalar("u8"),
                    (false, 16) => BtfType::Scalar("u16"),
                    (false, 32) => BtfType::Scalar("u32"),
                    // 64 bits, or a bitfield's width: the kernel stores it
                    // as `u64` (with the width, which no parameter has).
                    (false, _) => BtfType::Scalar("u64"),
                }
            }
            KIND_ARRAY if self.btf.first_word(&t).is_some_and(|e| self.is_char(e)) => {
                BtfType::CharArray
            }
            _ => BtfType::Other,
        }
    }

    /// The `i`th parameter's name offset and type.
    fn nth(&self, i: usize) -> Option<(u32, u32)> {
        self.btf.param(self.proto.as_ref()?, i)
    }

    fn name(&self, off: u32) -> Option<&'b str> {
        core::str::from_utf8(self.btf.string(off)?).ok()
    }
}

impl<'b> Prototype<'b> for BtfPrototype<'b> {
    fn found(&self) -> bool {
        self.proto.is_some()
    }

    fn ret(&self) -> Option<BtfType> {
        match self.proto?.size_or_type {
            0 => None,
            id => Some(self.classify(id)),
        }
    }

    fn nr_params(&self) -> usize {
        self.proto.map_or(0, |p| p.vlen)
    }

    fn param(&self, name: &str) -> Option<(u32, BtfType)> {
        (0..self.nr_params()).find_map(|i| {
            let (off, ty) = self.nth(i)?;
            (self.name(off)? == name).then(|| (i as u32, self.classify(ty)))
        })
    }

    fn param_name(&self, index: usize) -> Option<&'b str> {
        self.name(self.nth(index)?.0)
    }
}
