// SPDX-License-Identifier: GPL-2.0

//! What an event's `format` file says of a probe's record: the C type of
//! each argument's field and the `print fmt` line, written as
//! `kernel/trace/trace_probe.c` writes them (`traceprobe_define_arg_fields`,
//! `__set_print_fmt`), so that trace-cmd, perf and libtraceevent read a
//! batchprobe event as they read a `kprobe_events` one. Pure.

use core::fmt::{self, Write};

use super::fetch::ProbeArg;

/// The record's fixed head: a probe's address, or a return probe's function
/// and return address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// `__probe_ip`.
    Entry,
    /// `__probe_func`, `__probe_ret_ip`.
    Return,
    /// A return's, and `duration` (ns, `u64`) after the arguments' fixed
    /// fields (theirs are where an fprobe return event has them): a
    /// return record of a direct exit set (`d:` in `create --exit`),
    /// printed after the arguments.
    Exit,
}

impl Head {
    /// Bytes of the record's own fields before the arguments' (the common
    /// ones included).
    pub fn bytes(self) -> u32 {
        match self {
            Head::Entry => 16,
            Head::Return | Head::Exit => 24,
        }
    }
}

/// The C type `format` gives an argument's field: the type's, or
/// `TYPE[N]` for an array.
pub fn field_type(arg: &ProbeArg<'_>, w: &mut impl Write) -> fmt::Result {
    w.write_str(arg.ty.fmttype)?;
    if arg.count != 0 {
        write!(w, "[{}]", arg.count)?;
    }
    Ok(())
}

/// The event's `print fmt` (without the `print fmt: ` prefix).
pub fn print_fmt(head: Head, args: &[ProbeArg<'_>], w: &mut impl Write) -> fmt::Result {
    let (fmt, fields) = match head {
        Head::Entry => ("(%lx)", ", REC->__probe_ip"),
        Head::Return | Head::Exit => ("(%lx <- %lx)", ", REC->__probe_func, REC->__probe_ret_ip"),
    };
    write!(w, "\"{fmt}")?;
    for a in args {
        write!(w, " {}=", a.name)?;
        if a.count == 0 {
            w.write_str(a.ty.fmt)?;
        } else {
            write!(w, "{{{}", a.ty.fmt)?;
            for _ in 1..a.count {
                write!(w, ",{}", a.ty.fmt)?;
            }
            w.write_char('}')?;
        }
    }
    if head == Head::Exit {
        w.write_str(" duration=%llu")?;
    }
    write!(w, "\"{fields}")?;
    for a in args {
        let (open, close) = if a.ty.string {
            (", __get_str(", ")")
        } else {
            (", REC->", "")
        };
        if a.count == 0 {
            write!(w, "{open}{}{close}", a.name)?;
        } else {
            for j in 0..a.count {
                write!(w, "{open}{}[{j}]{close}", a.name)?;
            }
        }
    }
    if head == Head::Exit {
        w.write_str(", REC->duration")?;
    }
    Ok(())
}
