// SPDX-License-Identifier: GPL-2.0

//! The record writer's pure half: runs the programs [`super::fetch`]
//! compiles, as the kernel runs them (`kernel/trace/trace_probe_tmpl.h`:
//! `process_fetch_insn_bottom`, `__get_data_size`, `store_trace_args`), into
//! a record laid out as a `kprobe_events` record is: the probe's head, the
//! fixed fields at their offsets, then the strings, each found through its
//! `__data_loc` word (`length << 16 | offset from the record's start`).
//!
//! What a program reads (registers, the stack, memory, the current task,
//! symbol names) comes through [`Source`]: the module implements it with
//! `pt_regs`/`ftrace_regs` and `nofault` copies, the host tests with an
//! array of bytes. Nothing here allocates, sleeps or panics: it runs in
//! probe handlers.
//!
//! Where the kernel leaves a field as the ring buffer had it (a read that
//! faulted), this writes zeroes. Everything else is the kernel's, quirks
//! included: a `symstr`'s `__data_loc` keeps the room left as its length,
//! and the next string starts on its terminating NUL.

use super::fetch::{split_symbol_offset, ErrorKind, Fused, Insn, ProbeArg};

/// The longest string a record takes (`MAX_STRING_SIZE`, `PATH_MAX`),
/// terminating NUL included.
pub const MAX_STRING_SIZE: usize = 4096;
/// The room `sprint_symbol` may write (`KSYM_SYMBOL_LEN`).
pub const KSYM_SYMBOL_LEN: usize = 512;

/// What a probe's programs read.
pub trait Source {
    /// The value a load gives ([`Insn::Reg`], [`Insn::Stack`],
    /// [`Insn::StackP`], [`Insn::Retval`], [`Insn::Arg`],
    /// [`Insn::EntryData`], [`Insn::Comm`]'s address, [`Insn::Current`]);
    /// `None` for one this probe cannot give.
    fn load(&self, insn: Insn<'_>) -> Option<u64>;
    /// Copies memory at `addr` (user memory if `user`) into `dst`: `false`
    /// if any of it could not be read.
    fn read(&self, addr: u64, dst: &mut [u8], user: bool) -> bool;
    /// `this_cpu_ptr(addr)`.
    fn cpu_ptr(&self, addr: u64) -> u64;
    /// `sprint_symbol(dst, addr)`: writes `SYMBOL+OFF/SIZE [MODULE]` and a
    /// NUL into `dst` (at most its length), and returns the bytes before
    /// the NUL.
    fn symbol(&self, addr: u64, dst: &mut [u8]) -> usize;
    /// What [`Source::symbol`] returns with `KSYM_SYMBOL_LEN` bytes of
    /// room (the size pass, `fetch_store_symstrlen`). A source whose
    /// `symbol` copies through a buffer of its own overrides it with one
    /// buffer, as the kernel uses one: two of 512 bytes at once are too
    /// much of a handler's stack.
    fn symbol_len(&self, addr: u64) -> usize {
        self.symbol(addr, &mut [0u8; KSYM_SYMBOL_LEN])
    }

    /// `fetch_store_strlen`: the length of the string at `addr` (user
    /// memory if `user`), its NUL included, at most `max` (a user string
    /// longer than that may be said longer, as `strnlen_user()` says it:
    /// the store then takes what the kernel's takes); `None` if it faults.
    /// By default [`Source::read`] byte by byte; a source may read it in
    /// one go.
    #[inline(always)]
    fn strlen(&self, addr: u64, max: usize, user: bool) -> Option<usize> {
        let mut c = [0u8];
        for len in 1..=max {
            if !self.read(addr.wrapping_add(len as u64 - 1), &mut c, user) {
                return None;
            }
            if c[0] == 0 {
                return Some(len);
            }
        }
        Some(max)
    }

    /// `strncpy_from_kernel_nofault(dst, addr, dst.len())` (or from user
    /// memory): the bytes copied, the NUL included (a longer string is cut,
    /// its last byte made NUL); `None` if it faults. By default
    /// [`Source::read`] byte by byte; a source may copy it in one go, with
    /// the same answer.
    #[inline(always)]
    fn strncpy(&self, addr: u64, user: bool, dst: &mut [u8]) -> Option<usize> {
        let max = dst.len();
        for i in 0..max {
            if !self.read(addr.wrapping_add(i as u64), &mut dst[i..=i], user) {
                dst[i] = 0;
                return None;
            }
            if dst[i] == 0 {
                return Some(i + 1);
            }
        }
        if let Some(last) = dst.last_mut() {
            *last = 0;
        }
        Some(max)
    }
}

/// `make_data_loc`.
#[inline(always)]
fn data_loc(len: usize, offset: usize) -> u32 {
    ((len as u32) << 16) | (offset as u32 & 0xffff)
}

/// `get_loc_len` and `get_loc_offs`: a `__data_loc` word's length and offset.
#[inline(always)]
fn loc_parts(loc: u32) -> (usize, usize) {
    ((loc >> 16) as usize, (loc & 0xffff) as usize)
}

/// A string store's source: memory, or the program's own literal.
#[derive(Clone, Copy)]
enum Str<'a> {
    At(u64, bool),
    Literal(&'a str),
}

/// The length of the string at `s`, its NUL included, at most
/// [`MAX_STRING_SIZE`] but as [`Source::strlen`] says (`fetch_store_strlen`);
/// `None` if it faults.
#[inline(always)]
fn strlen(src: &impl Source, s: Str<'_>) -> Option<usize> {
    match s {
        Str::Literal(t) => Some((t.len() + 1).min(MAX_STRING_SIZE)),
        Str::At(addr, user) => src.strlen(addr, MAX_STRING_SIZE, user),
    }
}

/// `strncpy_from_kernel_nofault(dst, s, dst.len())`: the bytes copied, the
/// NUL included (a longer string is cut, its last byte made NUL); `None` if
/// it faults.
#[inline(always)]
fn strncpy(src: &impl Source, s: Str<'_>, dst: &mut [u8]) -> Option<usize> {
    let max = dst.len();
    if max == 0 {
        return Some(0);
    }
    match s {
        Str::Literal(t) => {
            let n = t.len().min(max - 1);
            dst[..n].copy_from_slice(&t.as_bytes()[..n]);
            dst[n] = 0;
            Some(n + 1)
        }
        Str::At(addr, user) => src.strncpy(addr, user, dst),
    }
}

/// Where a store writes: the record, and the slot of this field (or array
/// element) in it.
struct Dest<'r> {
    record: &'r mut [u8],
    at: usize,
}

