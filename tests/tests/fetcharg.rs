// SPDX-License-Identifier: GPL-2.0

//! Tests of the fetch-argument compiler (`src/events/fetch.rs`): the programs
//! it builds are the ones `kernel/trace/trace_probe.c` builds for the same
//! argument (read from the 6.12 and 7.3 sources, instruction by
//! instruction), and each refusal carries the kernel's `error_log` words and
//! caret.

use batchprobe_host_tests::fetch::ErrorKind::{self, *};
use batchprobe_host_tests::fetch::Insn::{self, *};
use batchprobe_host_tests::fetch::*;

const V6: Dialect = Dialect::linux_6_12(16384, true);
const V7: Dialect = Dialect::linux_7_3(16384, true);

/// A function `long f(struct file *file, const char *name, int flags,
/// char buf[16])` as BTF describes it.
struct Proto;

impl Prototype<'static> for Proto {
    fn found(&self) -> bool {
        true
    }
    fn ret(&self) -> Option<BtfType> {
        Some(BtfType::Scalar("s64"))
    }
    fn nr_params(&self) -> usize {
        4
    }
    fn param(&self, name: &str) -> Option<(u32, BtfType)> {
        Some(match name {
            "file" => (0, BtfType::StructPtr),
            "name" => (1, BtfType::CharPtr),
            "flags" => (2, BtfType::Scalar("s32")),
            "buf" => (3, BtfType::CharArray),
            _ => return None,
        })
    }
    fn param_name(&self, index: usize) -> Option<&'static str> {
        ["file", "name", "flags", "buf"].get(index).copied()
    }
}

/// A `void g(void)`.
struct Void;

impl Prototype<'static> for Void {
    fn found(&self) -> bool {
        true
    }
    fn ret(&self) -> Option<BtfType> {
        None
    }
    fn nr_params(&self) -> usize {
        0
    }
    fn param(&self, _: &str) -> Option<(u32, BtfType)> {
        None
    }
    fn param_name(&self, _: usize) -> Option<&'static str> {
        None
    }
}

fn compile_all<'a>(
    d: Dialect,
    site: Site,
    btf: &dyn Prototype<'static>,
    words: &[&'a str],
) -> Result<Vec<ProbeArg<'a>>, (usize, FetchError)> {
    let mut c = Compiler::new(d, site, btf);
    c.check_words(words.iter().copied())?;
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let a = c.compile(w, &out).map_err(|e| (i, e))?;
        out.push(a);
    }
    Ok(out)
}

fn one(d: Dialect, site: Site, word: &str) -> Result<ProbeArg<'_>, FetchError> {
    Compiler::new(d, site, &Proto).compile(word, &[])
}

fn prog(site: Site, word: &str) -> Vec<Insn<'_>> {
    let a = one(V6, site, word).unwrap_or_else(|e| panic!("{word}: {e:?}"));
    a.program().to_vec()
}

fn err(d: Dialect, site: Site, word: &str) -> (ErrorKind, usize) {
    match one(d, site, word) {
        Ok(a) => panic!("{word}: accepted as {:?}", a.program()),
        Err(e) => (e.kind, e.pos),
    }
}

#[test]
fn loads_and_default_type() {
    use Site::*;
    assert_eq!(prog(Inside, "%di"), [Reg(112), StRaw(8)]);
    assert_eq!(prog(Inside, "%ax:u32"), [Reg(80), StRaw(4)]);
    assert_eq!(prog(Inside, "$stack"), [StackP, StRaw(8)]);
    assert_eq!(prog(Inside, "$stack3"), [Stack(3), StRaw(8)]);
    assert_eq!(prog(Entry, "$arg2"), [Arg(1), StRaw(8)]);
    assert_eq!(prog(Return, "$retval"), [Retval, StRaw(8)]);
    assert_eq!(prog(Inside, "\\0x10"), [Imm(16), StRaw(8)]);
    assert_eq!(prog(Inside, "\\-1:s8"), [Imm(u64::MAX), StRaw(1)]);
    assert_eq!(prog(Inside, "@0xffff1000"), [Imm(0xffff1000), StMem(8, 0)]);
    assert_eq!(
        prog(Inside, "@jiffies+8:u32"),
        [Symbol("jiffies+8"), Imm(0), StMem(4, 0)]
    );
    let a = one(V6, Inside, "%di").unwrap();
    assert_eq!(a.ty.name, "x64");
    assert!(a.needs_regs);
    assert!(!one(V6, Entry, "$arg1").unwrap().needs_regs);
}

