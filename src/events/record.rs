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

use super::fetch::{split_symbol_offset, ErrorKind, Insn, ProbeArg};

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
}

/// `make_data_loc`.
fn data_loc(len: usize, offset: usize) -> u32 {
    ((len as u32) << 16) | (offset as u32 & 0xffff)
}

/// A string store's source: memory, or the program's own literal.
#[derive(Clone, Copy)]
enum Str<'a> {
    At(u64, bool),
    Literal(&'a str),
}

/// The length of the string at `s`, its NUL included, at most
/// [`MAX_STRING_SIZE`] (`fetch_store_strlen`); `None` if it faults.
fn strlen(src: &impl Source, s: Str<'_>) -> Option<usize> {
    let (addr, user) = match s {
        Str::Literal(t) => return Some((t.len() + 1).min(MAX_STRING_SIZE)),
        Str::At(addr, user) => (addr, user),
    };
    let mut c = [0u8];
    for len in 1..=MAX_STRING_SIZE {
        if !src.read(addr.wrapping_add(len as u64 - 1), &mut c, user) {
            return None;
        }
        if c[0] == 0 {
            return Some(len);
        }
    }
    Some(MAX_STRING_SIZE)
}

/// `strncpy_from_kernel_nofault(dst, s, dst.len())`: the bytes copied, the
/// NUL included (a longer string is cut, its last byte made NUL); `None` if
/// it faults.
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
        Str::At(addr, user) => {
            for i in 0..max {
                if !src.read(addr.wrapping_add(i as u64), &mut dst[i..=i], user) {
                    dst[i] = 0;
                    return None;
                }
                if dst[i] == 0 {
                    return Some(i + 1);
                }
            }
            dst[max - 1] = 0;
            Some(max)
        }
    }
}

/// Where a store writes: the record, the slot of this field (or array
/// element) in it, and the start of the room left for strings.
struct Dest<'r> {
    record: &'r mut [u8],
    at: usize,
}

impl Dest<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if let Some(d) = self.record.get_mut(self.at..self.at + bytes.len()) {
            d.copy_from_slice(bytes);
        }
    }

    fn loc(&self) -> u32 {
        self.record
            .get(self.at..self.at + 4)
            .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn set_loc(&mut self, loc: u32) {
        self.put(&loc.to_ne_bytes());
    }

    /// The room this slot's `__data_loc` word names for a string: its
    /// length and offset; `None` when none is left (the kernel's `-ENOMEM`).
    fn named_room(&self) -> Option<(usize, usize)> {
        let loc = self.loc();
        let max = (loc >> 16) as usize;
        (max != 0).then_some((max, (loc & 0xffff) as usize))
    }
}

/// Runs one argument's program (`process_fetch_insn`): with `dest`, stores
/// it and returns the bytes of string data it took; without, returns the
/// bytes of string data it needs. `None`: a read faulted.
fn run(code: &[Insn<'_>], src: &impl Source, mut dest: Option<Dest<'_>>) -> Option<usize> {
    let mut pc = 0;
    // A `@SYM`'s placeholder: its address is in the `Imm` after it.
    if let Some(Insn::Symbol(_)) = code.first() {
        pc = 1;
    }
    let mut literal = None;
    let mut val = match code.get(pc)? {
        Insn::Imm(v) => *v,
        Insn::ImmStr(s) => {
            literal = Some(*s);
            0
        }
        insn => src.load(*insn)?,
    };
    pc += 1;
    let (mut total, mut i, mut loc) = (0usize, 0u32, 0u32);
    let mut lval = val;
    let mut ret: Option<usize>;
    // Stage 2: dereferences (and 7.3's per-CPU address).
    let mut s3;
    'stage2: loop {
        let mut llval = lval;
        loop {
            let before = val;
            let mut word = [0u8; 8];
            match code.get(pc)? {
                Insn::Deref(o) | Insn::UDeref(o) => {
                    let user = matches!(code[pc], Insn::UDeref(_));
                    if !src.read(val.wrapping_add(*o as u64), &mut word, user) {
                        return None;
                    }
                    val = u64::from_ne_bytes(word);
                }
                Insn::CpuPtr => val = src.cpu_ptr(val),
                _ => {
                    lval = llval;
                    break;
                }
            }
            lval = before;
            llval = lval;
            pc += 1;
        }
        s3 = pc;
        // Stage 3: the store; on the size pass, only strings count.
        'stage3: loop {
            let st = *code.get(pc)?;
            let string = |off: i64, user: bool| match literal {
                Some(t) => Str::Literal(t),
                None => Str::At(val.wrapping_add(off as u64), user),
            };
            match dest.as_mut() {
                None => {
                    ret = match st {
                        Insn::StString(o) => strlen(src, string(o, false)),
                        Insn::StUString(o) => strlen(src, string(o, true)),
                        Insn::StSymstr => {
                            let mut name = [0u8; KSYM_SYMBOL_LEN];
                            Some(src.symbol(val, &mut name) + 1)
                        }
                        _ => return None,
                    };
                    pc += 1;
                }
                Some(d) => {
                    ret = Some(0);
                    match st {
                        Insn::StRaw(size) => d.put(&val.to_ne_bytes()[..usize::from(size)]),
                        Insn::StMem(size, o) | Insn::StUMem(size, o) => {
                            let size = usize::from(size);
                            let user = matches!(st, Insn::StUMem(..));
                            let mut buf = [0u8; 8];
                            if !src.read(val.wrapping_add(o as u64), &mut buf[..size], user) {
                                buf = [0; 8];
                            }
                            d.put(&buf[..size]);
                        }
                        Insn::StString(o) | Insn::StUString(o) => {
                            loc = d.loc();
                            let user = matches!(st, Insn::StUString(_));
                            ret = store_string(d, src, string(o, user));
                        }
                        Insn::StSymstr => {
                            loc = d.loc();
                            ret = store_symbol(d, src, val);
                        }
                        _ => return None,
                    }
                    pc += 1;
                    // Stage 4: a bitfield.
                    if let Some(Insn::ModBitfield {
                        basesize,
                        lshift,
                        rshift,
                    }) = code.get(pc)
                    {
                        bitfield(d, *basesize, *lshift, *rshift);
                        pc += 1;
                    }
                }
            }
            // Stage 5: an array.
            if let Some(Insn::LoopArray(n)) = code.get(pc) {
                total += ret.unwrap_or(0);
                i += 1;
                if i < *n {
                    pc = s3;
                    let step = match code[s3] {
                        Insn::StString(_) | Insn::StUString(_) => None,
                        Insn::StRaw(s) | Insn::StMem(s, _) | Insn::StUMem(s, _) => Some(s),
                        _ => Some(4),
                    };
                    if let Some(step) = step {
                        if let Some(d) = dest.as_mut() {
                            d.at += usize::from(step);
                        }
                        val = val.wrapping_add(u64::from(step));
                        continue 'stage3;
                    }
                    // An array of strings: the next pointer, dereferenced again.
                    pc = s3 - 1;
                    val = lval.wrapping_add(8);
                    if let Some(d) = dest.as_mut() {
                        d.at += 4;
                        let used = ret.unwrap_or(0);
                        let len = ((loc >> 16) as usize).saturating_sub(used);
                        d.set_loc(data_loc(len, (loc & 0xffff) as usize + used));
                    }
                    continue 'stage2;
                }
                pc += 1;
                ret = Some(total);
            }
            break 'stage2;
        }
    }
    (code.get(pc) == Some(&Insn::End)).then_some(())?;
    ret
}

