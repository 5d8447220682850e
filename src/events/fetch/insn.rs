// SPDX-License-Identifier: GPL-2.0

//! [`Insn`]: one step of a compiled fetch argument, as the kernel's
//! `struct fetch_insn` (`kernel/trace/trace_probe.h`), in the same five
//! stages: load, dereference, store, modify, loop; and [`Code`], a program
//! being built. Pure.

use super::FetchError;

/// One instruction. A program is a load, dereferences, one store, an optional
/// bitfield and an optional array loop, then [`Insn::End`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insn<'a> {
    /// An empty slot.
    Nop,
    // Stage 1: load.
    /// A register: the byte offset of its slot in x86-64's `struct pt_regs`.
    Reg(u16),
    /// The Nth word of the kernel stack.
    Stack(u32),
    /// The stack pointer.
    StackP,
    /// The return value.
    Retval,
    /// A constant (also an `@ADDR`).
    Imm(u64),
    /// `current->comm`.
    Comm,
    /// The Nth function argument (0-based).
    Arg(u32),
    /// An entry argument kept at function entry for the return record: its
    /// byte offset in the entry data.
    EntryData(u32),
    /// 7.3's `$current`: the current task's address.
    Current,
    /// An immediate string (`\"...`): its text.
    ImmStr(&'a str),
    /// `@SYM[+|-OFFS]`, to be resolved to an address when the set is made; the
    /// next slot holds the [`Insn::Imm`] it becomes (as `FETCH_NOP_SYMBOL`).
    Symbol(&'a str),
    // Stage 2: dereference.
    /// Read a word of kernel memory at value + offset.
    Deref(i64),
    /// Read a word of user memory at value + offset.
    UDeref(i64),
    /// 7.3's `this_cpu_ptr()`: the value as a per-CPU address.
    CpuPtr,
    // Stage 3: store.
    /// Store the value itself, `size` bytes.
    StRaw(u8),
    /// Store `size` bytes of kernel memory at value + offset.
    StMem(u8, i64),
    /// Store `size` bytes of user memory at value + offset.
    StUMem(u8, i64),
    /// Store the kernel string at value + offset.
    StString(i64),
    /// Store the user string at value + offset.
    StUString(i64),
    /// Store the name of the symbol at value (`symstr`).
    StSymstr,
    // Stage 4: modify.
    /// Keep a bitfield: shift left then right within `basesize` bytes.
    ModBitfield {
        /// The container's size in bytes.
        basesize: u8,
        /// Bits shifted out at the top.
        lshift: u8,
        /// Bits shifted out at the bottom (after `lshift`).
        rshift: u8,
    },
    // Stage 5: loop.
    /// Repeat the store for `N` consecutive elements.
    LoopArray(u32),
    /// The end of the program.
    End,
}

/// A whole program in one step, where it has one of the two usual forms
/// (`$arg1:x64`, `%di`, `+8($stack)`, `+0(%si):u32`): a load, then a
/// store of the value or of what it points to, then [`Insn::End`]. The
/// record writer runs these without the stage walk, which costs a dozen
/// branches per argument; what it stores is the walk's, by construction
/// (and checked on the host against the walk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fused<'a> {
    /// `[LOAD, StRaw(size), End]`: the loaded value's low `size` bytes.
    Value(Insn<'a>, u8),
    /// `[LOAD, StMem(size, off) | StUMem(size, off), End]`: `size` bytes
    /// read at the loaded value plus `off` (user memory if the `bool`).
    Mem(Insn<'a>, u8, i64, bool),
    /// Anything else: the walk.
    No,
}

impl<'a> Fused<'a> {
    /// The fused form of `code`, if it has one.
    pub fn of(code: &[Insn<'a>]) -> Self {
        let [load, store, Insn::End, ..] = code else {
            return Fused::No;
        };
        let plain = matches!(
            load,
            Insn::Reg(_)
                | Insn::Stack(_)
                | Insn::StackP
                | Insn::Retval
                | Insn::Imm(_)
                | Insn::Comm
                | Insn::Arg(_)
                | Insn::EntryData(_)
                | Insn::Current
        );
        match (plain, *store) {
            (true, Insn::StRaw(size)) => Fused::Value(*load, size),
            (true, Insn::StMem(size, off)) => Fused::Mem(*load, size, off, false),
            (true, Insn::StUMem(size, off)) => Fused::Mem(*load, size, off, true),
            _ => Fused::No,
        }
    }
}

/// The slots a program has, as the kernel's `FETCH_INSN_MAX`: the last one
/// is always [`Insn::End`], so 15 hold instructions.
pub const FETCH_INSN_MAX: usize = 16;

/// The program being built: `FETCH_INSN_MAX` slots, the last one
/// [`Insn::End`], and the slot being written.
pub(super) struct Code<'a> {
    slots: [Insn<'a>; FETCH_INSN_MAX],
    at: usize,
}

impl<'a> Code<'a> {
    pub(super) fn new() -> Self {
        let mut slots = [Insn::Nop; FETCH_INSN_MAX];
        slots[FETCH_INSN_MAX - 1] = Insn::End;
        Code { slots, at: 0 }
    }

    pub(super) fn cur(&self) -> Insn<'a> {
        self.slots[self.at]
    }

    pub(super) fn set(&mut self, insn: Insn<'a>) {
        self.slots[self.at] = insn;
    }

    /// `if (++code == end)`: the next slot, unless it is the last.
    pub(super) fn advance(&mut self, err: FetchError) -> Result<(), FetchError> {
        if self.at + 1 >= FETCH_INSN_MAX - 1 {
            return Err(err);
        }
        self.at += 1;
        Ok(())
    }

    /// The end of the program, after its last instruction (always room:
    /// [`Code::advance`] and [`Code::next_empty`] never take the last slot).
    pub(super) fn end(&mut self) {
        self.at += 1;
        self.set(Insn::End);
    }

    /// The finished program's slots.
    pub(super) fn into_slots(self) -> [Insn<'a>; FETCH_INSN_MAX] {
        self.slots
    }

    /// `code++; if (code->op != FETCH_OP_NOP)`: the next slot, if empty.
    pub(super) fn next_empty(&mut self, err: FetchError) -> Result<(), FetchError> {
        if self.slots[self.at + 1] != Insn::Nop {
            return Err(err);
        }
        self.at += 1;
        Ok(())
    }
}
