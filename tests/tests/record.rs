// SPDX-License-Identifier: GPL-2.0

//! Tests of the record writer's pure half (`src/events/record.rs`): compiled
//! programs run over a fake probe context and memory, the record's bytes as
//! `kprobe_events` writes them (`kernel/trace/trace_probe_tmpl.h`).

use batchprobe_host_tests::fetch::{
    Compiler, Dialect, ErrorKind, Fused, Insn, NoBtf, ProbeArg, Site,
};
use batchprobe_host_tests::record::{dynamic_size, resolve_symbols, store, Source};

const V6: Dialect = Dialect::linux_6_12(16384, true);
/// A kprobe record's head: the common fields and `__probe_ip`.
const HEAD: usize = 16;

/// Registers (by their `pt_regs` offset), and memory as (address, bytes).
struct Fake {
    regs: Vec<(u16, u64)>,
    mem: Vec<(u64, Vec<u8>)>,
}

const DI: u16 = 112;
const SI: u16 = 104;

impl Source for Fake {
    fn load(&self, insn: Insn<'_>) -> Option<u64> {
        match insn {
            Insn::Reg(off) => self.regs.iter().find(|r| r.0 == off).map(|r| r.1),
            Insn::Arg(n) => [DI, SI]
                .get(n as usize)
                .and_then(|&r| self.load(Insn::Reg(r))),
            Insn::Comm => Some(0x9000),
            _ => None,
        }
    }
    fn read(&self, addr: u64, dst: &mut [u8], _user: bool) -> bool {
        for (base, bytes) in &self.mem {
            if addr >= *base && addr + dst.len() as u64 <= base + bytes.len() as u64 {
                let at = (addr - base) as usize;
                dst.copy_from_slice(&bytes[at..at + dst.len()]);
                return true;
            }
        }
        false
    }
    fn cpu_ptr(&self, addr: u64) -> u64 {
        addr + 0x100
    }
    fn symbol(&self, addr: u64, dst: &mut [u8]) -> usize {
        let name = format!("sym+{:#x}/0x40", addr & 0x3f);
        let n = name.len().min(dst.len().saturating_sub(1));
        dst[..n].copy_from_slice(&name.as_bytes()[..n]);
        if let Some(z) = dst.get_mut(n) {
            *z = 0;
        }
        n
    }
}

fn fake() -> Fake {
    let mut words = Vec::new();
    for w in [0x2000u64, 0x3000, 0x1122_3344_5566_7788, 0xdead_0000] {
        words.extend_from_slice(&w.to_ne_bytes());
    }
    Fake {
        regs: vec![(DI, 0x1000), (SI, 0x2000), (80, 0x1_0000_00ff)],
        mem: vec![
            // 0x1000: two pointers (to strings), a word, a pointer nowhere.
            (0x1000, words),
            (0x2000, b"hello\0".to_vec()),
            (0x3000, b"world!\0".to_vec()),
            (0x9000, b"bptool\0".to_vec()),
        ],
    }
}