#[test]
fn dereferences() {
    use Site::*;
    assert_eq!(prog(Inside, "+8(%di)"), [Reg(112), StMem(8, 8)]);
    assert_eq!(prog(Inside, "-0x10(%sp):s32"), [Reg(152), StMem(4, -16)]);
    assert_eq!(
        prog(Inside, "+0(+40(%di)):string"),
        [Reg(112), Deref(40), StString(0)]
    );
    assert_eq!(prog(Inside, "+u4(%si):u16"), [Reg(104), StUMem(2, 4)]);
    assert_eq!(prog(Inside, "+0(%si):ustring"), [Reg(104), StUString(0)]);
    assert_eq!(prog(Inside, "+u0(%si):string"), [Reg(104), StUString(0)]);
    // The kernel ignores what follows the last ')'.
    assert_eq!(prog(Inside, "+8(%di)xyz"), [Reg(112), StMem(8, 8)]);
}

#[test]
fn strings_and_symbols() {
    use Site::*;
    assert_eq!(prog(Inside, "$comm"), [Comm, StString(0)]);
    assert_eq!(prog(Inside, "$comm:string"), [Comm, StString(0)]);
    assert_eq!(
        prog(Inside, "\\\"hi there\""),
        [ImmStr("hi there"), StString(0)]
    );
    assert_eq!(prog(Inside, "%di:symstr"), [Reg(112), StSymstr]);
    assert_eq!(
        prog(Inside, "+0(%di):symstr"),
        [Reg(112), Deref(0), StSymstr]
    );
    assert_eq!(prog(Inside, "%di:symbol"), [Reg(112), StRaw(8)]);
    assert_eq!(prog(Inside, "@0x1000:string"), [Imm(0x1000), StString(0)]);
    let a = one(V6, Inside, "$comm").unwrap();
    assert_eq!((a.ty.name, a.ty.size, a.ty.string), ("string", 4, true));
}

#[test]
fn bitfields_and_arrays() {
    use Site::*;
    assert_eq!(
        prog(Inside, "+0(%di):b3@4/8"),
        [
            Reg(112),
            StMem(1, 0),
            ModBitfield {
                basesize: 1,
                lshift: 1,
                rshift: 5
            }
        ]
    );
    assert_eq!(
        prog(Inside, "%di:b1@63/64"),
        [
            Reg(112),
            StRaw(8),
            ModBitfield {
                basesize: 8,
                lshift: 0,
                rshift: 63
            }
        ]
    );
    assert_eq!(
        prog(Inside, "+0(%di):u8[4]"),
        [Reg(112), StMem(1, 0), LoopArray(4)]
    );
    assert_eq!(
        prog(Inside, "+0(%di):string[2]"),
        [Reg(112), Deref(0), StString(0), LoopArray(2)]
    );
    let a = one(V6, Inside, "+0(%di):u16[0x10]").unwrap();
    assert_eq!((a.count, a.size()), (16, 32));
}

