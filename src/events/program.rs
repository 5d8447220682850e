// SPDX-License-Identifier: GPL-2.0

//! A probe line's fetch arguments, compiled for the running kernel: the
//! pure compiler ([`super::fetch`]) run with this kernel's grammar when the
//! line is staged, its programs kept in a [`FetchProgram`] that the line's
//! probes share, and run by the record writer ([`super::record`]) from
//! `rust/events.c` whenever a probe writes a record (`bp_rust_fetch_*`,
//! over the probe's `pt_regs`). What `format` and a record's text show of
//! the arguments is handed to `rust/events.c` when the event is made
//! ([`FetchProgram::describe`]).
//!
//! A return probe's `$argN` are kept at entry, as the kernel's kretprobe
//! events keep them: the kretprobe gets an entry handler and entry data
//! ([`FetchProgram::keep_entry`]), and the record reads them from there.
//!
//! Where the kernel has `CONFIG_PROBE_EVENTS_BTF_ARGS`, a line on one
//! function is compiled with that function's BTF prototype
//! ([`super::prototype`]), as `kprobe_events` compiles it: parameter names
//! are arguments, `$argN` is read as the Nth parameter's name, `$retval`
//! gets the return type. A glob's line is compiled once for all its
//! members, without BTF (their prototypes differ): as on a kernel without
//! BTF arguments, `$argN` is `argN` and, like `$retval`, `x64` unless typed.
//!
//! Not yet, and refused with the reason: `@SYM` (a module cannot look up
//! a data symbol's address: `kallsyms_lookup_name` is not exported).

use core::ffi::c_void;
use core::fmt;

use kernel::alloc::AllocError;
use kernel::prelude::*;
use kernel::sync::Arc;

use super::fetch::{Compiler, Dialect, FetchError, Insn, NoBtf, ProbeArg, Prototype, Site};
use super::format::{self, Head};
use super::prototype::BtfPrototype;
use super::record::{self, Source, KSYM_SYMBOL_LEN};
use crate::bindings;
use crate::btf::{ModuleBtf, VmlinuxBtf};
use crate::command::{FetchArgs, ProbeKind, ProbeSpec, Target};
use crate::kcompat;

/// The running kernel's fetch-argument grammar.
fn dialect() -> Dialect {
    // SAFETY: Returns a constant.
    let thread_size = unsafe { bindings::bp_thread_size() } as u64;
    if kcompat::FETCHARGS_7_3 {
        Dialect::linux_7_3(thread_size, kcompat::PROBE_EVENTS_BTF_ARGS)
    } else {
        Dialect::linux_6_12(thread_size, kcompat::PROBE_EVENTS_BTF_ARGS)
    }
}

/// Whether a line's arguments are compiled with its function's BTF: the
/// kernel reads BTF for probe events ([`dialect`]'s `btf_args`).
pub(crate) fn reads_btf() -> bool {
    kcompat::PROBE_EVENTS_BTF_ARGS
}

/// The function a line probes, in the kernel's BTF (or its module's), for
/// its arguments' names and types.
pub(crate) struct FunctionBtf<'f> {
    /// The kernel's BTF ([`crate::btf`]), kept by the compiled program.
    pub(crate) vmlinux: Arc<VmlinuxBtf>,
    /// A module's function's: its module's BTF, split on `vmlinux`, kept
    /// by the compiled program too.
    pub(crate) module: Option<Arc<ModuleBtf>>,
    /// The function's name (a module's without its `MOD:`).
    pub(crate) function: &'f [u8],
}

/// Why a line's fetch arguments are refused: where the caret goes (bytes
/// from the start of the arguments' text), the reason, and the errno.
pub(crate) struct Refusal {
    /// The byte of the arguments' text the kernel's caret points at;
    /// `None`: the probe's address word (a `@SYM` the kernel cannot
    /// resolve is blamed there, at registration).
    pub(crate) at: Option<usize>,
    pub(crate) reason: &'static str,
    pub(crate) errno: i32,
}

