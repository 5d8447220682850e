// SPDX-License-Identifier: GPL-2.0

//! What the compiler asks of the probed function's BTF ([`Prototype`]), and
//! what it does with the answers, as `CONFIG_PROBE_EVENTS_BTF_ARGS` has the
//! kernel do: `$argN` words read as parameter names, parameters by name,
//! `$retval` typed, `char *` read as a string. Pure, as its parent.

use super::error::ErrorKind::*;
use super::types::split_spec;
use super::{num, sub, Code, Compiler, FetchError, Insn, Site};

/// What BTF says a parameter or return value is, as far as a fetch type goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BtfType {
    /// A scalar the kernel stores as this fetch type (`s32` for an `int` or
    /// an enum, `x64` for a pointer other than `char *`, ...).
    Scalar(&'static str),
    /// `char *`: `:string` reads the string it points to.
    CharPtr,
    /// A pointer to a structure or union: what `->` follows.
    StructPtr,
    /// Any other pointer (`x64`; `->` on it has no member to find).
    Ptr,
    /// `char[N]`: `:string` reads it in place.
    CharArray,
    /// Anything else: the default type.
    Other,
}

impl BtfType {
    /// `fetch_type_from_btf_type`: the type an argument without `:TYPE` gets.
    pub(super) fn fetch_name(self) -> Option<&'static str> {
        match self {
            BtfType::Scalar(name) => Some(name),
            BtfType::CharPtr | BtfType::StructPtr | BtfType::Ptr => Some("x64"),
            BtfType::CharArray | BtfType::Other => None,
        }
    }
}

/// The probed function's BTF prototype, as the compiler asks about it; its
/// names live for `'n` (the BTF they come from).
pub trait Prototype<'n> {
    /// Whether BTF describes the function at all.
    fn found(&self) -> bool;
    /// Its return type; `None` for `void`.
    fn ret(&self) -> Option<BtfType>;
    /// How many parameters it has.
    fn nr_params(&self) -> usize;
    /// The parameter named `name`: its index and type.
    fn param(&self, name: &str) -> Option<(u32, BtfType)>;
    /// The name of the `index`th parameter (0-based).
    fn param_name(&self, index: usize) -> Option<&'n str>;
}

/// No BTF: what an address probe, or a kernel without BTF, gives.
pub struct NoBtf;

impl<'n> Prototype<'n> for NoBtf {
    fn found(&self) -> bool {
        false
    }
    fn ret(&self) -> Option<BtfType> {
        None
    }
    fn nr_params(&self) -> usize {
        0
    }
    fn param(&self, _name: &str) -> Option<(u32, BtfType)> {
        None
    }
    fn param_name(&self, _index: usize) -> Option<&'n str> {
        None
    }
}

