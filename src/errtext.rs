// SPDX-License-Identifier: GPL-2.0

//! What `last_error` says, in the spirit of tracefs' `error_log`: the line
//! at fault and its text, what was wrong in words, and the errno once, by
//! name.
//!
//! ```text
//! line 2: p:oops/b no_such_function: unknown symbol (ENOENT), at create on line 3
//! ```
//!
//! A probe the kernel refuses while `create` runs is blamed on the line
//! that named it (which may come from an earlier write: `line 2 of an
//! earlier write`); the `create` that ran it comes last. A parse error
//! shows the line again with a caret under the word at fault.
//!
//! The words for a kernel errno depend on what returned it ([`Site`]): an
//! `ENOENT` from `register_kprobe()` is an unknown symbol, an `EINVAL` from
//! ftrace's filter is a function ftrace cannot trace. They follow the 6.12
//! and 7.3 sources (`kernel/kprobes.c`, `arch/x86/kernel/kprobes/core.c`,
//! `kernel/trace/ftrace.c`, `kernel/trace/fprobe.c`), noted per site below.
//!
//! This file has no kernel types in it: the host-side tests in `tests/`
//! compile it.

use core::fmt;

/// The name of a positive errno (`2` → `"ENOENT"`), as the kernel's
/// headers spell it: every errno of `include/uapi/asm-generic/errno*.h`
/// (x86-64's) and the kernel's own of `include/linux/errno.h` (an aliased
/// number under its first name: `EAGAIN`, not `EWOULDBLOCK`). `None` for
/// others. `stats`' `errors` lines name an error return by it too.
pub fn name(errno: i32) -> Option<&'static str> {
    let i = NAMES.binary_search_by_key(&errno, |e| e.0).ok()?;
    NAMES.get(i).map(|e| e.1)
}