/// A refusal of the compiler, or no memory.
pub(crate) enum CompileError {
    Refused(Refusal),
    NoMemory,
}

impl From<AllocError> for CompileError {
    fn from(_: AllocError) -> Self {
        CompileError::NoMemory
    }
}

/// The site that decides what `$argN` and `$retval` mean, as
/// `trace_kprobe_create()` finds it: a return probe, a probe at a
/// function's start (`+0`), or inside one. At an address the kernel
/// looks for no function (its `TPARG_FL_*` flags stay unset): neither
/// `$argN` nor `$retval` there, `r:` included.
/// A `d:` line's are an fprobe event's: at the function's entry, or, in
/// an exit set (`exit`), at its return.
fn site(kind: ProbeKind, target: &Target<'_>, exit: bool) -> Site {
    match (kind, target) {
        (_, Target::Address { .. }) => Site::Inside,
        (ProbeKind::Direct, _) if exit => Site::Return,
        (ProbeKind::Direct, _) => Site::Entry,
        (ProbeKind::Kretprobe { .. }, _) => Site::Return,
        (_, Target::Symbol { offset: 0, .. } | Target::Glob { offset: 0, .. }) => Site::Entry,
        _ => Site::Inside,
    }
}

/// The head of the records a line's probes write: a return probe's, a
/// direct exit set's return (`exit`), else an entry's.
pub(crate) fn head(kind: ProbeKind, exit: bool) -> Head {
    match kind {
        ProbeKind::Kretprobe { .. } => Head::Return,
        ProbeKind::Direct if exit => Head::Exit,
        _ => Head::Entry,
    }
}

/// One line's compiled fetch arguments, shared by the line's probes (a
/// glob's members all have them) and read by their handlers.
///
/// # Invariants
///
/// The `&str`s in `args` point into `text`'s buffer, or into `btf`'s or
/// `module_btf`'s (a parameter's name), which are never changed nor freed
/// before `self` is
/// (a `KVVec`'s buffer stays where it is when the vector moves, and `btf`
/// is only read); `args` is only lent out for `&self`'s life.
pub(crate) struct FetchProgram {
    args: KVVec<ProbeArg<'static>>,
    /// The function arguments (0-based) a return probe keeps at entry,
    /// one word each, in order.
    entry: KVVec<u32>,
    /// Never read: only kept, for `args` to point into.
    _text: KVVec<u8>,
    /// Never read: only kept, for `args` to point into.
    _btf: Option<Arc<VmlinuxBtf>>,
    /// Never read: only kept, for `args` to point into (a module's
    /// function's parameter names).
    _module_btf: Option<Arc<ModuleBtf>>,
    head: Head,
    fixed: u32,
    /// An argument is a string (its record's size depends on the hit).
    strings: bool,
    /// A direct exit set's return records: what the probe kept at entry
    /// is not `entry`'s words but the six argument registers, rdi ... r9,
    /// as the exit trampoline that keeps them keeps them.
    saved_regs: bool,
}

/// The argument registers the exit trampoline keeps (rdi ... r9).
const SAVED_REGS: usize = 6;

