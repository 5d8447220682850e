// SPDX-License-Identifier: GPL-2.0

//! [`FetchError`]: why a fetch argument was refused, in the words of the
//! kernel's `error_log` (`ERRORS` in `kernel/trace/trace_probe.h`), and where.
//! Pure, as its parent.

use core::fmt;

use crate::errno::{E2BIG, EINVAL, ENOENT, EOPNOTSUPP};

/// The reasons, named as the kernel's `TP_ERR_*` (the same words a
/// `kprobe_events` user reads in `error_log`), and the few that are
/// batchprobe's own (the last group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `TP_ERR_TOO_MANY_ARGS`.
    TooManyArgs,
    /// `TP_ERR_ARG_NAME_TOO_LONG`.
    ArgNameTooLong,
    /// `TP_ERR_NO_ARG_NAME`.
    NoArgName,
    /// `TP_ERR_BAD_ARG_NAME`.
    BadArgName,
    /// `TP_ERR_USED_ARG_NAME`.
    UsedArgName,
    /// `TP_ERR_ARG_TOO_LONG`.
    ArgTooLong,
    /// `TP_ERR_NO_ARG_BODY`.
    NoArgBody,
    /// `TP_ERR_BAD_VAR`.
    BadVar,
    /// `TP_ERR_BAD_REG_NAME`.
    BadRegName,
    /// `TP_ERR_BAD_MEM_ADDR`.
    BadMemAddr,
    /// `TP_ERR_BAD_IMM`.
    BadImm,
    /// `TP_ERR_IMMSTR_NO_CLOSE`.
    ImmStrNoClose,
    /// `TP_ERR_FILE_ON_KPROBE`.
    FileOnKprobe,
    /// `TP_ERR_BAD_FILE_OFFS`.
    BadFileOffs,
    /// `TP_ERR_TOO_MANY_OPS`.
    TooManyOps,
    /// `TP_ERR_TOO_MANY_NESTED` (7.3).
    TooManyNested,
    /// `TP_ERR_DEREF_NEED_BRACE`.
    DerefNeedBrace,
    /// `TP_ERR_BAD_DEREF_OFFS`.
    BadDerefOffs,
    /// `TP_ERR_DEREF_OPEN_BRACE`.
    DerefOpenBrace,
    /// `TP_ERR_COMM_CANT_DEREF`.
    CommCantDeref,
    /// `TP_ERR_BAD_FETCH_ARG`.
    BadFetchArg,
    /// `TP_ERR_ARRAY_NO_CLOSE`.
    ArrayNoClose,
    /// `TP_ERR_BAD_ARRAY_SUFFIX`.
    BadArraySuffix,
    /// `TP_ERR_BAD_ARRAY_NUM`.
    BadArrayNum,
    /// `TP_ERR_ARRAY_TOO_BIG`.
    ArrayTooBig,
    /// `TP_ERR_BAD_TYPE`.
    BadType,
    /// `TP_ERR_BAD_STRING`.
    BadString,
    /// `TP_ERR_BAD_SYMSTRING`.
    BadSymString,
    /// `TP_ERR_BAD_BITFIELD`.
    BadBitfield,
    /// `TP_ERR_NEED_STRING_TYPE`.
    NeedStringType,
    /// `TP_ERR_EVENT_TOO_BIG`.
    EventTooBig,
    /// `TP_ERR_RETVAL_ON_PROBE`.
    RetvalOnProbe,
    /// `TP_ERR_BAD_STACK_NUM`.
    BadStackNum,
    /// `TP_ERR_BAD_ARG_NUM`.
    BadArgNum,
    /// `TP_ERR_NOFENTRY_ARGS`.
    NoFentryArgs,
    /// `TP_ERR_NOSUP_BTFARG`.
    NosupBtfArg,
    /// `TP_ERR_NO_BTF_ENTRY`.
    NoBtfEntry,
    /// `TP_ERR_NO_BTFARG`.
    NoBtfArg,
    /// `TP_ERR_NO_RETVAL`.
    NoRetval,
    /// `TP_ERR_BAD_HYPHEN`.
    BadHyphen,
    /// `TP_ERR_BAD_TYPE4STR`.
    BadType4Str,
    /// `TP_ERR_NO_PTR_STRCT`.
    NoPtrStrct,
    /// `TP_ERR_NOSUP_DAT_ARG`.
    NosupDatArg,
    /// `TP_ERR_ARGS_2LONG`.
    ArgsTooLong,
    /// `TP_ERR_DOUBLE_ARGS`.
    DoubleArgs,
    /// `TP_ERR_TYPECAST_REQ_FIELD` (7.3).
    TypecastReqField,
    /// `TP_ERR_TYPECAST_SYM_OFFSET` (7.3).
    TypecastSymOffset,
    /// `TP_ERR_BAD_BTF_TID`.
    BadBtfTid,
    /// `TP_ERR_FAIL_REG_PROBE`: at registration, an `@SYM` whose offset is
    /// not a number.
    FailRegProbe,
    /// `TP_ERR_BAD_PROBE_ADDR`: at registration, an `@SYM` the kernel does
    /// not know.
    BadProbeAddr,
    /// `TP_ERR_NOSUP_PERCPU` (7.3).
    NosupPercpu,
    /// A BTF member access (`ARG->member`, `$retval.member`): the kernel
    /// walks BTF structures for it; batchprobe does not (yet).
    BtfFieldUnsupported,
    /// A 7.3 BTF typecast (`(STRUCT)...`): not in batchprobe (yet).
    TypecastUnsupported,
    /// `$arg*` (every argument BTF names): not in batchprobe (yet).
    ArgStarUnsupported,
    /// `:%pd`/`:%pD` (a dentry's or file's name): not in batchprobe (yet).
    DentryUnsupported,
}