/// [`name`]'s table, by number.
const NAMES: &[(i32, &str)] = &[
    (1, "EPERM"),
    (2, "ENOENT"),
    (3, "ESRCH"),
    (4, "EINTR"),
    (5, "EIO"),
    (6, "ENXIO"),
    (7, "E2BIG"),
    (8, "ENOEXEC"),
    (9, "EBADF"),
    (10, "ECHILD"),
    (11, "EAGAIN"),
    (12, "ENOMEM"),
    (13, "EACCES"),
    (14, "EFAULT"),
    (15, "ENOTBLK"),
    (16, "EBUSY"),
    (17, "EEXIST"),
    (18, "EXDEV"),
    (19, "ENODEV"),
    (20, "ENOTDIR"),
    (21, "EISDIR"),
    (22, "EINVAL"),
    (23, "ENFILE"),
    (24, "EMFILE"),
    (25, "ENOTTY"),
    (26, "ETXTBSY"),
    (27, "EFBIG"),
    (28, "ENOSPC"),
    (29, "ESPIPE"),
    (30, "EROFS"),
    (31, "EMLINK"),
    (32, "EPIPE"),
    (33, "EDOM"),
    (34, "ERANGE"),
    (35, "EDEADLK"),
    (36, "ENAMETOOLONG"),
    (37, "ENOLCK"),
    (38, "ENOSYS"),
    (39, "ENOTEMPTY"),
    (40, "ELOOP"),
    (42, "ENOMSG"),
    (43, "EIDRM"),
    (44, "ECHRNG"),
    (45, "EL2NSYNC"),
    (46, "EL3HLT"),
    (47, "EL3RST"),
    (48, "ELNRNG"),
    (49, "EUNATCH"),
    (50, "ENOCSI"),
    (51, "EL2HLT"),
    (52, "EBADE"),
    (53, "EBADR"),
    (54, "EXFULL"),
    (55, "ENOANO"),
    (56, "EBADRQC"),
    (57, "EBADSLT"),
    (59, "EBFONT"),
    (60, "ENOSTR"),
    (61, "ENODATA"),
    (62, "ETIME"),
    (63, "ENOSR"),
    (64, "ENONET"),
    (65, "ENOPKG"),
    (66, "EREMOTE"),
    (67, "ENOLINK"),
    (68, "EADV"),
    (69, "ESRMNT"),
    (70, "ECOMM"),
    (71, "EPROTO"),
    (72, "EMULTIHOP"),
    (73, "EDOTDOT"),
    (74, "EBADMSG"),
    (75, "EOVERFLOW"),
    (76, "ENOTUNIQ"),
    (77, "EBADFD"),
    (78, "EREMCHG"),
    (79, "ELIBACC"),
    (80, "ELIBBAD"),
    (81, "ELIBSCN"),
    (82, "ELIBMAX"),
    (83, "ELIBEXEC"),
    (84, "EILSEQ"),
    (85, "ERESTART"),
    (86, "ESTRPIPE"),
    (87, "EUSERS"),
    (88, "ENOTSOCK"),
    (89, "EDESTADDRREQ"),
    (90, "EMSGSIZE"),
    (91, "EPROTOTYPE"),
    (92, "ENOPROTOOPT"),
    (93, "EPROTONOSUPPORT"),
    (94, "ESOCKTNOSUPPORT"),
    (95, "EOPNOTSUPP"),
    (96, "EPFNOSUPPORT"),
    (97, "EAFNOSUPPORT"),
    (98, "EADDRINUSE"),
    (99, "EADDRNOTAVAIL"),
    (100, "ENETDOWN"),
    (101, "ENETUNREACH"),
    (102, "ENETRESET"),
    (103, "ECONNABORTED"),
    (104, "ECONNRESET"),
    (105, "ENOBUFS"),
    (106, "EISCONN"),
    (107, "ENOTCONN"),
    (108, "ESHUTDOWN"),
    (109, "ETOOMANYREFS"),
    (110, "ETIMEDOUT"),
    (111, "ECONNREFUSED"),
    (112, "EHOSTDOWN"),
    (113, "EHOSTUNREACH"),
    (114, "EALREADY"),
    (115, "EINPROGRESS"),
    (116, "ESTALE"),
    (117, "EUCLEAN"),
    (118, "ENOTNAM"),
    (119, "ENAVAIL"),
    (120, "EISNAM"),
    (121, "EREMOTEIO"),
    (122, "EDQUOT"),
    (123, "ENOMEDIUM"),
    (124, "EMEDIUMTYPE"),
    (125, "ECANCELED"),
    (126, "ENOKEY"),
    (127, "EKEYEXPIRED"),
    (128, "EKEYREVOKED"),
    (129, "EKEYREJECTED"),
    (130, "EOWNERDEAD"),
    (131, "ENOTRECOVERABLE"),
    (132, "ERFKILL"),
    (133, "EHWPOISON"),
    (134, "EFTYPE"),
    (512, "ERESTARTSYS"),
    (513, "ERESTARTNOINTR"),
    (514, "ERESTARTNOHAND"),
    (515, "ENOIOCTLCMD"),
    (516, "ERESTART_RESTARTBLOCK"),
    (518, "EOPENSTALE"),
    (519, "ENOPARAM"),
    (521, "EBADHANDLE"),
    (522, "ENOTSYNC"),
    (523, "EBADCOOKIE"),
    (524, "ENOTSUPP"),
    (525, "ETOOSMALL"),
    (526, "ESERVERFAULT"),
    (527, "EBADTYPE"),
    (528, "EJUKEBOX"),
    (529, "EIOCBQUEUED"),
    (530, "ERECALLCONFLICT"),
    (531, "ENOGRACE"),
];

/// An errno as `last_error` shows it: `(ENOENT)`, or `(errno 1234)` for
/// one without a name. Takes a positive or a negative errno.
pub struct Errno(pub i32);

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0.checked_abs().unwrap_or(0);
        match name(e) {
            Some(n) => write!(f, "({n})"),
            None => write!(f, "(errno {e})"),
        }
    }
}