impl FetchProgram {
    /// Compiles the fetch arguments of the probe line `spec`, with `btf`,
    /// the probed function's BTF (`None`: a glob's or an address's line,
    /// or a kernel that reads no BTF for probe events); `None` for a line
    /// without any. `exit`: a `d:` line's for an exit set's return records
    /// (else its entry records); other lines ignore it.
    pub(crate) fn compile(
        spec: &ProbeSpec<'_>,
        btf: Option<FunctionBtf<'_>>,
        symbols: &mut dyn FnMut(&str) -> Option<u64>,
        exit: bool,
    ) -> Result<Option<Arc<Self>>, CompileError> {
        let (args, kind) = (&spec.args, spec.kind);
        if args.is_empty() {
            return Ok(None);
        }
        let mut text = KVVec::new();
        text.extend_from_slice(args.text().as_bytes(), GFP_KERNEL)?;
        // SAFETY: `text` holds a copy of a `&str`; its buffer outlives the
        // borrow taken here, which ends up in `Self::args` (see the type
        // invariants) and nowhere else.
        let copy: &'static str = unsafe {
            &*core::ptr::from_ref::<str>(core::str::from_utf8_unchecked(text.as_slice()))
        };
        let head = head(kind, exit);
        let vmlinux = btf.as_ref().map(|b| b.vmlinux.clone());
        let function = btf.as_ref().map_or(&[][..], |b| b.function);
        let blob: Option<&'static VmlinuxBtf> = vmlinux.as_deref().map(|v| {
            // SAFETY: `vmlinux`'s buffer is never written nor freed while
            // the `Arc` lives, which ends up in `Self::_btf` (see the type
            // invariants); the names borrowed here end up in `Self::args`
            // only.
            unsafe { &*core::ptr::from_ref::<VmlinuxBtf>(v) }
        });
        let module = btf.as_ref().and_then(|b| b.module.clone());
        let module_blob: Option<&'static ModuleBtf> = module.as_deref().map(|m| {
            // SAFETY: As `vmlinux` above: the `Arc` ends up in
            // `Self::_module_btf`, and the module's BTF reads `vmlinux`'s,
            // which it holds.
            unsafe { &*core::ptr::from_ref::<ModuleBtf>(m) }
        });
        let proto = Proto::of(module_blob, blob, function);
        let (compiled, fixed, entry) = compile_words(
            args.with_text(copy),
            (site(kind, &spec.target, exit), kind == ProbeKind::Direct),
            copy,
            proto.get(),
            symbols,
        )?;
        let strings = compiled.iter().any(|a| a.ty.string);
        // INVARIANT: `compiled` borrows `text`, `vmlinux` and `module` only.
        Ok(Some(Arc::new(
            Self {
                args: compiled,
                entry,
                _text: text,
                _btf: vmlinux,
                _module_btf: module,
                head,
                fixed,
                strings,
                saved_regs: head == Head::Exit,
            },
            GFP_KERNEL,
        )?))
    }

    /// The compiled arguments.
    pub(crate) fn args(&self) -> &[ProbeArg<'_>] {
        &self.args
    }

    /// Whether one of the arguments' fields is named `name`.
    pub(crate) fn has_field(&self, name: &str) -> bool {
        self.args.iter().any(|a| a.name.is(name))
    }

    /// Whether only int3 kprobes and kretprobes can serve the line: an
    /// argument reads a register other than through `$argN`, `$stack` or
    /// `$retval` (`%REG`: an fprobe's registers on 7.3 are the argument
    /// registers, the stack pointer and the return value only, and fprobe
    /// events refuse it), or a return probe keeps entry data (a return
    /// fprobe is one per set, its entry data one size for all).
    pub(crate) fn needs_int3(&self) -> bool {
        !self.entry.is_empty() || self.args.iter().any(|a| a.needs_regs)
    }

    /// Bytes a return probe keeps at entry (`$argN`: a word each).
    pub(crate) fn entry_data_size(&self) -> usize {
        self.entry.len() * 8
    }

    /// For a direct exit set's return records: how many of the argument
    /// registers the exit trampoline must keep for them (rdi first: the
    /// highest `$argN` read, at most six; a higher one reads no register
    /// and fails, as it always has there).
    pub(crate) fn saved_regs_read(&self) -> usize {
        if !self.saved_regs {
            return 0;
        }
        self.entry
            .iter()
            .map(|&n| n as usize + 1)
            .max()
            .unwrap_or(0)
            .min(SAVED_REGS)
    }

    /// `store_trace_entry_data`: the function arguments the return's
    /// arguments read, from the entry's `regs`, into `data`.
    ///
    /// # Safety
    ///
    /// `regs` is the entry handler's live registers, `data` writable for
    /// [`Self::entry_data_size`] bytes.
    pub(crate) unsafe fn keep_entry(&self, regs: *mut bindings::pt_regs, data: *mut u8) {
        for (i, &n) in self.entry.iter().enumerate() {
            // SAFETY: By the caller.
            let v = unsafe { kernel_argument(regs, n) };
            // SAFETY: Word `i` is within `data` (the caller's size).
            unsafe { data.add(8 * i).cast::<u64>().write_unaligned(v) };
        }
    }

    /// What the programs read, for one hit.
    fn source(&self, regs: *mut bindings::pt_regs, edata: *const c_void) -> Regs<'_> {
        Regs {
            regs,
            edata: edata.cast(),
            edata_len: if self.saved_regs {
                // The trampoline kept at least these (the set's highest).
                self.saved_regs_read() * 8
            } else {
                self.entry_data_size()
            },
            saved: self.saved_regs.then_some(&self.entry[..]),
        }
    }

    /// The bytes of strings a record needs for this hit (`__get_data_size`),
    /// measured before it is reserved; 0 without string arguments.
    ///
    /// # Safety
    ///
    /// `regs` is the firing handler's live registers, or null; `edata` null
    /// or what the probe kept at entry ([`Self::keep_entry`]).
    #[inline(always)]
    pub(crate) unsafe fn data_size(
        &self,
        regs: *mut bindings::pt_regs,
        edata: *const c_void,
    ) -> usize {
        if !self.strings {
            return 0;
        }
        record::dynamic_size(self.args(), &self.source(regs, edata))
    }

    /// Bytes of the arguments' fixed fields.
    pub(crate) fn fixed(&self) -> u32 {
        self.fixed
    }

    /// The same fields as `other`: names, types, counts (probes of one
    /// event must have them, as `kprobe_events` requires of the probes it
    /// appends to an event; each probe runs its own programs into them).
    pub(crate) fn same_as(&self, other: &Self) -> bool {
        self.head == other.head
            && self.args.len() == other.args.len()
            && self
                .args
                .iter()
                .zip(other.args.iter())
                .all(|(a, b)| a.name == b.name && a.ty == b.ty && a.count == b.count)
    }

    /// What `rust/events.c` shows of the arguments: each one's field (its
    /// offset after the probe's own fields, `head` bytes) and the event's
    /// `print fmt`, as C strings valid during `f`.
    pub(crate) fn describe<R>(
        &self,
        head: u32,
        f: impl FnOnce(&[bindings::bp_event_arg], &[u8]) -> R,
    ) -> Result<R, AllocError> {
        // Every C string, then where each starts.
        let mut strings = CBuf(KVVec::new());
        let mut starts = KVVec::with_capacity(2 * self.args.len(), GFP_KERNEL)?;
        for a in self.args() {
            starts.push(strings.0.len(), GFP_KERNEL)?;
            strings.text(format_args!("{}", a.name))?;
            starts.push(strings.0.len(), GFP_KERNEL)?;
            strings.with(|w| format::field_type(a, w))?;
        }
        let print_at = strings.0.len();
        strings.with(|w| format::print_fmt(self.head, self.args(), w))?;
        let base = strings.0.as_ptr();
        let at = |i: usize| {
            // SAFETY: Every start is within `strings`, which is not changed
            // from here on.
            unsafe { base.add(starts.get(i).copied().unwrap_or(0)) }.cast()
        };
        let mut descs = KVVec::with_capacity(self.args.len(), GFP_KERNEL)?;
        for (i, a) in self.args().iter().enumerate() {
            descs.push(
                bindings::bp_event_arg {
                    name: at(2 * i),
                    type_: at(2 * i + 1),
                    offset: head + a.offset,
                    elem: u32::from(a.ty.size),
                    count: a.count,
                    is_signed: a.ty.signed,
                    print: print_kind(a) as u8,
                },
                GFP_KERNEL,
            )?;
        }
        Ok(f(&descs, strings.0.get(print_at..).unwrap_or(&[])))
    }
}

