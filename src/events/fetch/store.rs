// SPDX-License-Identifier: GPL-2.0

//! `finalize_fetch_insn`: a parsed argument's store, bitfield and array
//! loop, and the checks the kernel makes of its type against what was
//! loaded. Pure, as its parent.

use super::error::ErrorKind::*;
use super::{num, sub, Code, FetchError, FetchType, Insn};

/// `finalize_fetch_insn`: the store, the bitfield, the array loop and the end.
pub(super) fn finalize(
    code: &mut Code<'_>,
    ty: &'static FetchType,
    type_name: Option<&str>,
    count: u32,
    at: usize,
    type_at: usize,
    saturate: bool,
) -> Result<(), FetchError> {
    let too_many = FetchError::at(TooManyOps, at);
    if ty.string {
        store_string(code, ty, count, too_many, type_at)?;
    } else {
        match code.cur() {
            Insn::Deref(o) => code.set(Insn::StMem(ty.size, o)),
            Insn::UDeref(o) => code.set(Insn::StUMem(ty.size, o)),
            _ => {
                code.next_empty(too_many)?;
                code.set(Insn::StRaw(ty.size));
            }
        }
    }
    let store = code.cur();
    if let Some(bf) = type_name.and_then(|t| t.strip_prefix('b')) {
        bitfield(bf, ty, code, saturate).ok_or(FetchError::at(BadBitfield, type_at))?;
    }
    if count != 0 {
        if !matches!(
            store,
            Insn::StMem(..) | Insn::StString(_) | Insn::StUString(_)
        ) {
            return Err(FetchError::at(BadString, type_at));
        }
        code.next_empty(too_many)?;
        code.set(Insn::LoopArray(count));
    }
    code.end();
    Ok(())
}

/// A string type's store: what it may follow (`symstr` a value, the others
/// an address), and whether it takes a slot of its own or the place of the
/// dereference before it.
fn store_string(
    code: &mut Code<'_>,
    ty: &FetchType,
    count: u32,
    too_many: FetchError,
    type_at: usize,
) -> Result<(), FetchError> {
    let symstr = ty.name == "symstr";
    let cur = code.cur();
    let fits = if symstr {
        matches!(
            cur,
            Insn::Reg(_) | Insn::Stack(_) | Insn::Retval | Insn::Arg(_) | Insn::Deref(_)
        )
    } else {
        matches!(
            cur,
            Insn::Deref(_) | Insn::UDeref(_) | Insn::Imm(_) | Insn::Comm | Insn::ImmStr(_)
        )
    };
    if !fits {
        return Err(FetchError::at(
            if symstr { BadSymString } else { BadString },
            type_at,
        ));
    }
    if symstr || matches!(cur, Insn::Imm(_) | Insn::Comm | Insn::ImmStr(_)) || count != 0 {
        code.next_empty(too_many)?;
    }
    let offset = match code.cur() {
        Insn::Deref(o) | Insn::UDeref(o) => o,
        _ => 0,
    };
    code.set(
        if ty.name == "ustring" || matches!(code.cur(), Insn::UDeref(_)) {
            Insn::StUString(offset)
        } else if symstr {
            Insn::StSymstr
        } else {
            Insn::StString(offset)
        },
    );
    Ok(())
}

/// `__parse_bitfield_probe_arg`: `<WIDTH>@<OFFSET>/...` after the `b`, in
/// the kernel's `unsigned long` (wrapping) arithmetic.
fn bitfield(bf: &str, ty: &FetchType, code: &mut Code<'_>, saturate: bool) -> Option<()> {
    let (width, n) = num::simple_strtoul(bf, 0, saturate);
    let rest = sub(bf, n..).strip_prefix('@').filter(|_| width != 0)?;
    let (offset, n) = num::simple_strtoul(rest, 0, saturate);
    if n == 0 || !sub(rest, n..).starts_with('/') {
        return None;
    }
    code.next_empty(FetchError::at(BadBitfield, 0)).ok()?;
    let bits = u64::from(ty.size) * 8;
    let used = width.wrapping_add(offset);
    if bits < used {
        return None;
    }
    code.set(Insn::ModBitfield {
        basesize: ty.size,
        lshift: bits.wrapping_sub(used) as u8,
        rshift: bits.wrapping_sub(width) as u8,
    });
    Some(())
}