fn compile(words: &[&'static str]) -> (Vec<ProbeArg<'static>>, usize) {
    let mut c = Compiler::new(V6, Site::Entry, &NoBtf);
    let mut args = Vec::new();
    for w in words {
        let a = c.compile(w, &args).unwrap_or_else(|e| panic!("{w}: {e:?}"));
        args.push(a);
    }
    let fixed = c.record_size() as usize;
    (args, fixed)
}

/// The record for `words` over the fake: its bytes past the head.
fn record(words: &[&'static str]) -> (Vec<u8>, Vec<ProbeArg<'static>>, usize) {
    let (args, fixed) = compile(words);
    let src = fake();
    let dynamic = dynamic_size(&args, &src);
    let mut rec = vec![0xaau8; HEAD + fixed + dynamic];
    store(&args, &src, &mut rec, HEAD, fixed);
    (rec, args, fixed)
}

fn u32_at(rec: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(rec[at..at + 4].try_into().unwrap())
}

/// The string a `__data_loc` word at `at` names, and its length field.
fn string_at(rec: &[u8], at: usize) -> (usize, Vec<u8>) {
    let loc = u32_at(rec, at);
    let (len, off) = ((loc >> 16) as usize, (loc & 0xffff) as usize);
    (len, rec[off..off + len].to_vec())
}

#[test]
fn values_and_memory() {
    let (rec, _, fixed) = record(&[
        "a=%di",
        "b=%ax:u8",
        "c=+16(%di):u32",
        "d=+0(+0(%di)):u16",
        "e=$arg2:x16",
    ]);
    assert_eq!(fixed, 8 + 1 + 4 + 2 + 2);
    let r = &rec[HEAD..];
    assert_eq!(u64::from_ne_bytes(r[0..8].try_into().unwrap()), 0x1000);
    assert_eq!(r[8], 0xff);
    assert_eq!(
        u32::from_ne_bytes(r[9..13].try_into().unwrap()),
        0x5566_7788
    );
    assert_eq!(
        u16::from_ne_bytes(r[13..15].try_into().unwrap()),
        u16::from_ne_bytes(*b"he")
    );
    assert_eq!(u16::from_ne_bytes(r[15..17].try_into().unwrap()), 0x2000);
}

#[test]
fn a_fault_leaves_the_field_zero() {
    let (rec, _, _) = record(&["x=+0(+24(%di)):u64", "y=+0(%ax):u32"]);
    assert_eq!(&rec[HEAD..HEAD + 12], &[0u8; 12]);
}

#[test]
fn strings_are_found_through_their_data_loc() {
    let (rec, _, fixed) = record(&[
        "s=+0(+0(%di)):string",
        "c=$comm",
        "l=\\\"lit\"",
        "t=+0(%si):string",
    ]);
    let dynamic = HEAD + fixed;
    // `+0(X):string` is the string at X (the store takes the dereference
    // over): here the string %di points to a pointer to.
    assert_eq!(string_at(&rec, HEAD), (6, b"hello\0".to_vec()));
    assert_eq!(u32_at(&rec, HEAD) & 0xffff, dynamic as u32);
    assert_eq!(string_at(&rec, HEAD + 4), (7, b"bptool\0".to_vec()));
    assert_eq!(string_at(&rec, HEAD + 8), (4, b"lit\0".to_vec()));
    // `+0(%si)`: the string at %si itself.
    assert_eq!(string_at(&rec, HEAD + 12), (6, b"hello\0".to_vec()));
    assert_eq!(rec.len(), dynamic + 6 + 7 + 4 + 6);
}

#[test]
fn a_faulting_string_has_length_zero() {
    let (rec, _, fixed) = record(&["s=+0(+24(%di)):string", "t=+0(%si):string"]);
    let loc = u32_at(&rec, HEAD);
    assert_eq!(loc >> 16, 0, "printed as (fault)");
    // The next string starts where the faulting one would have.
    assert_eq!(u32_at(&rec, HEAD + 4) & 0xffff, (HEAD + fixed) as u32);
}

#[test]
fn arrays() {
    let (rec, args, _) = record(&["w=+16(%di):u8[4]", "p=+0(%di):x64[2]"]);
    assert_eq!(
        args[0].program(),
        [Insn::Reg(DI), Insn::StMem(1, 16), Insn::LoopArray(4)]
    );
    assert_eq!(
        &rec[HEAD..HEAD + 4],
        &0x1122_3344_5566_7788u64.to_ne_bytes()[..4]
    );
    let p = &rec[HEAD + 4..HEAD + 20];
    assert_eq!(u64::from_ne_bytes(p[..8].try_into().unwrap()), 0x2000);
    assert_eq!(u64::from_ne_bytes(p[8..].try_into().unwrap()), 0x3000);
}

#[test]
fn an_array_of_strings_follows_the_pointers() {
    let (rec, _, fixed) = record(&["n=+0(%di):string[2]"]);
    let dynamic = HEAD + fixed;
    assert_eq!(string_at(&rec, HEAD), (6, b"hello\0".to_vec()));
    assert_eq!(string_at(&rec, HEAD + 4), (7, b"world!\0".to_vec()));
    assert_eq!(u32_at(&rec, HEAD + 4) & 0xffff, dynamic as u32 + 6);
    assert_eq!(rec.len(), dynamic + 13);
}

#[test]
fn bitfields_shifted_past_their_width_are_zero() {
    // b0xffffffffffffffff@1/8: the kernel's wrapping sums accept it, with
    // shifts of 8 and 9 in a byte.
    let (rec, args, _) = record(&["b=%di:b0xffffffffffffffff@1/8"]);
    assert_eq!(
        args[0].program()[2],
        Insn::ModBitfield {
            basesize: 1,
            lshift: 8,
            rshift: 9
        }
    );
    assert_eq!(rec[HEAD], 0);
}

#[test]
fn bitfields() {
    // 0x88 = 0b1000_1000: 3 bits at bit 3 are 0b001.
    let (rec, _, _) = record(&["b=+16(%di):b3@3/8", "w=+16(%di):b8@8/16"]);
    assert_eq!(rec[HEAD], 0b001);
    assert_eq!(
        u16::from_ne_bytes(rec[HEAD + 1..HEAD + 3].try_into().unwrap()),
        0x77
    );
}

#[test]
fn symstr_keeps_the_room_as_its_length() {
    let (rec, _, fixed) = record(&["s=%di:symstr", "t=+0(%si):string"]);
    let loc = u32_at(&rec, HEAD);
    let name = b"sym+0x0/0x40";
    let off = (loc & 0xffff) as usize;
    assert_eq!(&rec[off..off + name.len()], name);
    // The kernel's way: the length field is the room there was, and the
    // next string starts on the symbol's NUL.
    assert_eq!((loc >> 16) as usize, rec.len() - HEAD - fixed);
    assert_eq!(u32_at(&rec, HEAD + 4) & 0xffff, (off + name.len()) as u32);
}

#[test]
fn dynamic_size_counts_what_store_takes() {
    let (args, fixed) = compile(&[
        "a=+0(%si):string",
        "b=$comm",
        "c=%di",
        "d=+0(%di):string[2]",
        "e=+0(+24(%di)):string",
    ]);
    let src = fake();
    let size = dynamic_size(&args, &src);
    // A faulting string takes nothing.
    assert_eq!(size, 6 + 7 + (6 + 7));
    let mut rec = vec![0u8; HEAD + fixed + size];
    store(&args, &src, &mut rec, HEAD, fixed);
    // The last string written (d's second) ends the record.
    let (d, _) = string_at(&rec, HEAD + 20);
    assert_eq!((u32_at(&rec, HEAD + 20) & 0xffff) as usize + d, rec.len());
}

#[test]
fn symbols_are_resolved_into_their_immediate() {
    let (mut args, _) = compile(&["j=@jiffies+8:u32", "k=@nosuch"]);
    let lookup = |s: &str| (s == "jiffies").then_some(0x1000u64);
    assert_eq!(resolve_symbols(&mut args[0], lookup), Ok(()));
    assert_eq!(
        args[0].program(),
        [
            Insn::Symbol("jiffies+8"),
            Insn::Imm(0x1008),
            Insn::StMem(4, 0)
        ]
    );
    assert_eq!(
        resolve_symbols(&mut args[1], lookup),
        Err((ErrorKind::BadProbeAddr, "nosuch"))
    );
    // The kernel's words when it registers such a probe.
    let (mut bad, _) = compile(&["a=@jiffies+x", "b=@"]);
    assert_eq!(
        resolve_symbols(&mut bad[0], lookup),
        Err((ErrorKind::FailRegProbe, "jiffies+x"))
    );
    assert_eq!(
        resolve_symbols(&mut bad[1], lookup),
        Err((ErrorKind::BadProbeAddr, ""))
    );
    let src = fake();
    let mut rec = vec![0u8; HEAD + 4];
    store(&args[..1], &src, &mut rec, HEAD, 4);
    assert_eq!(u32::from_ne_bytes(rec[HEAD..].try_into().unwrap()), 0x3000);
}

#[test]
fn a_short_record_is_not_overrun() {
    // Less room than the strings need (they grew between the two passes):
    // cut, never written past the record.
    let (args, fixed) = compile(&["a=+0(%si):string", "b=$comm"]);
    let src = fake();
    let mut rec = vec![0u8; HEAD + fixed + 4];
    store(&args, &src, &mut rec, HEAD, fixed);
    assert_eq!(string_at(&rec, HEAD), (4, b"hel\0".to_vec()));
    assert_eq!(u32_at(&rec, HEAD + 4) >> 16, 0);
}

#[test]
fn the_usual_forms_are_fused() {
    let (args, _) = compile(&[
        "a=%di",
        "b=$arg2:x16",
        "c=+16(%di):u32",
        "d=+u8(%si):u64",
        "e=$stack",
        "f=+0(+0(%di)):u16",
        "g=+0(%si):string",
        "h=+16(%di):b3@3/8",
    ]);
    let fused: Vec<_> = args.iter().map(|a| a.fused).collect();
    assert_eq!(
        fused,
        [
            Fused::Value(Insn::Reg(DI), 8),
            Fused::Value(Insn::Arg(1), 2),
            Fused::Mem(Insn::Reg(DI), 4, 16, false),
            Fused::Mem(Insn::Reg(SI), 8, 8, true),
            Fused::Value(Insn::StackP, 8),
            Fused::No,
            Fused::No,
            Fused::No,
        ]
    );
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "%di",
        "%si:u8",
        "+0(%di):u32",
        "+8(+0(%di)):s16",
        "+0(%si):string",
        "+0(+0(%di)):string",
        "+0(%di):string[2]",
        "+u0(%si):ustring",
        "$comm",
        "\\\"lit\"",
        "%di:symstr",
        "+16(%di):b3@3/8",
        "+16(%di):u8[4]",
        "+0(+24(%di)):string",
        "+0(%ax):x64[3]",
        "@jiffies:u32",
        "$stack",
        "$arg1:x8",
        "%di:b0xffffffffffffffff@1/8",
        "%di:b0xffffffffffffffff@1/64",
        "+0(%di):b64@0/64",
        "+8(%di):x64",
        "+u0(%di):u16",
        "$arg2",
        "\\1234:u32",
    ];

    /// The arguments `picks` chooses from [`WORDS`], named `a`, `b`, ...,
    /// compiled, and their fixed fields' bytes.
    fn picked(picks: &[usize]) -> (Vec<ProbeArg<'static>>, usize) {
        let names = ["a", "b", "c", "d", "e", "f"];
        let mut c = Compiler::new(V6, Site::Entry, &NoBtf);
        let mut args = Vec::new();
        for (i, &p) in picks.iter().enumerate() {
            let w: &'static str = Box::leak(format!("{}={}", names[i], WORDS[p]).into_boxed_str());
            args.push(c.compile(w, &args).unwrap());
        }
        (args, c.record_size() as usize)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any mix of arguments over any memory, in a record with up to 15
        /// bytes less room than `dynamic_size` said (strings that grew
        /// between the passes): no panic, nothing written past the record
        /// (it is a slice: such a write would panic).
        #[test]
        fn never_panics(picks in proptest::collection::vec(0..WORDS.len(), 1..6),
                        mem in proptest::collection::vec(any::<u8>(), 0..64),
                        short in 0usize..16) {
            let (args, fixed) = picked(&picks);
            let mut src = fake();
            src.mem.push((0x1000, mem));
            let dynamic = dynamic_size(&args, &src);
            let mut rec = vec![0u8; HEAD + fixed + dynamic.saturating_sub(short)];
            store(&args, &src, &mut rec, HEAD, fixed);
        }

        /// A fused program ([`Fused`]) stores what the stage walk stores,
        /// over any memory and registers, faults included.
        #[test]
        fn fused_stores_what_the_walk_stores(
            picks in proptest::collection::vec(0..WORDS.len(), 1..6),
            mem in proptest::collection::vec(any::<u8>(), 0..64),
            di in prop_oneof![Just(0x1000u64), any::<u64>()],
        ) {
            let (args, fixed) = picked(&picks);
            let walked: Vec<ProbeArg<'_>> = args.iter().map(|a| ProbeArg { fused: Fused::No, ..*a }).collect();
            let mut src = fake();
            src.regs[0].1 = di;
            src.mem.push((0x1000, mem));
            let dynamic = dynamic_size(&args, &src);
            let mut a = vec![0xaau8; HEAD + fixed + dynamic];
            let mut b = a.clone();
            store(&args, &src, &mut a, HEAD, fixed);
            store(&walked, &src, &mut b, HEAD, fixed);
            prop_assert_eq!(a, b);
        }
    }
}