/// Compiles the argument words of `args` (slices of `text`) at `site`, as
/// `trace_kprobe_create()` does (`trace_fprobe_create()` where `fprobe`): the checks of the whole line first, then
/// each argument in order, its `@SYM`s given their addresses by `symbols`
/// (as `traceprobe_update_arg()` gives them when the probe is registered).
/// The arguments and their fixed fields' bytes.
fn compile_words<'a>(
    args: FetchArgs<'a>,
    (site, fprobe): (Site, bool),
    text: &'a str,
    proto: &dyn Prototype<'a>,
    symbols: &mut dyn FnMut(&str) -> Option<u64>,
) -> Result<(KVVec<ProbeArg<'a>>, u32, KVVec<u32>), CompileError> {
    let word_at = |w: &str| (w.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let d = dialect();
    let refuse = |w: &str, e: FetchError| {
        CompileError::Refused(Refusal {
            at: Some(word_at(w) + e.pos),
            reason: d.error_text(e.kind),
            errno: e.kind.errno(),
        })
    };
    let mut c = Compiler::new(d, site, proto);
    if fprobe {
        c = c.fprobe();
    }
    let words = args.words();
    if let Err((i, e)) = c.check_words(words.clone()) {
        let w = words.clone().nth(i).unwrap_or(text);
        return Err(refuse(w, e));
    }
    let mut done = KVVec::new();
    for w in words {
        let a = c.compile(w, &done).map_err(|e| refuse(w, e))?;
        done.push(a, GFP_KERNEL)?;
    }
    // Every argument parsed, the kernel resolves their `@SYM`s when it
    // registers the probe, and blames the probe's address word.
    for a in done.iter_mut() {
        record::resolve_symbols(a, &mut *symbols).map_err(|(kind, _)| {
            CompileError::Refused(Refusal {
                at: None,
                reason: d.error_text(kind),
                errno: kind.errno(),
            })
        })?;
    }
    let mut entry = KVVec::new();
    entry.extend_from_slice(c.entry_args(), GFP_KERNEL)?;
    Ok((done, c.record_size(), entry))
}

/// The prototype a line is compiled with.
enum Proto<'b> {
    Btf(BtfPrototype<'b>),
    None(NoBtf),
}

impl<'b> Proto<'b> {
    /// `function`'s prototype in `module`'s BTF if there is one, else in
    /// `vmlinux`'s (neither: compiled as without BTF).
    fn of(module: Option<&'b ModuleBtf>, vmlinux: Option<&'b VmlinuxBtf>, function: &[u8]) -> Self {
        let found = match (module, vmlinux) {
            (Some(m), _) => m.btf().map(|b| (b, m.offsets(), m.funcs())),
            (None, Some(v)) => v.btf().map(|b| (b, v.offsets(), v.funcs())),
            (None, None) => None,
        };
        match found {
            Some((btf, offsets, funcs)) => {
                Proto::Btf(BtfPrototype::new(btf, offsets, funcs, function))
            }
            None => Proto::None(NoBtf),
        }
    }

    fn get(&self) -> &dyn Prototype<'b> {
        match self {
            Proto::Btf(p) => p,
            Proto::None(n) => n,
        }
    }
}