#[test]
fn names() {
    use Site::*;
    // With BTF, a word `$argN` is the Nth parameter's name (as the kernel
    // rewrites it); `x=$argN` is not rewritten.
    let args = compile_all(
        V6,
        Entry,
        &Proto,
        &["%di", "x=%si", "$arg3", "file", "y=$arg2"],
    )
    .unwrap();
    let names: Vec<String> = args.iter().map(|a| a.name.to_string()).collect();
    assert_eq!(names, ["arg1", "x", "flags", "file", "y"]);
    assert_eq!(args[2].ty.name, "s32");
    assert_eq!(args[4].ty.name, "x64");
    let args = compile_all(V6, Entry, &NoBtf, &["%di", "$arg3"]).unwrap();
    assert_eq!(args[1].name.to_string(), "arg2");
    assert_eq!(args[1].program(), [Arg(2), StRaw(8)]);
    // Without BTF arguments the kernel never names an argument after itself.
    let args = compile_all(
        Dialect::linux_6_12(16384, false),
        Inside,
        &NoBtf,
        &["\\1", "\\2"],
    )
    .unwrap();
    assert_eq!(args[1].name.to_string(), "arg2");
    let e = |words: &[&str]| compile_all(V6, Entry, &Proto, words).unwrap_err();
    assert_eq!(
        e(&["%di", "arg1=%si"]),
        (
            1,
            FetchError {
                kind: UsedArgName,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["arg2=%di", "%si"]),
        (
            1,
            FetchError {
                kind: UsedArgName,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["a=%di", "a=%si"]),
        (
            1,
            FetchError {
                kind: UsedArgName,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["common_pid=%di"]),
        (
            0,
            FetchError {
                kind: UsedArgName,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["__probe_ip=%di"]),
        (
            0,
            FetchError {
                kind: UsedArgName,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["=%di"]),
        (
            0,
            FetchError {
                kind: NoArgName,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["1a=%di"]),
        (
            0,
            FetchError {
                kind: BadArgName,
                pos: 0
            }
        )
    );
    let long = format!("{}=%di", "n".repeat(33));
    assert_eq!(
        compile_all(V6, Entry, &Proto, &[&long]).unwrap_err().1.kind,
        ArgNameTooLong
    );
    let ok = format!("{}=%di", "n".repeat(32));
    assert!(compile_all(V6, Entry, &Proto, &[&ok]).is_ok());
}

#[test]
fn record_layout() {
    let args = compile_all(
        V6,
        Site::Inside,
        &NoBtf,
        &["a=%di:u8", "b=$comm", "c=+0(%si):u32[3]", "d=%dx"],
    )
    .unwrap();
    let layout: Vec<(u32, u32)> = args.iter().map(|a| (a.offset, a.size())).collect();
    assert_eq!(layout, [(0, 1), (1, 4), (5, 12), (17, 8)]);
    // 3072 bytes of fields at most: 48 arrays of 64 bytes fill it exactly.
    let words: Vec<String> = (0..49).map(|i| format!("a{i}=+0(%di):u8[64]")).collect();
    let refs: Vec<&str> = words.iter().map(|s| s.as_str()).collect();
    let e = compile_all(V6, Site::Inside, &NoBtf, &refs).unwrap_err();
    // The kernel's caret stays where the dereference left it: at `%di`.
    assert_eq!(
        e,
        (
            48,
            FetchError {
                kind: EventTooBig,
                pos: "a48=+0(".len()
            }
        )
    );
    assert!(compile_all(V6, Site::Inside, &NoBtf, &refs[..48]).is_ok());
}

#[test]
fn too_many_arguments() {
    let words: Vec<String> = (0..129).map(|i| format!("a{i}=%di")).collect();
    let refs: Vec<&str> = words.iter().map(|s| s.as_str()).collect();
    let e = compile_all(V6, Site::Inside, &NoBtf, &refs).unwrap_err();
    // Checked before any word is parsed, and blamed on the first (7.3's
    // caret; 6.12 writes no error_log entry).
    assert_eq!(
        e,
        (
            0,
            FetchError {
                kind: TooManyArgs,
                pos: 0
            }
        )
    );
    // compile() alone (without check_words) still stops at 128.
    let mut c = Compiler::new(V6, Site::Inside, &NoBtf);
    let mut done = Vec::new();
    for w in &refs[..128] {
        let a = c.compile(w, &done).unwrap();
        done.push(a);
    }
    assert_eq!(c.compile(refs[128], &done).unwrap_err().kind, TooManyArgs);
    assert_eq!(TooManyArgs.errno(), batchprobe_host_tests::errno::E2BIG);
}

#[test]
fn return_probes_keep_entry_arguments() {
    let mut c = Compiler::new(V6, Site::Return, &Proto);
    let mut args = Vec::new();
    for w in [
        "$arg3",
        "$retval",
        "x=$arg1",
        "y=+8($arg3):u32",
        "name:string",
    ] {
        let a = c.compile(w, &args).unwrap();
        args.push(a);
    }
    let progs: Vec<Vec<Insn>> = args.iter().map(|a| a.program().to_vec()).collect();
    assert_eq!(
        progs,
        [
            vec![EntryData(0), StRaw(4)],
            vec![Retval, StRaw(8)],
            vec![EntryData(8), StRaw(8)],
            vec![EntryData(0), StMem(4, 8)],
            vec![EntryData(16), StString(0)],
        ]
    );
    assert_eq!(c.entry_args(), [2, 0, 1]);
    let names: Vec<String> = args.iter().map(|a| a.name.to_string()).collect();
    assert_eq!(names, ["flags", "arg2", "x", "y", "name"]);
    // BTF types `$retval` (a long: s64) and `flags` (an int: s32).
    assert_eq!(args[1].ty.name, "s64");
    assert_eq!(args[0].ty.name, "s32");
}

#[test]
fn dollar_arg_words_checked_first() {
    let e = |words: &[&str]| compile_all(V6, Site::Entry, &Proto, words).unwrap_err();
    // The kernel checks every `$arg` word before it parses any argument.
    assert_eq!(
        e(&["%xx", "$arg0"]),
        (
            1,
            FetchError {
                kind: BadArgNum,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["%xx", "$argv"]),
        (
            1,
            FetchError {
                kind: BadVar,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["$arg*", "$arg*"]),
        (
            1,
            FetchError {
                kind: DoubleArgs,
                pos: 0
            }
        )
    );
    assert_eq!(
        e(&["$arg1", "$arg*"]),
        (
            1,
            FetchError {
                kind: ArgStarUnsupported,
                pos: 0
            }
        )
    );
    // 128 bytes of rewritten words: `name:u32` and a NUL are 9.
    let words: Vec<&str> = std::iter::repeat_n("$arg2:u32", 15).collect();
    assert_eq!(
        e(&words),
        (
            14,
            FetchError {
                kind: ArgsTooLong,
                pos: 0
            }
        )
    );
    let e = Compiler::new(V6, Site::Inside, &Proto).check_words(["%di", "$arg1"].into_iter());
    assert_eq!(
        e,
        Err((
            1,
            FetchError {
                kind: NoFentryArgs,
                pos: 0
            }
        ))
    );
}

#[test]
fn btf_parameters() {
    use Site::*;
    assert_eq!(prog(Entry, "file"), [Arg(0), StRaw(8)]);
    // A `char *` parameter: the string it points to (the kernel adds a
    // dereference, which the store takes over, as for `+0(%si):string`).
    assert_eq!(prog(Entry, "name:string"), [Arg(1), StString(0)]);
    assert_eq!(prog(Entry, "name:ustring"), [Arg(1), StUString(0)]);
    // `char[]` is read in place: only a member can be one, not a value.
    assert_eq!(err(V6, Entry, "buf:string"), (BadString, 4));
    assert_eq!(err(V6, Entry, "flags:string"), (BadType4Str, 0));
    assert_eq!(err(V6, Entry, "nope"), (NoBtfArg, 0));
    assert_eq!(err(V6, Inside, "file"), (NosupBtfArg, 0));
    assert_eq!(err(V6, Entry, "file->f_mode"), (BtfFieldUnsupported, 6));
    assert_eq!(err(V6, Entry, "x=file.f_mode"), (NosupDatArg, 7));
    assert_eq!(err(V6, Entry, "flags->x"), (NoPtrStrct, 7));
    assert_eq!(err(V6, Entry, "file-x"), (BadHyphen, 4));
    let e = Compiler::new(V6, Site::Return, &Void)
        .compile("$retval", &[])
        .unwrap_err();
    assert_eq!(e.kind, NoRetval);
    let e = Compiler::new(V6, Site::Entry, &NoBtf)
        .compile("file", &[])
        .unwrap_err();
    assert_eq!(e.kind, NoBtfEntry);
    // Without BTF, `$retval` is the plain register.
    let a = Compiler::new(V6, Site::Return, &NoBtf)
        .compile("$retval", &[])
        .unwrap();
    assert_eq!((a.program(), a.ty.name), (&[Retval, StRaw(8)][..], "x64"));
}

#[test]
fn variables_refused() {
    use Site::*;
    assert_eq!(err(V6, Entry, "$retval"), (RetvalOnProbe, 0));
    assert_eq!(err(V6, Inside, "$arg1"), (NoFentryArgs, 0));
    assert_eq!(err(V6, Entry, "$arg0"), (BadArgNum, 0));
    assert_eq!(err(V6, Entry, "$arg5"), (NoBtfArg, 0));
    assert_eq!(err(V6, Entry, "$arg1x"), (BadVar, 0));
    assert_eq!(err(V6, Entry, "$arg"), (BadVar, 0));
    let raw = |w| {
        Compiler::new(V6, Site::Entry, &NoBtf)
            .compile(w, &[])
            .map(|a| a.program().to_vec())
    };
    assert_eq!(raw("$arg2049").unwrap_err().kind, BadArgNum);
    assert_eq!(raw("$arg2048"), Ok(vec![Arg(2047), StRaw(8)]));
    assert_eq!(raw("$arg*").unwrap_err().kind, NosupBtfArg);
    assert_eq!(err(V6, Entry, "$argx"), (BadVar, 0));
    assert_eq!(err(V6, Entry, "x=$stack2049"), (BadStackNum, 2));
    assert_eq!(err(V6, Entry, "$stackx"), (BadVar, 0));
    assert_eq!(err(V6, Entry, "$stack1x"), (BadVar, 0));
    assert_eq!(err(V6, Entry, "$foo"), (BadVar, 0));
    assert_eq!(err(V6, Entry, "$current"), (BadVar, 0));
    assert_eq!(err(V6, Entry, "$arg*"), (ArgStarUnsupported, 0));
}

#[test]
fn syntax_refused_with_the_kernels_caret() {
    use Site::*;
    assert_eq!(err(V6, Inside, "%dix"), (BadRegName, 0));
    assert_eq!(err(V6, Inside, "a=%ds"), (BadRegName, 2));
    assert_eq!(err(V6, Inside, "@0xzz"), (BadMemAddr, 0));
    assert_eq!(err(V6, Inside, "@+8"), (FileOnKprobe, 0));
    // `@SYM` text is read only when the probe is registered (`record.rs`).
    assert_eq!(
        prog(Inside, "@sym+x"),
        [Symbol("sym+x"), Imm(0), StMem(8, 0)]
    );
    assert_eq!(prog(Inside, "@"), [Symbol(""), Imm(0), StMem(8, 0)]);
    assert_eq!(err(V6, Inside, "\\abc"), (BadImm, 1));
    assert_eq!(err(V6, Inside, "\\\"abc"), (ImmStrNoClose, 5));
    assert_eq!(err(V6, Inside, "+8%di"), (DerefNeedBrace, 0));
    assert_eq!(err(V6, Inside, "+x(%di)"), (BadDerefOffs, 0));
    assert_eq!(err(V6, Inside, "+8(%di"), (DerefOpenBrace, 6));
    assert_eq!(err(V6, Inside, "+0($comm)"), (CommCantDeref, 3));
    assert_eq!(err(V6, Inside, "+0(\\\"s\")"), (CommCantDeref, 3));
    assert_eq!(err(V6, Inside, "+0(%xx)"), (BadRegName, 3));
    // The kernel's caret falls a byte short after a `u`.
    assert_eq!(err(V6, Inside, "+u0(%xx)"), (BadRegName, 3));
    assert_eq!(err(V6, Inside, "a=+0(+8(%xx))"), (BadRegName, 8));
    assert_eq!(err(V6, Inside, "#"), (BadFetchArg, 0));
    assert_eq!(err(V6, Inside, "(%di)"), (BadFetchArg, 0));
    assert_eq!(err(V6, Inside, "x="), (NoArgBody, 2));
    let long = format!("+0({}%di)", " ".repeat(60));
    assert_eq!(err(V6, Inside, &long), (ArgTooLong, 0));
    assert!(long.len() <= V7.max_argstr_len);
}

#[test]
fn types_refused() {
    use Site::*;
    assert_eq!(err(V6, Inside, "%di:u7"), (BadType, 4));
    assert_eq!(err(V6, Inside, "x=%di:"), (BadType, 6));
    assert_eq!(err(V6, Inside, "%di:string"), (BadString, 4));
    assert_eq!(err(V6, Inside, "$comm:u32"), (NeedStringType, 6));
    assert_eq!(err(V6, Inside, "$comm:string[2]"), (NeedStringType, 6));
    assert_eq!(err(V6, Inside, "$stack:symstr"), (BadSymString, 7));
    assert_eq!(err(V6, Inside, "$comm:symstr"), (NeedStringType, 6));
    assert_eq!(err(V6, Inside, "+0(%di):u8[4"), (ArrayNoClose, 12));
    assert_eq!(err(V6, Inside, "+0(%di):u8[4]x"), (BadArraySuffix, 13));
    assert_eq!(err(V6, Inside, "+0(%di):u8[0]"), (BadArrayNum, 11));
    assert_eq!(err(V6, Inside, "+0(%di):u8[x]"), (BadArrayNum, 11));
    assert_eq!(err(V6, Inside, "+0(%di):u8[65]"), (ArrayTooBig, 11));
    assert_eq!(err(V6, Inside, "%di:u8[2]"), (BadString, 4));
    assert_eq!(err(V6, Inside, "%di:b0@1/8"), (BadBitfield, 4));
    // After a dereference the caret is counted from its inner argument.
    assert_eq!(err(V6, Inside, "+0(%di):b0@1/8"), (BadBitfield, 3 + 8));
    assert_eq!(
        err(V6, Inside, "x=+0(+0(%di)):b9@0/8"),
        (BadBitfield, 5 + 12)
    );
    assert_eq!(err(V6, Inside, "%di:b4@5/8"), (BadBitfield, 4));
    assert_eq!(err(V6, Inside, "%di:b4@/8"), (BadBitfield, 4));
    assert_eq!(err(V6, Inside, "%di:b4@1/9"), (BadType, 4));
    assert_eq!(err(V6, Inside, "%di:%pd"), (DentryUnsupported, 4));
}

#[test]
fn nesting_limits() {
    // 6.12: sixteen slots, the last the end; a store needs one.
    let deep = |n: usize| format!("{}%di{}", "+0(".repeat(n), ")".repeat(n));
    assert!(one(V6, Site::Inside, &deep(14)).is_ok());
    assert_eq!(err(V6, Site::Inside, &deep(15)).0, TooManyOps);
    // 7.3: eight nested dereferences at most.
    assert!(one(V7, Site::Inside, &deep(8)).is_ok());
    assert_eq!(err(V7, Site::Inside, &deep(9)), (TooManyNested, 24));
}

#[test]
fn linux_7_3_additions() {
    let p = |w| one(V7, Site::Inside, w).map(|a| a.program().to_vec());
    assert_eq!(p("$current"), Ok(vec![Current, StRaw(8)]));
    assert_eq!(p("+16($current):u32"), Ok(vec![Current, StMem(4, 16)]));
    assert_eq!(
        p("this_cpu_ptr(@runqueues)"),
        Ok(vec![Symbol("runqueues"), Imm(0), CpuPtr, StRaw(8)])
    );
    assert_eq!(
        p("this_cpu_read(@cpu_number):s32"),
        Ok(vec![Symbol("cpu_number"), Imm(0), CpuPtr, StMem(4, 0)])
    );
    assert_eq!(p("this_cpu_ptr(%di)"), Ok(vec![Reg(112), CpuPtr, StRaw(8)]));
    assert_eq!(
        err(V7, Site::Inside, "this_cpu_ptr(%di"),
        (DerefOpenBrace, 16)
    );
    // Typecasts: refused as batchprobe's limit, or in the kernel's words
    // where their syntax is wrong.
    assert_eq!(
        err(V7, Site::Inside, "(task_struct)%di->pid"),
        (NosupBtfArg, 0)
    );
    assert_eq!(
        err(V7, Site::Entry, "(task_struct)%di->pid"),
        (TypecastUnsupported, 0)
    );
    assert_eq!(
        err(V7, Site::Entry, "(task_struct)(file)->pid"),
        (TypecastUnsupported, 0)
    );
    assert_eq!(
        err(V7, Site::Entry, "(task_struct)+8(file)->pid"),
        (TypecastUnsupported, 0)
    );
    assert_eq!(err(V7, Site::Entry, "(s)(%di)"), (TypecastReqField, 8));
    assert_eq!(err(V7, Site::Entry, "(s)(%di"), (DerefOpenBrace, 3));
    assert_eq!(err(V7, Site::Entry, "(s)+8(%di)x"), (TypecastReqField, 10));
    assert_eq!(err(V7, Site::Entry, "(s)@sym+8->x"), (TypecastSymOffset, 3));
    assert_eq!(err(V7, Site::Entry, "(s)%di"), (TypecastReqField, 6));
    assert_eq!(err(V7, Site::Entry, "(s"), (DerefOpenBrace, 2));
    // Found by the property test: the kernel's caret past the word's end
    // (the inner argument's 13 plus the type's 21).
    assert_eq!(
        err(V7, Site::Entry, "this_cpu_ptr($stack):string"),
        (BadString, 34)
    );
    // Found by the property test: a hyphen after `$current`.
    assert_eq!(err(V7, Site::Entry, "$current-"), (BadHyphen, 8));
    assert_eq!(
        err(V7, Site::Inside, "$current->pid"),
        (BtfFieldUnsupported, 10)
    );
    // 255 bytes of argument on 7.3.
    let long = format!("\\\"{}\"", "a".repeat(240));
    assert!(one(V7, Site::Inside, &long).is_ok());
    assert_eq!(err(V6, Site::Inside, &long), (ArgTooLong, 0));
}

#[test]
fn kernel_numbers() {
    use Site::*;
    assert_eq!(prog(Inside, "\\010"), [Imm(8), StRaw(8)]);
    assert_eq!(prog(Inside, "\\+5"), [Imm(5), StRaw(8)]);
    assert_eq!(err(V6, Inside, "\\0x").0, BadImm);
    assert_eq!(err(V6, Inside, "\\18446744073709551616").0, BadImm);
    assert_eq!(
        prog(Inside, "\\18446744073709551615"),
        [Imm(u64::MAX), StRaw(8)]
    );
    assert_eq!(
        prog(Inside, "-0x8000000000000000(%di)"),
        [Reg(112), StMem(8, i64::MIN)]
    );
    assert_eq!(err(V6, Inside, "-0x8000000000000001(%di)").0, BadDerefOffs);
    assert_eq!(prog(Inside, "++5(%di)"), [Reg(112), StMem(8, 5)]);
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// Fragments of the grammar, glued at random into argument-like words.
    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("%di".to_string()),
            Just("%xx".to_string()),
            Just("$arg1".to_string()),
            Just("$arg".to_string()),
            Just("$stack".to_string()),
            Just("$retval".to_string()),
            Just("$comm".to_string()),
            Just("$current".to_string()),
            Just("@jiffies".to_string()),
            Just("@0x10".to_string()),
            Just("\\\"".to_string()),
            Just("\\".to_string()),
            Just("+".to_string()),
            Just("-".to_string()),
            Just("+u".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just("->".to_string()),
            Just(".".to_string()),
            Just(":".to_string()),
            Just("=".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("this_cpu_read(".to_string()),
            Just("this_cpu_ptr(".to_string()),
            Just("file".to_string()),
            Just("name".to_string()),
            Just(":string".to_string()),
            Just(":symstr".to_string()),
            Just(":u8".to_string()),
            Just(":b3@4/8".to_string()),
            "[0-9a-fx]{0,20}",
            "[ -~]{0,4}",
        ]
    }

    fn word() -> impl Strategy<Value = String> {
        proptest::collection::vec(fragment(), 0..12).prop_map(|v| v.concat())
    }

    fn site() -> impl Strategy<Value = Site> {
        prop_oneof![Just(Site::Entry), Just(Site::Inside), Just(Site::Return)]
    }

    proptest! {
        // The 10,000 random lines.
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// No panic; a refusal points inside the word; what is accepted is a
        /// well-formed program: loads, one store, then modifiers and the end.
        #[test]
        fn compiles_or_refuses(words in proptest::collection::vec(word(), 1..4), s in site(), v7 in any::<bool>()) {
            let d = if v7 { V7 } else { V6 };
            let mut c = Compiler::new(d, s, &Proto);
            let mut done: Vec<ProbeArg> = Vec::new();
            for w in &words {
                match c.compile(w, &done) {
                    Ok(a) => {
                        let p = a.program();
                        prop_assert!(p.len() < FETCH_INSN_MAX);
                        prop_assert_eq!(a.code[p.len()], Insn::End);
                        let stores = p.iter().filter(|i| matches!(i,
                            StRaw(_) | StMem(..) | StUMem(..) | StString(_) | StUString(_) | StSymstr)).count();
                        prop_assert_eq!(stores, 1, "{}: {:?}", w, p);
                        prop_assert!(!p.contains(&Nop), "{}: {:?}", w, p);
                        prop_assert!(a.offset + a.size() <= MAX_PROBE_EVENT_SIZE);
                        if s != Site::Return {
                            prop_assert!(!p.iter().any(|i| matches!(i, EntryData(_) | Retval)));
                        }
                        done.push(a);
                    }
                    Err(e) => {
                        // The kernel's caret after a dereference or a
                        // `this_cpu_*()` is the inner argument's offset plus
                        // the type's offset in the body: it can pass the
                        // word's end, never twice its length.
                        prop_assert!(e.pos <= 2 * w.len(), "{}: {:?}", w, e);
                        prop_assert!(!d.error_text(e.kind).is_empty());
                    }
                }
            }
        }
    }
}

/// A `long h(void)`: BTF knows it, and it has no parameters.
struct NoParams;

impl Prototype<'static> for NoParams {
    fn found(&self) -> bool {
        true
    }
    fn ret(&self) -> Option<BtfType> {
        Some(BtfType::Scalar("s64"))
    }
    fn nr_params(&self) -> usize {
        0
    }
    fn param(&self, _: &str) -> Option<(u32, BtfType)> {
        None
    }
    fn param_name(&self, _: usize) -> Option<&'static str> {
        None
    }
}

/// What an independent review against the kernel sources found (carets,
/// orders and kinds), each as the kernel does it.
#[test]
fn review_findings() {
    use Site::*;
    // The caret after `+-N(`: a byte short, as after `+u`.
    assert_eq!(err(V6, Inside, "+-8(%xx)"), (BadRegName, 3));
    assert_eq!(err(V6, Inside, "+u-8(%xx)"), (BadRegName, 3));
    assert_eq!(err(V6, Inside, "+-8(%di):b0@0/8"), (BadBitfield, 12));
    assert_eq!(prog(Inside, "+-8(%di)"), [Reg(112), StMem(8, -8)]);
    // `->` on a pointer to something other than a structure.
    assert_eq!(err(V6, Entry, "name->x"), (BadBtfTid, 6));
    // `%pd` only as the whole type.
    assert_eq!(err(V6, Inside, "+0(%di):%pd[2]"), (BadType, 8));
    // `NAME=` looked for in a rewritten `$argN` word too.
    assert_eq!(err(V6, Entry, "$arg1:u8=x"), (BadArgName, 0));
    // N is the kernel's `int`.
    let a = one(V6, Entry, "$arg4294967297").unwrap();
    assert_eq!(
        (a.name.to_string(), a.program()),
        ("file".to_string(), &[Arg(0), StRaw(8)][..])
    );
    assert_eq!(err(V6, Entry, "$arg4294967296"), (BadArgNum, 0));
    // Bitfields in wrapping arithmetic; 7.3's simple_strtoul saturates.
    assert_eq!(
        prog(Inside, "%di:b0xffffffffffffffff@1/8"),
        [
            Reg(112),
            StRaw(1),
            ModBitfield {
                basesize: 1,
                lshift: 8,
                rshift: 9
            }
        ]
    );
    assert!(one(V6, Inside, "%di:b18446744073709551617@0/8").is_ok());
    assert_eq!(
        err(V7, Inside, "%di:b18446744073709551617@0/8"),
        (BadBitfield, 4)
    );
    // The kernel's isalpha takes Latin-1 letters: a BTF name, not found.
    assert_eq!(err(V6, Entry, "x=\u{e9}"), (NoBtfArg, 2));
    // More than 128 words: checked before any is parsed, blamed on the first.
    let words: Vec<&str> = std::iter::once("%xx")
        .chain(std::iter::repeat_n("%di", 128))
        .collect();
    let e = Compiler::new(V7, Entry, &Proto).check_words(words.iter().copied());
    assert_eq!(
        e,
        Err((
            0,
            FetchError {
                kind: TooManyArgs,
                pos: 0
            }
        ))
    );
    // A typecast's inner argument is parsed, a nesting level deeper.
    assert_eq!(err(V7, Entry, "(task_struct)%xx->pid"), (BadRegName, 13));
    let deep = format!("(task_struct){}%di{}->pid", "+0(".repeat(8), ")".repeat(8));
    assert_eq!(err(V7, Entry, &deep), (TooManyNested, 34));
    // Once BTF was looked up, a function without parameters has no such name.
    let mut c = Compiler::new(V6, Return, &NoParams);
    let first = c.compile("$retval", &[]).unwrap();
    assert_eq!(c.compile("foo", &[first]).unwrap_err().kind, NoBtfArg);
    let e = Compiler::new(V6, Entry, &NoParams)
        .compile("foo", &[])
        .unwrap_err();
    assert_eq!(e.kind, NoBtfEntry);
}
