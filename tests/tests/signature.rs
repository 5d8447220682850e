// SPDX-License-Identifier: GPL-2.0

//! The exit trampoline's signature rule, on hand-built BTF blobs.

use batchprobe_host_tests::btf_blob::{Builder, CONST, FLOAT, PTR, SIGNED, STRUCT, TYPEDEF};
use batchprobe_host_tests::signature::{Btf, ErrorReturn, Refusal};

fn classify_all(blob: &[u8], names: &[&str]) -> Vec<Result<u32, Refusal>> {
    let btf = Btf::parse(blob).expect("header");
    let n = btf.count().expect("types");
    let mut offsets = vec![0u32; n];
    let funcs = btf.offsets(&mut offsets).expect("offsets");
    let mut index = vec![0u32; funcs];
    btf.index_functions(&offsets, &mut index).expect("index");
    names
        .iter()
        .map(|f| btf.classify(&offsets, &index, f.as_bytes()))
        .collect()
}

fn kernel_like() -> Vec<u8> {
    let mut b = Builder::new();
    let int = b.int("int", 4);
    let long = b.int("long", 8);
    let u128 = b.int("__int128", 16);
    let cint = b.record("", CONST, 0, int, &[]);
    let size_t = b.record("size_t", TYPEDEF, 0, long, &[]);
    let ptr = b.record("", PTR, 0, cint, &[]);
    let s16 = b.strukt("pair", 16);
    let s24 = b.strukt("triple", 24);
    let float = b.record("float", FLOAT, 0, 4, &[]);
    b.func("two", int, &[int, ptr]);
    b.func("none", 0, &[]);
    b.func("variadic", int, &[ptr, 0]);
    b.func("six", long, &[int, long, size_t, ptr, cint, long]);
    b.func("seven", long, &[int, long, size_t, ptr, cint, long, int]);
    b.func("pair_by_value", int, &[s16, long, long, long, long]);
    b.func("pair_too_many", int, &[s16, long, long, long, long, long]);
    b.func("big_by_value", int, &[s24]);
    b.func("returns_big", s24, &[long, long, long, long, long]);
    b.func(
        "returns_big_six",
        s24,
        &[long, long, long, long, long, long],
    );
    b.func("wide", int, &[u128, u128, u128]);
    b.func("floaty", int, &[float]);
    b.func("dup", int, &[int]);
    b.func("dup", int, &[int, int, int, int, int, int, int]);
    b.func("do_exit", 0, &[long]);
    b.blob()
}

#[test]
fn registers_and_refusals() {
    let blob = kernel_like();
    let names = [
        "two",
        "none",
        "variadic",
        "six",
        "seven",
        "pair_by_value",
        "pair_too_many",
        "big_by_value",
        "returns_big",
        "returns_big_six",
        "wide",
        "floaty",
        "dup",
        "do_exit",
        "missing",
        "",
        "__x64_sys_getppid",
        "__x64_sys_exit",
    ];
    let got = classify_all(&blob, &names);
    let want = [
        Ok(2),
        Ok(0),
        Err(Refusal::Variadic),
        Ok(6),
        Err(Refusal::StackArguments(7)),
        Ok(6),
        Err(Refusal::StackArguments(7)),
        Err(Refusal::ArgumentInMemory),
        Ok(6),
        Err(Refusal::StackArguments(7)),
        Ok(6),
        Err(Refusal::ArgumentInMemory),
        Err(Refusal::StackArguments(7)),
        Err(Refusal::NoReturn),
        Err(Refusal::NotInBtf),
        Err(Refusal::NotInBtf),
        Ok(1),
        Err(Refusal::NoReturn),
    ];
    assert_eq!(names.len(), want.len());
    for ((n, g), w) in names.iter().zip(&got).zip(&want) {
        assert_eq!(g, w, "{n}");
    }
}