impl ErrorKind {
    /// The reason in words: the kernel's `error_log` text, or batchprobe's.
    pub fn as_str(self) -> &'static str {
        use ErrorKind::*;
        match self {
            TooManyArgs => "Too many arguments are specified",
            ArgNameTooLong => "Argument name is too long",
            NoArgName => "Argument name is not specified",
            BadArgName => "Argument name must follow the same rules as C identifiers",
            UsedArgName => "This argument name is already used",
            ArgTooLong => "Argument expression is too long",
            NoArgBody => "No argument expression",
            BadVar => "Invalid $-variable specified",
            BadRegName => "Invalid register name",
            BadMemAddr => "Invalid memory address",
            BadImm => "Invalid immediate value",
            ImmStrNoClose => "String is not closed with '\"'",
            FileOnKprobe => "File offset is not available for kernel probes",
            BadFileOffs => "Invalid file offset value",
            TooManyOps => "Dereference is too much nested",
            TooManyNested => "Too many nested typecasts/dereferences",
            DerefNeedBrace => "Dereference needs a brace",
            BadDerefOffs => "Invalid dereference offset",
            DerefOpenBrace => "Dereference brace is not closed",
            CommCantDeref => "$comm can not be dereferenced",
            BadFetchArg => "Invalid fetch argument",
            ArrayNoClose => "Array is not closed",
            BadArraySuffix => "Array has wrong suffix",
            BadArrayNum => "Invalid array size",
            ArrayTooBig => "Array number is too big",
            BadType => "Unknown type is specified",
            BadString => "String accepts only memory argument",
            BadSymString => "Symbol String doesn't accept data/userdata",
            BadBitfield => "Invalid bitfield",
            NeedStringType => "$comm and immediate-string only accepts string type",
            EventTooBig => "Event too big (too many fields?)",
            RetvalOnProbe => "$retval is not available on probe",
            BadStackNum => "Invalid stack number",
            BadArgNum => "Invalid argument number",
            NoFentryArgs => "$arg* can be used only on function entry or exit",
            NosupBtfArg => "BTF is not available or not supported",
            NoBtfEntry => "No BTF entry for this probe point",
            NoBtfArg => "This variable is not found at this probe point",
            NoRetval => "This function returns 'void' type",
            BadHyphen => "Failed to parse single hyphen. Forgot '>'?",
            BadType4Str => "This type does not fit for string.",
            NoPtrStrct => "This is not a pointer to union/structure.",
            NosupDatArg => "Non pointer structure/union argument is not supported.",
            ArgsTooLong => "$arg* failed because the argument list is too long",
            DoubleArgs => "$arg* can be used only once in the parameters",
            TypecastReqField => "Typecast requires a field access",
            TypecastSymOffset => "@SYM+/-OFFSET with typecast needs parentheses",
            BadBtfTid => "Failed to get BTF type info.",
            FailRegProbe => "Failed to register probe event",
            BadProbeAddr => "Invalid probed address or symbol",
            NosupPercpu => "Per-cpu variable access is only for kernel probes",
            BtfFieldUnsupported => "BTF member access (-> or .) is not supported by batchprobe",
            TypecastUnsupported => "BTF typecasts are not supported by batchprobe",
            ArgStarUnsupported => "$arg* is not supported by batchprobe: name the arguments",
            DentryUnsupported => "%pd and %pD are not supported by batchprobe",
        }
    }

    /// Whether this is batchprobe's own limit: the kernel takes the argument.
    pub fn unsupported(self) -> bool {
        use ErrorKind::*;
        matches!(
            self,
            BtfFieldUnsupported | TypecastUnsupported | ArgStarUnsupported | DentryUnsupported
        )
    }

    /// The errno (positive) the write fails with, as the kernel's parser
    /// returns it.
    pub fn errno(self) -> i32 {
        use ErrorKind::*;
        match self {
            ArgTooLong | EventTooBig | TooManyNested | TooManyArgs | ArgsTooLong => E2BIG,
            NoBtfEntry | NoBtfArg | NoRetval | BadProbeAddr => ENOENT,
            NosupBtfArg | NosupDatArg | BtfFieldUnsupported | TypecastUnsupported
            | ArgStarUnsupported | DentryUnsupported => EOPNOTSUPP,
            _ => EINVAL,
        }
    }
}

/// A refused fetch argument: the reason, and the byte in the argument (the
/// whole `NAME=BODY:TYPE` word) the caret points at, as `error_log`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchError {
    /// Why.
    pub kind: ErrorKind,
    /// Where, in bytes from the start of the argument.
    pub pos: usize,
}

impl FetchError {
    pub(crate) fn at(kind: ErrorKind, pos: usize) -> Self {
        FetchError { kind, pos }
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.as_str())
    }
}
