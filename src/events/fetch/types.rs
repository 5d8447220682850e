// SPDX-License-Identifier: GPL-2.0

//! The fetch types (`probe_fetch_types[]` in `kernel/trace/trace_probe.c`):
//! what a `:TYPE` suffix names, how many bytes its field takes in a record,
//! how `format` declares it and how the record prints it. Pure.

use super::error::ErrorKind::*;
use super::{num, sub, FetchError, MAX_ARRAY_LEN};

/// A fetch type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchType {
    /// The name after `:` (`u32`, `x64`, `string`, ...).
    pub name: &'static str,
    /// Bytes in the record (a string's `__data_loc` word: 4).
    pub size: u8,
    /// Signed, for filters and `format`'s `signed:`.
    pub signed: bool,
    /// A string, stored after the fixed fields (`__data_loc`).
    pub string: bool,
    /// How the event's `print fmt` prints it.
    pub fmt: &'static str,
    /// The C type `format` declares (an alias shows its base: `x32` is `u32`).
    pub fmttype: &'static str,
}

const fn basic(
    name: &'static str,
    size: u8,
    signed: bool,
    fmt: &'static str,
    fmttype: &'static str,
) -> FetchType {
    FetchType {
        name,
        size,
        signed,
        string: false,
        fmt,
        fmttype,
    }
}

/// A string's field: its `__data_loc` word, which the kernel declares
/// signed (`__ASSIGN_FETCH_TYPE(..., sizeof(u32), 1, 1, ...)`).
const fn string(name: &'static str) -> FetchType {
    FetchType {
        name,
        size: 4,
        signed: true,
        string: true,
        fmt: "\\\"%s\\\"",
        fmttype: "__data_loc char[]",
    }
}

/// Every type, in the kernel's order.
pub const TYPES: [FetchType; 17] = [
    string("string"),
    string("ustring"),
    string("symstr"),
    basic("u8", 1, false, "%u", "u8"),
    basic("u16", 2, false, "%u", "u16"),
    basic("u32", 4, false, "%u", "u32"),
    basic("u64", 8, false, "%Lu", "u64"),
    basic("s8", 1, true, "%d", "s8"),
    basic("s16", 2, true, "%d", "s16"),
    basic("s32", 4, true, "%d", "s32"),
    basic("s64", 8, true, "%Ld", "s64"),
    basic("x8", 1, false, "0x%x", "u8"),
    basic("x16", 2, false, "0x%x", "u16"),
    basic("x32", 4, false, "0x%x", "u32"),
    basic("x64", 8, false, "0x%Lx", "u64"),
    basic("char", 1, false, "'%c'", "u8"),
    basic("symbol", 8, false, "%pS", "u64"),
];

/// The type of an argument without `:TYPE` (x86-64's `unsigned long`).
pub(super) const DEFAULT: &str = "x64";

/// `find_fetch_type`: a type by name (`None`: the default), a bitfield
/// `b<W>@<O>/<SIZE>` by its container's size.
pub(super) fn find(name: Option<&str>) -> Option<&'static FetchType> {
    let name = name.unwrap_or(DEFAULT);
    if let Some(bf) = name.strip_prefix('b') {
        let container = sub(bf, bf.find('/')? + 1..);
        let by_bits = match num::kstrtoul(container, 0)? {
            8 => "u8",
            16 => "u16",
            32 => "u32",
            64 => "u64",
            _ => return None,
        };
        return find(Some(by_bits));
    }
    TYPES.iter().find(|t| t.name == name)
}

/// `BODY[:SPEC]`: the fetch part and the type part (at the first `:`).
pub(super) fn split_spec(body: &str) -> (&str, Option<&str>) {
    match body.find(':') {
        Some(i) => (sub(body, ..i), Some(sub(body, i + 1..))),
        None => (body, None),
    }
}

/// `parse_probe_arg_type`: the type part `TYPE[[N]]` of the fetch part
/// `fetch`: the type's name, the array count and the type.
pub(super) fn split_type<'a>(
    fetch: &str,
    spec: Option<&'a str>,
    at: usize,
) -> Result<(Option<&'a str>, u32, &'static FetchType), FetchError> {
    let body_len = fetch.len() + spec.map_or(0, |t| t.len() + 1);
    let mut count = 0;
    let mut type_name = spec;
    if let Some(spec) = spec {
        let spec_at = fetch.len() + 1;
        if let Some(open) = spec.find('[') {
            let inner = sub(spec, open + 1..);
            let close = inner
                .find(']')
                .ok_or(FetchError::at(ArrayNoClose, at + body_len))?;
            let inner_at = spec_at + open + 1;
            if close + 1 != inner.len() {
                return Err(FetchError::at(BadArraySuffix, at + inner_at + close + 1));
            }
            count = match num::kstrtouint(sub(inner, ..close), 0) {
                Some(n) if n > 0 => n,
                _ => return Err(FetchError::at(BadArrayNum, at + inner_at)),
            };
            if count > MAX_ARRAY_LEN {
                return Err(FetchError::at(ArrayTooBig, at + inner_at));
            }
            type_name = Some(sub(spec, ..open));
        }
    }
    let type_at = at + spec.map_or(0, |_| fetch.len() + 1);
    if matches!(spec, Some("%pd" | "%pD")) {
        return Err(FetchError::at(DentryUnsupported, type_at));
    }
    let ty = if fetch == "$comm" || fetch == "$COMM" || fetch.starts_with("\\\"") {
        if count != 0 || type_name.is_some_and(|t| t != "string") {
            return Err(FetchError::at(NeedStringType, type_at));
        }
        find(Some("string"))
    } else {
        find(type_name)
    };
    let ty = ty.ok_or(FetchError::at(BadType, type_at))?;
    Ok((type_name, count, ty))
}