impl Dest<'_> {
    /// Stores the low `size` bytes of `v` (`*(uN *)dest = val`); a size
    /// past the record's end stores nothing. The usual sizes are one
    /// unaligned store each, not a call into `memcpy`.
    #[inline(always)]
    fn put(&mut self, v: u64, size: usize) {
        let Some(d) = self.record.get_mut(self.at..self.at + size) else {
            return;
        };
        let p = d.as_mut_ptr();
        // SAFETY: `d` is `size` bytes of the record, writable through
        // `&mut self`; each arm writes at most `size` bytes there.
        unsafe {
            match size {
                1 => p.write(v as u8),
                2 => p.cast::<u16>().write_unaligned(v as u16),
                4 => p.cast::<u32>().write_unaligned(v as u32),
                8 => p.cast::<u64>().write_unaligned(v),
                _ => core::ptr::copy_nonoverlapping(v.to_ne_bytes().as_ptr(), p, size.min(8)),
            }
        }
    }

    #[inline(always)]
    fn loc(&self) -> u32 {
        self.record
            .get(self.at..self.at + 4)
            .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline(always)]
    fn set_loc(&mut self, loc: u32) {
        self.put(u64::from(loc), 4);
    }

    /// The room this slot's `__data_loc` word names for a string: its
    /// length and offset; `None` when none is left (the kernel's `-ENOMEM`).
    #[inline(always)]
    fn named_room(&self) -> Option<(usize, usize)> {
        let (max, offset) = loc_parts(self.loc());
        (max != 0).then_some((max, offset))
    }
}

/// Where a program goes after a store (`process_fetch_insn_bottom`'s jumps).
enum Next {
    /// The next element of an array of values: store again.
    Store,
    /// The next element of an array of strings: dereference again.
    Deref,
    /// The end: the bytes of string data taken or needed.
    Done(Option<usize>),
}

