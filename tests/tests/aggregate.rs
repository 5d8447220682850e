// SPDX-License-Identifier: GPL-2.0

//! An exit set's aggregates (`create --hist --errors`): the log2 buckets,
//! the errno slots, the summary across CPUs, the percentiles, and which
//! return types count errors (from hand-built BTF).

use std::sync::atomic::{AtomicU64, Ordering};

use batchprobe_host_tests::aggregate::{
    bucket, bucket_end, bucket_low, record, ErrorReturn, Summary, BUCKETS, ERRNO_SLOTS, OTHER,
    WORDS,
};
use batchprobe_host_tests::btf_blob::{Builder, BOOL, PTR, SIGNED, TYPEDEF};
use batchprobe_host_tests::signature::Btf;

fn block() -> Vec<AtomicU64> {
    (0..WORDS).map(|_| AtomicU64::new(0)).collect()
}

#[test]
fn buckets_are_powers_of_two() {
    assert_eq!(bucket(0), 0);
    assert_eq!(bucket(1), 1);
    assert_eq!(bucket(2), 2);
    assert_eq!(bucket(3), 2);
    assert_eq!(bucket(4), 3);
    assert_eq!(bucket(1023), 10);
    assert_eq!(bucket(1024), 11);
    // 70 ms: [2^26, 2^27) ns.
    assert_eq!(bucket_low(bucket(70_000_000)), 1 << 26);
    assert_eq!(bucket_end(bucket(70_000_000)), Some(1 << 27));
    assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    assert_eq!(bucket_end(BUCKETS - 1), None);
    for ns in [0u64, 1, 2, 5, 999, 1 << 20, (1 << 37) + 3] {
        let b = bucket(ns);
        assert!(bucket_low(b) <= ns, "{ns}");
        assert!(bucket_end(b).is_none_or(|e| ns < e), "{ns}");
    }
    // Every bucket's end is the next one's start.
    for i in 0..BUCKETS - 1 {
        assert_eq!(bucket_end(i), Some(bucket_low(i + 1)));
    }
    assert!(OTHER < WORDS);
}

#[test]
fn errno_by_return_type() {
    let minus = |e: i64| (-e) as u64;
    assert_eq!(ErrorReturn::Int64.errno(minus(2)), Some(2));
    assert_eq!(ErrorReturn::Int64.errno(minus(4095)), Some(4095));
    assert_eq!(ErrorReturn::Int64.errno(minus(4096)), None);
    assert_eq!(ErrorReturn::Int64.errno(0), None);
    assert_eq!(ErrorReturn::Int64.errno(17), None);
    // An int's -EEXIST with garbage in rax's upper half is still -EEXIST;
    // a long's is not an error.
    let int_eexist = 0xdead_beef_0000_0000 | u64::from((-17i32) as u32);
    assert_eq!(ErrorReturn::Int32.errno(int_eexist), Some(17));
    assert_eq!(ErrorReturn::Int64.errno(int_eexist), None);
    assert_eq!(ErrorReturn::Int32.errno(u64::from(u32::MAX - 4095)), None);
    // ERR_PTR(-ENOENT), and a kernel pointer.
    assert_eq!(ErrorReturn::Pointer.errno(minus(2)), Some(2));
    assert_eq!(ErrorReturn::Pointer.errno(0xffff_8880_0000_1000), None);
    assert_eq!(ErrorReturn::No.errno(minus(2)), None);
}

#[test]
fn errno_slots_fill_then_overflow() {
    let b = block();
    for (errno, times) in [(2u16, 3), (17, 5), (2, 1), (11, 1), (9, 2), (4, 1), (5, 7)] {
        for _ in 0..times {
            record(&b, None, Some(errno));
        }
    }
    let mut s = Summary::default();
    s.add(&b);
    // The first four distinct errnos are named; EINTR and EIO are not.
    assert_eq!(ERRNO_SLOTS, 4);
    assert_eq!(&s.errnos[..4], &[(17, 5), (2, 4), (9, 2), (11, 1)]);
    assert_eq!(s.other, 8);
    assert_eq!(s.errors(), 20);
    assert_eq!(s.count(), 0);
    assert_eq!(s.mean(), None);
    assert_eq!(s.percentile_end(990), None);
}