/// Aggregates of up to 16 bytes by their layout: the ABI passes one with a
/// member off its natural alignment (a packed struct's) in memory.
#[test]
fn packed_and_bitfield_aggregates() {
    const UNION: u32 = 5;
    const ARRAY: u32 = 3;
    let mut b = Builder::new();
    let char_ = b.int("char", 1);
    let u16_ = b.int("u16", 2);
    let u32_ = b.int("u32", 4);
    let u64_ = b.int("u64", 8);
    let x = b.name("x");
    // Members as (type, bit offset).
    let agg = |b: &mut Builder, kind: u32, flag: bool, size: u32, m: &[(u32, u32)]| {
        let extra: Vec<u32> = m.iter().flat_map(|&(t, off)| [x, t, off]).collect();
        let info = (flag as u32) << 31;
        b.record("", kind, info | m.len() as u32, size, &extra)
    };
    // struct { u32 a; u64 b; } : 16 bytes, aligned.
    let plain = agg(&mut b, STRUCT, false, 16, &[(u32_, 0), (u64_, 64)]);
    // struct __packed { u32 a; u64 b; } : 12 bytes, b at 4.
    let packed = agg(&mut b, STRUCT, false, 12, &[(u32_, 0), (u64_, 32)]);
    // struct __packed { u32 a; u32 b; } : packed but every member aligned.
    let packed_aligned = agg(&mut b, STRUCT, false, 8, &[(u32_, 0), (u32_, 32)]);
    // struct __packed { char c; u16 h; } : h at 1.
    let packed_small = agg(&mut b, STRUCT, false, 3, &[(char_, 0), (u16_, 8)]);
    // struct { u32 a:3; u32 b:29; u64 c; } : bitfields at odd bit offsets.
    let bits = agg(
        &mut b,
        STRUCT,
        true,
        16,
        &[(u32_, 3 << 24), (u32_, (29 << 24) | 3), (u64_, 64)],
    );
    // struct { u32 a; struct packed_small s; } : aligned outside, not inside.
    let nested = agg(&mut b, STRUCT, false, 8, &[(u32_, 0), (packed_small, 32)]);
    // struct { char c; u16 arr[2] at 1; }: an array off its element's alignment.
    let arr = b.record("", ARRAY, 0, 0, &[u16_, u32_, 2]);
    let odd_array = agg(&mut b, STRUCT, false, 5, &[(char_, 0), (arr, 8)]);
    // union { u64 a; struct packed p; }
    let union_ = agg(&mut b, UNION, false, 12, &[(u64_, 0), (packed, 0)]);
    let int = b.int("int", 4);
    let td = b.record("packed_t", TYPEDEF, 0, packed, &[]);
    b.func("takes_plain", int, &[plain]);
    b.func("takes_packed", int, &[packed]);
    b.func("takes_packed_aligned", int, &[packed_aligned]);
    b.func("takes_packed_small", int, &[packed_small]);
    b.func("takes_bits", int, &[bits]);
    b.func("takes_nested", int, &[nested]);
    b.func("takes_odd_array", int, &[odd_array]);
    b.func("takes_union", int, &[union_]);
    b.func("takes_typedef", int, &[td]);
    // A packed struct returned: in memory, through rdi.
    b.func("returns_packed", packed, &[u64_, u64_, u64_, u64_, u64_]);
    b.func(
        "returns_packed_six",
        packed,
        &[u64_, u64_, u64_, u64_, u64_, u64_],
    );
    let blob = b.blob();
    let cases = [
        ("takes_plain", Ok(2)),
        ("takes_packed", Err(Refusal::ArgumentInMemory)),
        ("takes_packed_aligned", Ok(1)),
        ("takes_packed_small", Err(Refusal::ArgumentInMemory)),
        ("takes_bits", Ok(2)),
        ("takes_nested", Err(Refusal::ArgumentInMemory)),
        ("takes_odd_array", Err(Refusal::ArgumentInMemory)),
        ("takes_union", Err(Refusal::ArgumentInMemory)),
        ("takes_typedef", Err(Refusal::ArgumentInMemory)),
        ("returns_packed", Ok(6)),
        ("returns_packed_six", Err(Refusal::StackArguments(7))),
    ];
    let names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let got = classify_all(&blob, &names);
    for ((n, w), g) in cases.iter().zip(&got) {
        assert_eq!(g, w, "{n}");
    }
}

#[test]
fn bad_blobs_are_refused_not_panicked_on() {
    assert!(Btf::parse(&[]).is_none());
    assert!(Btf::parse(&[0x9f, 0xeb, 1, 0]).is_none());
    let mut blob = kernel_like();
    // A header pointing past the end.
    let mut bad = blob.clone();
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Btf::parse(&bad).is_none());
    // A type section cut mid-record: the walk fails.
    let types_len = u32::from_le_bytes(blob[12..16].try_into().unwrap());
    blob[12..16].copy_from_slice(&(types_len - 5).to_le_bytes());
    let btf = Btf::parse(&blob).expect("header still fits");
    assert!(btf.count().is_none());
}

#[test]
fn random_blobs_never_panic() {
    let good = kernel_like();
    let mut seed = 0x2545f4914f6cdd1du64;
    for round in 0..20_000 {
        let mut blob = good.clone();
        for _ in 0..1 + round % 8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed as usize) % blob.len();
            blob[at] = (seed >> 32) as u8;
        }
        let Some(btf) = Btf::parse(&blob) else {
            continue;
        };
        let Some(n) = btf.count() else { continue };
        let mut offsets = vec![0u32; n];
        let Some(funcs) = btf.offsets(&mut offsets) else {
            continue;
        };
        let mut index = vec![0u32; funcs];
        if btf.index_functions(&offsets, &mut index).is_none() {
            continue;
        }
        for name in ["two", "six", "dup", "variadic", "x"] {
            let _ = btf.classify(&offsets, &index, name.as_bytes());
        }
    }
}