/// How `rust/events.c` prints an argument's value (`enum bp_print`).
fn print_kind(a: &ProbeArg<'_>) -> bindings::bp_print {
    match a.ty.name {
        _ if a.ty.string => bindings::bp_print_BP_PRINT_STRING,
        "symbol" => bindings::bp_print_BP_PRINT_SYMBOL,
        "char" => bindings::bp_print_BP_PRINT_CHAR,
        n if n.starts_with('x') => bindings::bp_print_BP_PRINT_X,
        _ if a.ty.signed => bindings::bp_print_BP_PRINT_S,
        _ => bindings::bp_print_BP_PRINT_U,
    }
}

/// C strings, written with `fmt`, one after another.
struct CBuf(KVVec<u8>);

/// Writes into a [`CBuf`], noting a failed allocation.
struct CWriter<'a>(&'a mut KVVec<u8>, bool);

impl fmt::Write for CWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.0.extend_from_slice(s.as_bytes(), GFP_KERNEL).is_err() {
            self.1 = true;
            return Err(fmt::Error);
        }
        Ok(())
    }
}

impl CBuf {
    /// Appends what `f` writes, and a NUL.
    fn with(&mut self, f: impl FnOnce(&mut CWriter<'_>) -> fmt::Result) -> Result<(), AllocError> {
        let mut w = CWriter(&mut self.0, false);
        let _ = f(&mut w);
        if w.1 {
            return Err(AllocError);
        }
        self.0.push(0, GFP_KERNEL)
    }

    /// Appends `args` and a NUL.
    fn text(&mut self, args: fmt::Arguments<'_>) -> Result<(), AllocError> {
        self.with(|w| fmt::Write::write_fmt(w, args))
    }
}

/// What a probe's programs read: its registers (null where the handler has
/// none: then every load fails, and the fields stay zero), what a return
/// probe kept at entry (`edata`, [`FetchProgram::entry_data_size`] bytes,
/// or null), the current task, and memory through the nofault copies.
struct Regs<'p> {
    regs: *mut bindings::pt_regs,
    edata: *const u8,
    edata_len: usize,
    /// `edata` is the saved argument registers (a direct exit set's): the
    /// function argument each entry-data word stands for (one past the
    /// registers, a stack argument, reads as a fault: the exit trampoline
    /// serves no function with stack arguments).
    saved: Option<&'p [u32]>,
}