/// Words for an errno that no [`Site`] explains better.
pub fn generic(errno: i32) -> &'static str {
    match errno.checked_abs().unwrap_or(0) {
        1 => "not permitted",
        2 => "not found",
        4 | 512 => "interrupted",
        7 => "too big",
        11 => "temporarily unavailable, try again",
        12 => "out of memory",
        13 => "permission denied",
        14 => "bad address",
        16 => "busy",
        17 => "already exists",
        19 => "not available on this kernel",
        22 => "invalid argument",
        28 => "over a limit",
        34 => "out of range",
        84 => "not an instruction boundary",
        95 | 524 => "not supported",
        114 => "already in progress",
        _ => "failed",
    }
}

/// What returned an errno, for [`refusal`] to explain it in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// `register_kprobe()`: `p:` with an offset or on what ftrace cannot
    /// trace, every `p!:`, API kprobes.
    Kprobe,
    /// `register_kretprobe()`: `r:` that no fprobe serves, every `r!:`.
    Kretprobe,
    /// `enable_kprobe()` at `enable`.
    KprobeEnable,
    /// ftrace's filter, asked whether a function has an fentry call site
    /// (`ftrace_set_filter_ip()`): the fprobe and direct backends.
    Ftrace,
    /// `register_ftrace_direct()` and friends at `create` (direct calls).
    Direct,
    /// `register_fprobe_ips()` at `enable`.
    Fprobe,
    /// The `do_exit()` callback an exit set needs
    /// (`rust/exit_tasks.c`, `bp_exit_tasks_start()`).
    ExitWatch,
}

/// What the kernel's `errno` (positive or negative) means at `site`, in
/// words.
pub fn refusal(site: Site, errno: i32) -> &'static str {
    let e = errno.checked_abs().unwrap_or(0);
    match (site, e) {
        // _kprobe_addr(): kprobe_lookup_name() found no such symbol, or
        // the address lies in none; check_kprobe_address_safe(): the
        // symbol's module is going away.
        (Site::Kprobe | Site::Kretprobe, 2) => "unknown symbol",
        // check_kprobe_address_safe(): the kprobe blacklist (NOKPROBE_SYMBOL,
        // __kprobes, the arch's), not kernel or module text (a data symbol),
        // a jump label, static call, BUG() or CFI preamble site;
        // arch_prepare_kprobe(): an alternatives site.
        (Site::Kprobe, 22) => {
            "probing refused: blacklisted (kprobes/blacklist), not text, or a reserved site: \
             a jump label, static call, BUG, CFI preamble or alternative"
        }
        // register_kretprobe() also refuses what is not a function's entry
        // and its own kretprobe blacklist.
        (Site::Kretprobe, 22) => {
            "probing refused: not a function entry, blacklisted (kprobes/blacklist), not text, \
             or a reserved site: a jump label, static call, BUG, CFI preamble or alternative"
        }
        // x86 can_probe(): the address is not where an instruction starts
        // (decoding from the symbol's start), or an INT or UD instruction.
        (Site::Kprobe | Site::Kretprobe, 84) => {
            "mid-instruction: not an instruction boundary kprobes can probe"
        }
        // x86 prepare_emulation(): int3, iret, far call or jump.
        (Site::Kprobe | Site::Kretprobe, 95) => "an instruction kprobes cannot single-step",
        // x86 arch_copy_kprobe(): no room after the copied instruction.
        (Site::Kprobe | Site::Kretprobe, 28) => "an instruction too long to single-step",
        // enable_kprobe(): the probe was removed (its module went away).
        (Site::KprobeEnable, 22) => "the probe is gone (its module was unloaded)",
        // arm_kprobe_ftrace(): ftrace refuses a second IPMODIFY user, or a
        // kprobe where a direct call sits without sharing.
        (Site::KprobeEnable | Site::Fprobe | Site::Direct, 16) => {
            "another tracer holds it: a direct call or an IPMODIFY ftrace user"
        }
        // arm_kprobe_ftrace() after kprobe_ftrace_kill(), or without
        // KPROBES_ON_FTRACE.
        (Site::KprobeEnable, 19) => "kprobes on ftrace are disabled",
        // __ftrace_match_addr(): no fentry call site at the address
        // (6.12: EINVAL; ENOENT where the address is no ftrace location).
        (Site::Ftrace, 2 | 22) => "not ftrace-able: no fentry call site",
        (Site::Ftrace | Site::Direct | Site::Fprobe, 19) => "ftrace is disabled",
        // The ops_func of a live patch on the function refused to share.
        (Site::Direct, 11) => "a live patch holds it",
        // register_ftrace_function() refuses a PERMANENT ops while
        // /proc/sys/kernel/ftrace_enabled is 0.
        (Site::ExitWatch, 16) => {
            "function tracing is off (/proc/sys/kernel/ftrace_enabled is 0): tasks that end \
             inside a body could not be counted"
        }
        // Neither the ORC nor the frame-pointer unwinder: exiting tasks'
        // stacks cannot be read reliably.
        (Site::ExitWatch, 95) => {
            "exit sets need the ORC or frame-pointer unwinder to count tasks that end inside a body"
        }
        _ => generic(e),
    }
}

