// SPDX-License-Identifier: GPL-2.0

//! A function's prototype read from BTF (`src/events/prototype.rs`), on
//! hand-built blobs laid out as the kernel's: each answer what the kernel's
//! `query_btf_context()` and `fetch_type_from_btf_type()` give, and lines
//! compiled with it as with the hand-written `vfs_read` prototype whose
//! compilations `test_fetchargs_oracle.sh` checks against the kernel.

use batchprobe_host_tests::btf::Btf;
use batchprobe_host_tests::btf_blob::{
    Builder, ARRAY, BOOL, CONST, ENUM, PTR, SIGNED, STRUCT, TYPEDEF,
};
use batchprobe_host_tests::fetch::{BtfType, Compiler, Dialect, ProbeArg, Prototype, Site};
use batchprobe_host_tests::prototype::BtfPrototype;
use batchprobe_host_tests::vfs_read::VfsRead;

/// `vfs_read`, a function with every kind of parameter, a void one, and
/// two functions of one name (the first is the one the kernel takes).
fn kernel_like() -> Vec<u8> {
    let mut b = Builder::new();
    let long = b.int_enc("long", 8, SIGNED);
    let ulong = b.int_enc("long unsigned int", 8, 0);
    let int = b.int_enc("int", 4, SIGNED);
    let uint = b.int_enc("unsigned int", 4, 0);
    let char_ = b.int_enc("char", 1, 0);
    let schar = b.int_enc("signed char", 1, SIGNED);
    let short = b.int_enc("short", 2, SIGNED);
    let bool_ = b.int_enc("_Bool", 1, BOOL);
    let ssize_t = b.record("ssize_t", TYPEDEF, 0, long, &[]);
    let size_t = b.record("size_t", TYPEDEF, 0, ulong, &[]);
    let loff_t = b.record("loff_t", TYPEDEF, 0, long, &[]);
    let m = b.name("f_mode");
    let file = b.record("file", STRUCT, 1, 8, &[m, uint, 0]);
    let file_p = b.record("", PTR, 0, file, &[]);
    let cchar = b.record("", CONST, 0, char_, &[]);
    let char_p = b.record("", PTR, 0, char_, &[]);
    let cchar_p = b.record("", PTR, 0, cchar, &[]);
    let loff_p = b.record("", PTR, 0, loff_t, &[]);
    let schar_p = b.record("", PTR, 0, schar, &[]);
    let e = b.name("A");
    let en = b.record("mode", ENUM, 1, 4, &[e, 0]);
    let arr = b.record("", ARRAY, 0, 0, &[char_, int, 16]);
    b.func_named(
        "vfs_read",
        ssize_t,
        &[
            ("file", file_p),
            ("buf", char_p),
            ("count", size_t),
            ("pos", loff_p),
        ],
    );
    b.func_named(
        "kinds",
        int,
        &[
            ("e", en),
            ("name", cchar_p),
            ("s", schar_p),
            ("ok", bool_),
            ("h", short),
            ("a", arr),
            ("u", uint),
        ],
    );
    b.func_named("nothing", 0, &[]);
    b.func_named("twice", int, &[("first", int)]);
    b.func_named("twice", long, &[("second", long)]);
    b.blob()
}

/// The blob's type offsets and sorted function index.
fn index(btf: &Btf<'_>) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; btf.count().expect("types")];
    let n = btf.offsets(&mut offsets).expect("offsets");
    let mut funcs = vec![0u32; n];
    btf.index_functions(&offsets, &mut funcs).expect("index");
    (offsets, funcs)
}

#[test]
fn answers_as_the_kernel() {
    let blob = kernel_like();
    let btf = Btf::parse(&blob).expect("header");
    let (offsets, funcs) = index(&btf);
    let p = |name: &str| {
        BtfPrototype::new(
            Btf::parse(&blob).expect("header"),
            &offsets,
            &funcs,
            name.as_bytes(),
        )
    };

    let v = p("vfs_read");
    assert!(v.found());
    assert_eq!(v.ret(), Some(BtfType::Scalar("s64")));
    assert_eq!(v.nr_params(), 4);
    assert_eq!(v.param("file"), Some((0, BtfType::StructPtr)));
    assert_eq!(v.param("buf"), Some((1, BtfType::CharPtr)));
    assert_eq!(v.param("count"), Some((2, BtfType::Scalar("u64"))));
    assert_eq!(v.param("pos"), Some((3, BtfType::Ptr)));
    assert_eq!(v.param("nope"), None);
    assert_eq!(v.param_name(1), Some("buf"));
    assert_eq!(v.param_name(4), None);

    let k = p("kinds");
    assert_eq!(k.ret(), Some(BtfType::Scalar("s32")));
    assert_eq!(k.param("e"), Some((0, BtfType::Scalar("s32"))));
    // `const char *`: the qualifier is skipped, as the kernel skips it.
    assert_eq!(k.param("name"), Some((1, BtfType::CharPtr)));
    // `signed char *` is not a string pointer to the kernel.
    assert_eq!(k.param("s"), Some((2, BtfType::Ptr)));
    assert_eq!(k.param("ok"), Some((3, BtfType::Scalar("u8"))));
    assert_eq!(k.param("h"), Some((4, BtfType::Scalar("s16"))));
    assert_eq!(k.param("a"), Some((5, BtfType::CharArray)));
    assert_eq!(k.param("u"), Some((6, BtfType::Scalar("u32"))));

    let n = p("nothing");
    assert!(n.found());
    assert_eq!((n.ret(), n.nr_params()), (None, 0));

    let t = p("twice");
    assert_eq!(t.param_name(0), Some("first"));

    let none = p("no_such_function");
    assert!(!none.found());
    assert_eq!((none.ret(), none.nr_params()), (None, 0));
}