/// One run of a program: where it is, and the values it carries between
/// stages (`val`, and `lval`, the value before the last dereference).
struct Walk<'c, 'a> {
    code: &'c [Insn<'a>],
    pc: usize,
    val: u64,
    lval: u64,
    /// A `\"...` literal: the string a store takes instead of memory.
    literal: Option<&'a str>,
    /// The store (`s3`), where an array's loop comes back to.
    store: usize,
    total: usize,
    done: u32,
    /// The last string's `__data_loc` word, before its store.
    loc: u32,
}

impl<'c, 'a> Walk<'c, 'a> {
    /// Stage 1: the load (past a `@SYM`'s placeholder: its address is in
    /// the `Imm` after it).
    #[inline(always)]
    fn load(code: &'c [Insn<'a>], src: &impl Source) -> Option<Self> {
        let pc = usize::from(matches!(code.first(), Some(Insn::Symbol(_))));
        let mut literal = None;
        let val = match *code.get(pc)? {
            Insn::Imm(v) => v,
            Insn::ImmStr(s) => {
                literal = Some(s);
                0
            }
            insn => src.load(insn)?,
        };
        Some(Walk {
            code,
            pc: pc + 1,
            val,
            lval: val,
            literal,
            store: 0,
            total: 0,
            done: 0,
            loc: 0,
        })
    }

    /// Stage 2: dereferences (and 7.3's per-CPU address); `None` if a read
    /// faults.
    #[inline(always)]
    fn derefs(&mut self, src: &impl Source) -> Option<()> {
        let mut llval = self.lval;
        loop {
            let before = self.val;
            match *self.code.get(self.pc)? {
                Insn::Deref(o) | Insn::UDeref(o) => {
                    let user = matches!(self.code[self.pc], Insn::UDeref(_));
                    let mut word = [0u8; 8];
                    if !src.read(self.val.wrapping_add(o as u64), &mut word, user) {
                        return None;
                    }
                    self.val = u64::from_ne_bytes(word);
                }
                Insn::CpuPtr => self.val = src.cpu_ptr(self.val),
                _ => {
                    self.lval = llval;
                    self.store = self.pc;
                    return Some(());
                }
            }
            self.lval = before;
            llval = before;
            self.pc += 1;
        }
    }

    #[inline(always)]
    fn string(&self, offset: i64, user: bool) -> Str<'a> {
        match self.literal {
            Some(t) => Str::Literal(t),
            None => Str::At(self.val.wrapping_add(offset as u64), user),
        }
    }

    /// Stages 3 and 4: the store (on the size pass, a string's length), and
    /// a bitfield. `Err`: an instruction that cannot be there.
    #[inline(always)]
    fn store(
        &mut self,
        src: &impl Source,
        dest: Option<&mut Dest<'_>>,
    ) -> Result<Option<usize>, ()> {
        let st = *self.code.get(self.pc).ok_or(())?;
        self.pc += 1;
        let Some(d) = dest else {
            return match st {
                Insn::StString(o) => Ok(strlen(src, self.string(o, false))),
                Insn::StUString(o) => Ok(strlen(src, self.string(o, true))),
                Insn::StSymstr => Ok(Some(src.symbol_len(self.val) + 1)),
                _ => Err(()),
            };
        };
        let mut ret = Some(0);
        match st {
            Insn::StRaw(size) => d.put(self.val, usize::from(size)),
            Insn::StMem(size, o) | Insn::StUMem(size, o) => store_mem(
                d,
                src,
                self.val.wrapping_add(o as u64),
                size,
                matches!(st, Insn::StUMem(..)),
            ),
            Insn::StString(o) | Insn::StUString(o) => {
                self.loc = d.loc();
                ret = store_string(d, src, self.string(o, matches!(st, Insn::StUString(_))));
            }
            Insn::StSymstr => {
                self.loc = d.loc();
                ret = store_symbol(d, src, self.val);
            }
            _ => return Err(()),
        }
        if let Some(Insn::ModBitfield {
            basesize,
            lshift,
            rshift,
        }) = self.code.get(self.pc)
        {
            bitfield(d, *basesize, *lshift, *rshift);
            self.pc += 1;
        }
        Ok(ret)
    }

    /// Stage 5: the next element of an array, or the end.
    #[inline(always)]
    fn array(&mut self, ret: Option<usize>, dest: Option<&mut Dest<'_>>) -> Next {
        let Some(&Insn::LoopArray(n)) = self.code.get(self.pc) else {
            return Next::Done(ret);
        };
        self.total += ret.unwrap_or(0);
        self.done += 1;
        if self.done >= n {
            self.pc += 1;
            return Next::Done(Some(self.total));
        }
        self.pc = self.store;
        if let Insn::StRaw(s) | Insn::StMem(s, _) | Insn::StUMem(s, _) = self.code[self.store] {
            if let Some(d) = dest {
                d.at += usize::from(s);
            }
            self.val = self.val.wrapping_add(u64::from(s));
            return Next::Store;
        }
        // An array of strings: the next pointer, dereferenced again.
        self.pc = self.store - 1;
        self.val = self.lval.wrapping_add(8);
        if let Some(d) = dest {
            d.at += 4;
            let used = ret.unwrap_or(0);
            let (len, offset) = loc_parts(self.loc);
            d.set_loc(data_loc(len.saturating_sub(used), offset + used));
        }
        Next::Deref
    }
}