/// `regs_get_kernel_argument(regs, n)` on x86-64: the six argument
/// registers read here (no C call per argument), the rest (the stack) in C.
///
/// # Safety
///
/// `regs` is a live handler's registers.
#[inline(always)]
unsafe fn kernel_argument(regs: *mut bindings::pt_regs, n: u32) -> u64 {
    // SAFETY: By the caller.
    let r = unsafe { &*regs };
    (match n {
        0 => r.di,
        1 => r.si,
        2 => r.dx,
        3 => r.cx,
        4 => r.r8,
        5 => r.r9,
        // SAFETY: By the caller.
        _ => unsafe { bindings::bp_fetch_arg(regs, n) },
    }) as u64
}

impl Source for Regs<'_> {
    #[inline(always)]
    fn load(&self, insn: Insn<'_>) -> Option<u64> {
        if let Insn::EntryData(off) = insn {
            let mut off = off as usize;
            if let Some(map) = self.saved {
                off = *map.get(off / 8)? as usize * 8;
            }
            if self.edata.is_null() || off + 8 > self.edata_len {
                return None;
            }
            // SAFETY: A word within the entry data (checked above).
            return Some(unsafe { self.edata.add(off).cast::<u64>().read_unaligned() });
        }
        if self.regs.is_null() {
            return None;
        }
        // SAFETY: `self.regs` is the live registers of the handler that is
        // writing the record (`bp_rust_fetch_*`'s contract).
        let regs = unsafe { &*self.regs };
        Some(match insn {
            Insn::Reg(off) => {
                let off = usize::from(off);
                if off + 8 > core::mem::size_of::<bindings::pt_regs>() {
                    return None;
                }
                // SAFETY: A word within `*regs` (checked above), read
                // unaligned as the compiler's offsets are `pt_regs`' own.
                unsafe {
                    (self.regs as *const u8)
                        .add(off)
                        .cast::<u64>()
                        .read_unaligned()
                }
            }
            // SAFETY: Plain reads of the live registers (see above).
            Insn::Stack(n) => (unsafe { bindings::bp_fetch_stack_nth(self.regs, n) }) as u64,
            Insn::StackP => regs.sp as u64,
            Insn::Retval => regs.ax as u64,
            // SAFETY: As `Stack`.
            Insn::Arg(n) => unsafe { kernel_argument(self.regs, n) },
            // SAFETY: Reads `current`.
            Insn::Comm => (unsafe { bindings::bp_fetch_comm() }) as u64,
            // SAFETY: Reads `current`.
            Insn::Current => (unsafe { bindings::bp_fetch_current() }) as u64,
            _ => return None,
        })
    }

    #[inline(always)]
    fn read(&self, addr: u64, dst: &mut [u8], user: bool) -> bool {
        // SAFETY: `dst` is writable for its length; the copy never faults.
        unsafe {
            bindings::bp_fetch_read(dst.as_mut_ptr().cast(), addr as usize, dst.len(), user) == 0
        }
    }

    #[inline(always)]
    fn strlen(&self, addr: u64, max: usize, user: bool) -> Option<usize> {
        // SAFETY: Reads nothing it may not: the loops never fault.
        let n = unsafe { bindings::bp_fetch_strlen(addr as usize, max as isize, user) };
        usize::try_from(n).ok().filter(|&n| n > 0)
    }

    #[inline(always)]
    fn strncpy(&self, addr: u64, user: bool, dst: &mut [u8]) -> Option<usize> {
        // SAFETY: `dst` is writable for its length, the most the copy
        // writes; the copy never faults.
        let n = unsafe {
            bindings::bp_fetch_strncpy(
                dst.as_mut_ptr().cast(),
                addr as usize,
                dst.len() as isize,
                user,
            )
        };
        usize::try_from(n).ok()
    }

    #[inline(always)]
    fn cpu_ptr(&self, addr: u64) -> u64 {
        // SAFETY: Only computes an address.
        unsafe { bindings::bp_fetch_cpu_ptr(addr as usize) as u64 }
    }

    #[inline(always)]
    fn symbol(&self, addr: u64, dst: &mut [u8]) -> usize {
        let mut buf = [0u8; KSYM_SYMBOL_LEN];
        // SAFETY: `buf` has the `KSYM_SYMBOL_LEN` bytes `sprint_symbol`
        // may write.
        let n = unsafe { bindings::sprint_symbol(buf.as_mut_ptr().cast(), addr as usize) };
        let Some(last) = dst.len().checked_sub(1) else {
            return 0;
        };
        let n = usize::try_from(n).unwrap_or(0).min(last);
        dst[..n].copy_from_slice(&buf[..n]);
        dst[n] = 0;
        n
    }

    #[inline(always)]
    fn symbol_len(&self, addr: u64) -> usize {
        let mut buf = [0u8; KSYM_SYMBOL_LEN];
        // SAFETY: `buf` has the `KSYM_SYMBOL_LEN` bytes `sprint_symbol`
        // may write.
        let n = unsafe { bindings::sprint_symbol(buf.as_mut_ptr().cast(), addr as usize) };
        usize::try_from(n).unwrap_or(0).min(KSYM_SYMBOL_LEN - 1)
    }
}

/// Fills the arguments of a record of `fetch`'s event: `rec`, `len` bytes,
/// of which the probe's own fields are the first `head`, and `tail` more
/// follow the arguments' fixed fields, before their strings (a direct
/// exit record's duration).
///
/// # Safety
///
/// `fetch` is a live [`FetchProgram`]; `regs` the firing handler's live
/// registers, or null; `edata` null or what the probe kept at entry
/// ([`FetchProgram::keep_entry`]); `rec` is writable for `len` bytes.
#[no_mangle]
unsafe extern "C" fn bp_rust_fetch_store(
    fetch: *const c_void,
    regs: *mut bindings::pt_regs,
    edata: *const c_void,
    rec: *mut c_void,
    head: u32,
    tail: u32,
    len: u32,
) {
    // SAFETY: By the function's contract.
    let p = unsafe { &*fetch.cast::<FetchProgram>() };
    // SAFETY: By the function's contract.
    let rec = unsafe { core::slice::from_raw_parts_mut(rec.cast::<u8>(), len as usize) };
    record::store(
        p.args(),
        &p.source(regs, edata),
        rec,
        head as usize,
        p.fixed() as usize + tail as usize,
    );
}