/// `fetch_store_string`: the string into the room its `__data_loc` word
/// names, the word then set to what it took (0: it faulted).
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
fn store_symbol(d: &mut Dest<'_>, src: &impl Source, addr: u64) -> Option<usize> {
    let (_, offset) = d.named_room()?;
    let room = d.record.get_mut(offset..)?;
    let room_len = room.len().min(KSYM_SYMBOL_LEN);
    Some(src.symbol(addr, &mut room[..room_len]))
}

/// `fetch_apply_bitfield`.
fn bitfield(d: &mut Dest<'_>, basesize: u8, lshift: u8, rshift: u8) {
    let n = usize::from(basesize);
    let Some(b) = d.record.get(d.at..d.at + n) else {
        return;
    };
    let mut word = [0u8; 8];
    word[..n].copy_from_slice(b);
    let bits = u32::from(basesize) * 8;
    let v = u64::from_ne_bytes(word);
    let v = if bits == 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    };
    let v = (v << lshift)
        & if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
    let v = v >> rshift;
    d.put(&v.to_ne_bytes()[..n]);
}

/// `__get_data_size`: the bytes of strings the probe's arguments need now.
pub fn dynamic_size(args: &[ProbeArg<'_>], src: &impl Source) -> usize {
    args.iter()
        .filter(|a| a.ty.string)
        .filter_map(|a| run(&a.code, src, None))
        .sum()
}

/// `store_trace_args`: fills `record`, the whole entry (the kernel's
/// common fields and the probe's head: `head` bytes; the fixed fields:
/// `fixed` bytes, the compiler's record size; the strings: the rest, sized
/// by [`dynamic_size`]).
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
        // A field whose read faults stays zero.
        if let Some(f) = record.get_mut(at..at + a.size() as usize) {
            f.fill(0);
        }
        let mut d = Dest {
            record: &mut *record,
            at,
        };
        if a.ty.string {
            d.set_loc(data_loc(room, dynamic));
        }
        let took = run(&a.code, src, Some(d));
        if a.ty.string {
            if let Some(n) = took.filter(|&n| n > 0) {
                dynamic += n;
                room = room.saturating_sub(n);
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
    lookup: impl Fn(&str) -> Option<u64>,
) -> Result<(), (ErrorKind, &'a str)> {
    for i in 0..arg.code.len() {
        if let Insn::Symbol(text) = arg.code[i] {
            let (name, offset) =
                split_symbol_offset(text).ok_or((ErrorKind::FailRegProbe, text))?;
            let addr = Some(name)
                .filter(|n| !n.is_empty())
                .and_then(&lookup)
                .ok_or((ErrorKind::BadProbeAddr, text))?;
            if let Some(slot @ Insn::Imm(_)) = arg.code.get_mut(i + 1) {
                *slot = Insn::Imm(addr.wrapping_add(offset as u64));
            }
        }
    }
    Ok(())
}