/// Runs one argument's program (`process_fetch_insn`): with `dest`, stores
/// it and returns the bytes of string data it took; without, returns the
/// bytes of string data it needs. `None`: a read faulted.
#[inline(always)]
fn run(code: &[Insn<'_>], src: &impl Source, mut dest: Option<Dest<'_>>) -> Option<usize> {
    let mut w = Walk::load(code, src)?;
    loop {
        w.derefs(src)?;
        loop {
            let ret = w.store(src, dest.as_mut()).ok()?;
            match w.array(ret, dest.as_mut()) {
                Next::Store => continue,
                Next::Deref => break,
                // (`matches!`: `==` on an `Insn` is a call, not inlined.)
                Next::Done(ret) => {
                    return ret.filter(|_| matches!(code.get(w.pc), Some(Insn::End)))
                }
            }
        }
    }
}

/// A load's value: an immediate's own, else what `src` gives (a function,
/// not a closure: closures are calls here, not inlined).
#[inline(always)]
fn load(src: &impl Source, insn: Insn<'_>) -> Option<u64> {
    match insn {
        Insn::Imm(v) => Some(v),
        insn => src.load(insn),
    }
}

/// Runs a program that has a fused form ([`Fused`]): what [`run`] does
/// with it, without the walk. `None`: the load failed (a read that
/// faults stores zeroes, as the walk's `StMem` does).
#[inline(always)]
fn run_fused(fused: Fused<'_>, src: &impl Source, mut d: Dest<'_>) -> Option<usize> {
    match fused {
        Fused::Value(insn, size) => d.put(load(src, insn)?, usize::from(size)),
        Fused::Mem(insn, size, off, user) => store_mem(
            &mut d,
            src,
            load(src, insn)?.wrapping_add(off as u64),
            size,
            user,
        ),
        Fused::No => return None,
    }
    Some(0)
}

/// `FETCH_OP_ST_MEM`: `size` bytes (at most 8) read at `addr` (user memory
/// if `user`) into the slot; zeroes where the read faults.
#[inline(always)]
fn store_mem(d: &mut Dest<'_>, src: &impl Source, addr: u64, size: u8, user: bool) {
    let size = usize::from(size).min(8);
    let mut buf = [0u8; 8];
    if !src.read(addr, &mut buf[..size], user) {
        buf = [0; 8];
    }
    d.put(u64::from_ne_bytes(buf), size);
}

/// `fetch_store_string`: the string into the room its `__data_loc` word
/// names, the word then set to what it took (0: it faulted).
#[inline(always)]
fn store_string(d: &mut Dest<'_>, src: &impl Source, s: Str<'_>) -> Option<usize> {
    let (max, offset) = d.named_room()?;
    let room = d.record.get_mut(offset..)?;
    let room_len = room.len().min(max);
    let copied = strncpy(src, s, &mut room[..room_len]);
    d.set_loc(data_loc(copied.unwrap_or(0), offset));
    copied
}

/// `fetch_store_symstring`: the symbol's name into the room its
/// `__data_loc` word names, the word left as it was (the kernel's way).
#[inline(always)]
fn store_symbol(d: &mut Dest<'_>, src: &impl Source, addr: u64) -> Option<usize> {
    let (_, offset) = d.named_room()?;
    let room = d.record.get_mut(offset..)?;
    let room_len = room.len().min(KSYM_SYMBOL_LEN);
    Some(src.symbol(addr, &mut room[..room_len]))
}

/// `fetch_apply_bitfield`: the stored value shifted left then right within
/// its `basesize` bytes. A shift of the whole width or more (the kernel's
/// wrapping arithmetic allows one) leaves 0, never a panic.
#[inline(always)]
fn bitfield(d: &mut Dest<'_>, basesize: u8, lshift: u8, rshift: u8) {
    let n = usize::from(basesize);
    let Some(b) = d.record.get(d.at..d.at + n) else {
        return;
    };
    let mut word = [0u8; 8];
    word[..n].copy_from_slice(b);
    let mask = u64::MAX >> (64 - 8 * n.clamp(1, 8));
    let v = u64::from_ne_bytes(word)
        .checked_shl(u32::from(lshift))
        .unwrap_or(0)
        & mask;
    let v = v.checked_shr(u32::from(rshift)).unwrap_or(0);
    d.put(v, n);
}

/// `__get_data_size`: the bytes of strings the probe's arguments need now.
#[inline(always)]
pub fn dynamic_size(args: &[ProbeArg<'_>], src: &impl Source) -> usize {
    // A plain loop: `core`'s iterator adapters are calls here, not inlined.
    let mut n = 0;
    for a in args {
        if a.ty.string {
            n += run(&a.code, src, None).unwrap_or(0);
        }
    }
    n
}

/// `store_trace_args`: fills `record`, the whole entry (the kernel's
/// common fields and the probe's head: `head` bytes; the fixed fields:
/// `fixed` bytes, the compiler's record size; the strings: the rest, sized
/// by [`dynamic_size`]).
#[inline(always)]
pub fn store(
    args: &[ProbeArg<'_>],
    src: &impl Source,
    record: &mut [u8],
    head: usize,
    fixed: usize,
) {
    let mut dynamic = head + fixed;
    let mut room = record.len().saturating_sub(dynamic);
    for a in args {
        let at = head + a.offset as usize;
        let mut d = Dest {
            record: &mut *record,
            at,
        };
        if a.ty.string {
            d.set_loc(data_loc(room, dynamic));
        }
        let took = match a.fused {
            Fused::No => run(&a.code, src, Some(d)),
            fused => run_fused(fused, src, d),
        };
        if a.ty.string {
            if let Some(n) = took.filter(|&n| n > 0) {
                dynamic += n;
                room = room.saturating_sub(n);
            }
        } else if took.is_none() {
            // A field whose read faulted is zero (the kernel leaves what
            // the ring buffer had). Only then: a fill per field would be a
            // call into `memset` per record.
            if let Some(f) = record.get_mut(at..at + a.size() as usize) {
                f.fill(0);
            }
        }
    }
}

/// Fills in the address of every `@SYM[+|-OFFS]` of `arg` (the [`Insn::Imm`]
/// after its [`Insn::Symbol`]), as `traceprobe_update_arg` does when the
/// probe is registered: `lookup` gives a symbol's address. The refusal the
/// kernel gives then (against the probe's address word), with the text.
pub fn resolve_symbols<'a>(
    arg: &mut ProbeArg<'a>,
    mut lookup: impl FnMut(&str) -> Option<u64>,
) -> Result<(), (ErrorKind, &'a str)> {
    for i in 0..arg.code.len() {
        if let Insn::Symbol(text) = arg.code[i] {
            let (name, offset) =
                split_symbol_offset(text).ok_or((ErrorKind::FailRegProbe, text))?;
            let addr = Some(name)
                .filter(|n| !n.is_empty())
                .and_then(&mut lookup)
                .ok_or((ErrorKind::BadProbeAddr, text))?;
            if let Some(slot @ Insn::Imm(_)) = arg.code.get_mut(i + 1) {
                *slot = Insn::Imm(addr.wrapping_add(offset as u64));
            }
        }
    }
    Ok(())
}