/// The probe line a refusal is blamed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeLine<'a> {
    /// Its number in its write (from 1).
    pub number: usize,
    /// Staged by an earlier write than the one that failed.
    pub earlier: bool,
    /// The line as written, without its newline and surrounding blanks.
    pub text: &'a str,
}

/// Where a failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// An in-kernel API call.
    Api,
    /// A control write's line.
    Line {
        /// The line's number (from 1).
        number: usize,
        /// The line as written, when it can be shown (text, not too long).
        text: Option<&'a str>,
        /// The probe line the failure is blamed on, if another line.
        probe: Option<ProbeLine<'a>>,
        /// A byte offset into `text` to put a caret under.
        column: Option<usize>,
    },
}

/// The longest line text shown; longer lines end in `...`.
pub const TEXT_SHOWN: usize = 256;

/// `text`, cut to at most [`TEXT_SHOWN`] bytes on a character boundary.
pub fn shown(text: &str) -> (&str, bool) {
    if text.len() <= TEXT_SHOWN {
        return (text, false);
    }
    let mut end = TEXT_SHOWN;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    (text.get(..end).unwrap_or(""), true)
}

fn write_text(w: &mut dyn fmt::Write, text: &str) -> fmt::Result {
    let (t, cut) = shown(text);
    w.write_str(t)?;
    if cut {
        w.write_str("...")?;
    }
    Ok(())
}

/// The command word of a line (`create` of `create oops --noopt`).
pub fn command_word(text: &str) -> &str {
    text.split_ascii_whitespace().next().unwrap_or("")
}

/// Writes a failure as `last_error` shows it: one line (then, for a parse
/// error, the line's text again with a caret under the word at fault).
/// `what` says what was wrong, without the errno; `errno` is positive or
/// negative.
pub fn write_report(
    w: &mut dyn fmt::Write,
    origin: &Origin<'_>,
    what: impl fmt::Display,
    errno: i32,
) -> fmt::Result {
    let errno = Errno(errno);
    let Origin::Line {
        number,
        text,
        probe,
        column,
    } = *origin
    else {
        return writeln!(w, "api: {what} {errno}");
    };
    if let Some(p) = probe {
        write!(w, "line {}", p.number)?;
        if p.earlier {
            w.write_str(" of an earlier write")?;
        }
        w.write_str(": ")?;
        write_text(w, p.text)?;
        write!(w, ": {what} {errno}, at ")?;
        match text.map(command_word).filter(|c| !c.is_empty()) {
            Some(c) => write!(w, "{c} on line {number}")?,
            None => write!(w, "line {number}")?,
        }
        return writeln!(w);
    }
    write!(w, "line {number}: ")?;
    if let Some(t) = text {
        write_text(w, t)?;
        w.write_str(": ")?;
    }
    writeln!(w, "{what} {errno}")?;
    if let (Some(t), Some(col)) = (text, column) {
        // Under the word at fault, if it is in what is shown.
        if let Some(before) = shown(t).0.get(..col) {
            w.write_str("  ")?;
            write_text(w, t)?;
            w.write_str("\n  ")?;
            // Tabs stay tabs, so the caret lines up in a terminal.
            for c in before.chars() {
                w.write_char(if c == '\t' { '\t' } else { ' ' })?;
            }
            writeln!(w, "^")?;
        }
    }
    Ok(())
}