fn compile<'a>(
    site: Site,
    btf: &dyn Prototype<'a>,
    words: &[&'a str],
) -> Result<Vec<ProbeArg<'a>>, String> {
    let d = Dialect::linux_7_3(16384, true);
    let mut c = Compiler::new(d, site, btf);
    c.check_words(words.iter().copied())
        .map_err(|e| format!("{e:?}"))?;
    let mut out = Vec::new();
    for w in words {
        let a = c.compile(w, &out).map_err(|e| format!("{w}: {e:?}"))?;
        out.push(a);
    }
    Ok(out)
}

#[test]
fn compiles_as_the_checked_prototype() {
    let blob = kernel_like();
    let btf = Btf::parse(&blob).expect("header");
    let (offsets, funcs) = index(&btf);
    let real = BtfPrototype::new(btf, &offsets, &funcs, b"vfs_read");
    let lines: &[(Site, &[&str])] = &[
        (
            Site::Entry,
            &["$arg1", "$arg2:ustring", "$arg3", "b=buf:string", "n=pos"],
        ),
        (Site::Entry, &["$arg3", "count"]),
        (Site::Entry, &["$arg5"]),
        (Site::Entry, &["file->f_mode"]),
        (Site::Entry, &["nope"]),
        (Site::Return, &["$retval", "$arg3", "r=$retval:x32", "buf"]),
        (Site::Return, &["$retval:string"]),
    ];
    let first = compile(Site::Entry, &real, lines[0].1).expect("vfs_read's line compiles");
    assert_eq!(first[0].name.to_string(), "file");
    assert_eq!(first[0].ty.name, "x64");
    assert_eq!(first[2].ty.name, "u64");
    let ret = compile(Site::Return, &real, lines[5].1).expect("the return's line compiles");
    assert_eq!(ret[0].ty.name, "s64");
    assert!(compile(Site::Entry, &real, lines[4].1).is_err());
    for (site, words) in lines {
        assert_eq!(
            compile(*site, &real, words),
            compile(*site, &VfsRead, words),
            "{words:?}"
        );
    }
}

/// Corrupt blobs (every byte of the type section flipped in turn, and
/// truncated): every question gets an answer, none panics.
#[test]
fn corrupt_blobs_answer_without_panicking() {
    let good = kernel_like();
    let mut seen = 0;
    for at in 24..good.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut blob = good.clone();
            blob[at] ^= flip;
            for len in [blob.len(), blob.len() - 7] {
                let Some(btf) = Btf::parse(&blob[..len]) else {
                    continue;
                };
                let Some(n) = btf.count() else {
                    continue;
                };
                let mut offsets = vec![0u32; n];
                let Some(nf) = btf.offsets(&mut offsets) else {
                    continue;
                };
                let mut funcs = vec![0u32; nf];
                if btf.index_functions(&offsets, &mut funcs).is_none() {
                    continue;
                }
                for name in ["vfs_read", "kinds", "nothing", "twice", "x"] {
                    let p = BtfPrototype::new(
                        Btf::parse(&blob[..len]).expect("parsed above"),
                        &offsets,
                        &funcs,
                        name.as_bytes(),
                    );
                    let _ = (p.found(), p.ret(), p.nr_params());
                    for i in 0..p.nr_params().min(64) + 1 {
                        if let Some(n) = p.param_name(i) {
                            let _ = p.param(n);
                        }
                    }
                    seen += 1;
                }
            }
        }
    }
    assert!(seen > 1000, "only {seen} blobs parsed");
}

/// Many functions of one name, among others: the prototype is the first
/// one's (the lowest id, as the kernel's lookup finds it), whatever order
/// the index's sort leaves equal names in.
#[test]
fn of_many_of_one_name_the_first() {
    let mut b = Builder::new();
    let int = b.int_enc("int", 4, SIGNED);
    let names: Vec<String> = (0..200).map(|i| format!("p{i}")).collect();
    for (i, n) in names.iter().enumerate() {
        b.func_named("dup", int, &[(n.as_str(), int)]);
        b.func_named(&format!("f{}", 199 - i), int, &[]);
    }
    let blob = b.blob();
    let btf = Btf::parse(&blob).expect("header");
    let (offsets, funcs) = index(&btf);
    let p = BtfPrototype::new(btf, &offsets, &funcs, b"dup");
    assert_eq!(p.param_name(0), Some("p0"));
}