#[test]
fn cpus_merge_into_one_summary() {
    let cpus: Vec<Vec<AtomicU64>> = (0..3).map(|_| block()).collect();
    // Each CPU saw its errnos in another order.
    record(&cpus[0], Some(100), Some(2));
    record(&cpus[1], Some(3000), Some(17));
    record(&cpus[1], Some(3000), Some(2));
    record(&cpus[2], Some(70_000_000), None);
    let mut s = Summary::default();
    for c in &cpus {
        s.add(c);
    }
    assert_eq!(s.count(), 4);
    assert_eq!(s.sum, 100 + 3000 + 3000 + 70_000_000);
    assert_eq!(s.mean(), Some((100 + 6000 + 70_000_000) / 4));
    assert_eq!(s.buckets[bucket(100)], 1);
    assert_eq!(s.buckets[bucket(3000)], 2);
    assert_eq!(s.errnos[0], (2, 2));
    assert_eq!(s.errnos[1], (17, 1));
    // p50: the 2nd of 4 (3000 ns, below 4096); p99: the 4th.
    assert_eq!(s.percentile_end(500), Some(Some(4096)));
    assert_eq!(s.percentile_end(990), Some(Some(1 << 27)));
    assert_eq!(s.percentile_end(0), Some(Some(128)));
    assert_eq!(s.percentile_end(1000), Some(Some(1 << 27)));
    // Past the last bucket: unbounded.
    record(&cpus[0], Some(u64::MAX / 2), None);
    let mut t = Summary::default();
    t.add(&cpus[0]);
    assert_eq!(t.percentile_end(1000), Some(None));
    assert_eq!(cpus[0][OTHER].load(Ordering::Relaxed), 0);
}

#[test]
fn percentiles_of_many() {
    let b = block();
    // 990 fast calls, 10 slow: p99 is still fast, p99.9 would not be.
    for _ in 0..990 {
        record(&b, Some(500), None);
    }
    for _ in 0..10 {
        record(&b, Some(1_000_000), None);
    }
    let mut s = Summary::default();
    s.add(&b);
    assert_eq!(s.percentile_end(990), Some(Some(512)));
    assert_eq!(s.percentile_end(991), Some(Some(1 << 20)));
    // Huge counts do not overflow the rank.
    let mut big = Summary::default();
    big.buckets[3] = u64::MAX / 2;
    big.buckets[5] = u64::MAX / 2;
    assert_eq!(big.percentile_end(500), Some(Some(8)));
    assert_eq!(big.percentile_end(999), Some(Some(32)));
}

#[test]
fn error_return_from_btf() {
    let mut b = Builder::new();
    let int = b.int_enc("int", 4, SIGNED);
    let uint = b.int("unsigned int", 4);
    let long = b.int_enc("long", 8, SIGNED);
    let ulong = b.int("unsigned long", 8);
    let boolean = b.int_enc("_Bool", 1, BOOL);
    let ssize = b.record("ssize_t", TYPEDEF, 0, long, &[]);
    let ptr = b.record("", PTR, 0, int, &[]);
    b.func("returns_int", int, &[ptr]);
    b.func("returns_uint", uint, &[]);
    b.func("returns_ssize", ssize, &[]);
    b.func("returns_ulong", ulong, &[]);
    b.func("returns_bool", boolean, &[]);
    b.func("returns_ptr", ptr, &[]);
    b.func("returns_void", 0, &[]);
    // Two static functions of one name, different return kinds.
    b.func("twice", int, &[]);
    b.func("twice", ptr, &[]);
    let blob = b.blob();
    let btf = Btf::parse(&blob).expect("header");
    let n = btf.count().expect("types");
    let mut offsets = vec![0u32; n];
    let funcs = btf.offsets(&mut offsets).expect("offsets");
    let mut index = vec![0u32; funcs];
    btf.index_functions(&offsets, &mut index).expect("index");
    let kind = |name: &str| btf.error_return(&offsets, &index, name.as_bytes());
    assert_eq!(kind("returns_int"), ErrorReturn::Int32);
    assert_eq!(kind("returns_uint"), ErrorReturn::No);
    assert_eq!(kind("returns_ssize"), ErrorReturn::Int64);
    assert_eq!(kind("returns_ulong"), ErrorReturn::No);
    assert_eq!(kind("returns_bool"), ErrorReturn::No);
    assert_eq!(kind("returns_ptr"), ErrorReturn::Pointer);
    assert_eq!(kind("returns_void"), ErrorReturn::No);
    assert_eq!(kind("twice"), ErrorReturn::No);
    assert_eq!(kind("not_in_btf"), ErrorReturn::No);
    assert_eq!(kind("__x64_sys_openat"), ErrorReturn::Int64);
}