#[test]
fn duplicate_names() {
    use batchprobe_host_tests::signature::{duplicates, name_hash};
    let names = ["a", "b", "a", "c", "b", "b", "d"];
    let mut h: Vec<u64> = names.iter().map(|n| name_hash(n.as_bytes())).collect();
    let n = duplicates(&mut h);
    let mut want = vec![name_hash(b"a"), name_hash(b"b")];
    want.sort_unstable();
    assert_eq!(&h[..n], &want[..]);
    assert_eq!(duplicates(&mut []), 0);
    assert_ne!(name_hash(b"ab"), name_hash(b"ba"));
}

#[test]
fn cpu_offline_idle_paths_never_return() {
    use batchprobe_host_tests::signature::never_returns;
    for name in [
        "cpuidle_play_dead",
        "acpi_idle_play_dead",
        "intel_idle_enter_dead",
        "acpi_processor_ffh_play_dead",
        "mwait_play_dead",
        "do_idle",
        "do_exit",
    ] {
        assert!(never_returns(name.as_bytes()), "{name}");
    }
    for name in [
        "cpuidle_enter",
        "play_dead_common_helper",
        "vfs_read",
        "dead_end",
    ] {
        assert!(!never_returns(name.as_bytes()), "{name}");
    }
}

/// A module's BTF, split on the kernel's: its functions' prototypes name
/// the kernel's types (ids and strings of the base) and its own; only its
/// own functions are indexed; a corrupt split blob or a split base are
/// refused.
#[test]
fn split_blob_reads_through_its_base() {
    let mut base = Builder::new();
    let int = base.int_enc("int", 4, SIGNED);
    let long = base.int_enc("long", 8, SIGNED);
    let s24 = base.strukt("triple", 24);
    base.func("core_fn", int, &[int]);
    let base_blob = base.blob();
    let vmlinux = Btf::parse(&base_blob).expect("base header");
    let mut base_offsets = vec![0u32; vmlinux.count().expect("base types")];
    vmlinux.offsets(&mut base_offsets).expect("base offsets");

    let mut m = Builder::split(&base);
    let own = m.strukt("mod_state", 8);
    let ptr = m.record("", PTR, 0, own, &[]);
    m.func_named("mod_open", int, &[("st", ptr), ("flags", long)]);
    m.func("mod_big", int, &[s24]);
    m.func("mod_ptr", ptr, &[]);
    let mod_blob = m.blob();

    let btf = Btf::parse_split(&mod_blob, &vmlinux, &base_offsets).expect("split header");
    let n = btf.count().expect("types");
    assert_eq!(n, 2 + 1 + 2 * 3, "its own types only");
    let mut offsets = vec![0u32; n];
    let funcs = btf.offsets(&mut offsets).expect("offsets");
    assert_eq!(funcs, 3, "its own functions only");
    let mut index = vec![0u32; funcs];
    btf.index_functions(&offsets, &mut index).expect("index");
    assert!(index.iter().all(|&id| id > base_offsets.len() as u32));
    let classify = |name: &str| btf.classify(&offsets, &index, name.as_bytes());
    assert_eq!(classify("mod_open"), Ok(2));
    assert_eq!(classify("mod_big"), Err(Refusal::ArgumentInMemory));
    assert_eq!(classify("core_fn"), Err(Refusal::NotInBtf));
    let errors = |name: &str| btf.error_return(&offsets, &index, name.as_bytes());
    assert_eq!(errors("mod_open"), ErrorReturn::Int32);
    assert_eq!(errors("mod_ptr"), ErrorReturn::Pointer);
    // A name of the base's strings, and one of the module's.
    let f = btf.get(&offsets, index[1]).expect("a function");
    assert_eq!(btf.string(f.name_off), Some(&b"mod_open"[..]));
    let proto = btf.get(&offsets, f.size_or_type).expect("its prototype");
    let (pname, ptype) = btf.param(&proto, 1).expect("second parameter");
    assert_eq!(btf.string(pname), Some(&b"flags"[..]));
    let t = btf.get(&offsets, ptype).expect("long");
    assert_eq!(btf.string(t.name_off), Some(&b"long"[..]));

    // A split blob is no base, and a cut one does not parse.
    assert!(Btf::parse_split(&mod_blob, &btf, &offsets).is_none());
    let cut = &mod_blob[..mod_blob.len() - 3];
    assert!(Btf::parse_split(cut, &vmlinux, &base_offsets).is_none_or(|b| b.count().is_none()));
}