impl<'n> Compiler<'_, 'n> {
    /// Whether the kernel rewrites `$argN` words to parameter names here:
    /// BTF arguments on, and BTF describing a function with parameters.
    pub(super) fn rewrites_args(&self) -> bool {
        self.dialect.btf_args && self.btf.found() && self.btf.nr_params() > 0
    }

    /// `traceprobe_expand_meta_args` for one word `$arg...`: where BTF
    /// describes the function, `$argN[:TYPE]` is read as the Nth
    /// parameter's name (and type), as the kernel rewrites it before
    /// parsing. The word's fetch part and type part.
    pub(super) fn meta_arg<'a>(
        &self,
        word: &'a str,
    ) -> Result<(&'a str, Option<&'a str>), FetchError>
    where
        'n: 'a,
    {
        if self.site == Site::Inside {
            return Err(FetchError::at(NoFentryArgs, 0));
        }
        let with_btf = self.rewrites_args();
        match word.as_bytes().get(4) {
            Some(c) if c.is_ascii_digit() => {}
            Some(b'*') if with_btf => return Err(FetchError::at(ArgStarUnsupported, 0)),
            Some(b'*') => return Err(FetchError::at(NosupBtfArg, 0)),
            _ => return Err(FetchError::at(BadVar, 0)),
        }
        if !with_btf {
            return Ok(split_spec(word));
        }
        let (name, tail) = self.btf_name_of(word)?;
        Ok((name, tail.strip_prefix(':')))
    }

    /// `$argN[:TYPE]` (N a digit) as the kernel rewrites it: the Nth
    /// parameter's BTF name, and the `:TYPE` left as it was.
    pub(super) fn btf_name_of<'a>(&self, word: &'a str) -> Result<(&'n str, &'a str), FetchError> {
        let (n, digits) = num::simple_strtoul(sub(word, 4..), 10, self.dialect.linux_7_3);
        let tail = sub(word, 4 + digits..);
        if !(tail.is_empty() || tail.starts_with(':')) {
            return Err(FetchError::at(BadVar, 0));
        }
        // The kernel keeps N in an `int`.
        let n = n as u32 as i32;
        if n == 0 {
            return Err(FetchError::at(BadArgNum, 0));
        }
        // (A negative N makes the kernel read outside its parameter list.)
        let index = usize::try_from(n - 1).unwrap_or(usize::MAX);
        if index >= self.btf.nr_params() {
            return Err(FetchError::at(NoBtfArg, 0));
        }
        let name = self
            .btf
            .param_name(index)
            .ok_or(FetchError::at(NoBtfEntry, 0))?;
        Ok((name, tail))
    }

    /// `parse_btf_arg`: a parameter by its BTF name, or a BTF-typed
    /// `$retval` (or 7.3's `$current`), and what follows it: a member access
    /// is refused, in the kernel's words where the kernel refuses it too.
    pub(super) fn btf_arg<'a>(
        &mut self,
        arg: &'a str,
        code: &mut Code<'a>,
        at: usize,
    ) -> Result<(), FetchError> {
        let (var, member) = match arg.find(['.', '-']) {
            Some(i) if sub(arg, i..).starts_with("->") => (sub(arg, ..i), Some(i + 2)),
            Some(i) if sub(arg, i..).starts_with('.') => {
                return Err(FetchError::at(NosupDatArg, at + i + 1))
            }
            Some(i) => return Err(FetchError::at(BadHyphen, at + i)),
            None => (arg, None),
        };
        let ty = if var == "$current" {
            // 7.3 types `$current` as `struct task_struct *`.
            Some(BtfType::StructPtr)
        } else if self.site == Site::Return && var == "$retval" {
            code.set(Insn::Retval);
            if !self.btf.found() {
                return match member {
                    Some(m) => Err(FetchError::at(NoBtfEntry, at + m)),
                    None => Ok(()),
                };
            }
            self.btf_queried = true;
            Some(self.btf.ret().ok_or(FetchError::at(NoRetval, at))?)
        } else {
            if !self.btf.found() || (self.btf.nr_params() == 0 && !self.btf_queried) {
                return Err(FetchError::at(NoBtfEntry, at));
            }
            self.btf_queried = true;
            let (index, ty) = self.btf.param(var).ok_or(FetchError::at(NoBtfArg, at))?;
            self.function_arg(index, code, at)?;
            Some(ty)
        };
        if let Some(m) = member {
            let kind = match ty {
                Some(BtfType::StructPtr) => BtfFieldUnsupported,
                Some(BtfType::Ptr | BtfType::CharPtr) => BadBtfTid,
                _ => NoPtrStrct,
            };
            return Err(FetchError::at(kind, at + m));
        }
        self.last_btf = ty;
        Ok(())
    }
}

/// `check_prepare_btf_string_fetch`: `:string` on a BTF-typed value.
pub(super) fn btf_string(
    btf: BtfType,
    type_name: &str,
    code: &mut Code<'_>,
    at: usize,
) -> Result<(), FetchError> {
    match btf {
        BtfType::CharArray => Ok(()),
        BtfType::CharPtr => {
            code.advance(FetchError::at(TooManyOps, at))?;
            code.set(if type_name.starts_with('u') {
                Insn::UDeref(0)
            } else {
                Insn::Deref(0)
            });
            Ok(())
        }
        _ => Err(FetchError::at(BadType4Str, at)),
    }
}
