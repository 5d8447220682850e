// SPDX-License-Identifier: GPL-2.0

//! What batchprobe's fetch-argument compiler makes of each case of a corpus,
//! for one kernel tree, written for `selftests/test_fetchargs_oracle.sh`,
//! which defines the same cases in that kernel's `kprobe_events` and
//! compares: the fields and `print fmt` of each event the kernel accepts,
//! the words and caret of each refusal.
//!
//! Usage: `fetch-oracle KDIR CORPUS > EXPECTED`. A corpus line is `p ARGS`
//! (a probe at `vfs_read`'s entry) or `r ARGS` (at its return); `#` lines
//! and blank ones are skipped. An expected line is tab-separated:
//! `SITE ARGS ok FIELDS PRINTFMT`, `SITE ARGS err COLUMN TEXT`,
//! `SITE ARGS nosup TEXT` (the kernel takes it, batchprobe refuses it), or
//! `SITE ARGS skip WHY` (asking this kernel would trip one of its bugs).

use std::fmt::Write as _;
use std::{env, fs, process};

use batchprobe_host_tests::fetch::{Compiler, Dialect, ErrorKind, ProbeArg, Site};
use batchprobe_host_tests::format::{field_type, print_fmt, Head};
use batchprobe_host_tests::record::resolve_symbols;
use batchprobe_host_tests::vfs_read::VfsRead;

fn die(msg: &str) -> ! {
    eprintln!("fetch-oracle: {msg}");
    process::exit(1)
}

/// The tree's grammar: its release, stack size (KASAN doubles it) and BTF
/// arguments, read from its `Makefile` and `.config`.
fn dialect(kdir: &str) -> Dialect {
    let makefile = fs::read_to_string(format!("{kdir}/Makefile"))
        .unwrap_or_else(|e| die(&format!("{kdir}/Makefile: {e}")));
    let config = fs::read_to_string(format!("{kdir}/.config"))
        .unwrap_or_else(|e| die(&format!("{kdir}/.config: {e}")));
    let var = |name: &str| -> u32 {
        makefile
            .lines()
            .find_map(|l| {
                l.strip_prefix(name)?
                    .trim_start()
                    .strip_prefix('=')?
                    .trim()
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| die(&format!("no {name} in {kdir}/Makefile")))
    };
    let set = |opt: &str| config.lines().any(|l| l == format!("{opt}=y"));
    let thread_size = if set("CONFIG_KASAN") { 32768 } else { 16384 };
    let btf = set("CONFIG_PROBE_EVENTS_BTF_ARGS") && set("CONFIG_DEBUG_INFO_BTF");
    match (var("VERSION"), var("PATCHLEVEL")) {
        (6, 12) => Dialect::linux_6_12(thread_size, btf),
        (7, 3) => Dialect::linux_7_3(thread_size, btf),
        (v, p) => die(&format!(
            "{kdir}: Linux {v}.{p}: no fetch-argument dialect for it"
        )),
    }
}

/// `format`'s line for a field, tabs left out, as `f_show` writes it.
fn field_line(a: &ProbeArg<'_>, head: u32, out: &mut String) {
    let mut ty = String::new();
    field_type(a, &mut ty).unwrap();
    let name = a.name.to_string();
    match ty.find('[') {
        Some(i) if !ty.starts_with("__data_loc") => write!(out, "field:{} {name}[];", &ty[..i]),
        _ => write!(out, "field:{ty} {name};"),
    }
    .unwrap();
    write!(
        out,
        "offset:{};size:{};signed:{};",
        head + a.offset,
        a.size(),
        u8::from(a.ty.signed)
    )
    .unwrap();
}

fn case(d: Dialect, site: &str, args: &str) -> String {
    let (s, head, h) = match site {
        "p" => (Site::Entry, 16, Head::Entry),
        "r" => (Site::Return, 24, Head::Return),
        _ => die(&format!("bad site {site:?}")),
    };
    let mut c = Compiler::new(d, s, &VfsRead);
    let mut done = Vec::new();
    // The kernel's command: `SITE:bpo/eN vfs_read ARGS`; its caret column
    // counts from the command's start, the event word being 2 + 4 bytes
    // of `:bpo/` and the case number.
    let base = site.len() + ":bpo/eNNN vfs_read ".len();
    let words: Vec<&str> = args.split(' ').collect();
    let column = |i: usize| base + words[..i].iter().map(|w| w.len() + 1).sum::<usize>();
    if let Err((i, e)) = c.check_words(words.iter().copied()) {
        // 6.12 refuses too many arguments with E2BIG and no error_log entry.
        if e.kind == ErrorKind::TooManyArgs && !d.linux_7_3 {
            return "err\t-\t(no error_log entry)".to_string();
        }
        // 6.12's traceprobe_expand_meta_args returns on `$arg0` (its only
        // BAD_ARG_NUM) without freeing its new argv: kmemleak would report
        // the kernel's leak. 7.3 frees it (`__free(kfree)`).
        if e.kind == ErrorKind::BadArgNum && !d.linux_7_3 {
            return "skip\tLinux 6.12 leaks its rewritten argv on this refusal (fixed in 7.3)"
                .to_string();
        }
        return match e.kind.unsupported() {
            true => format!("nosup\t{}", d.error_text(e.kind)),
            false => format!("err\t{}\t{}", column(i) + e.pos, d.error_text(e.kind)),
        };
    }
    let mut col = base;
    for w in words {
        match c.compile(w, &done) {
            Ok(a) => done.push(a),
            Err(e) if e.kind.unsupported() => return format!("nosup\t{}", d.error_text(e.kind)),
            Err(e) => return format!("err\t{}\t{}", col + e.pos, d.error_text(e.kind)),
        }
        col += w.len() + 1;
    }
    // At registration the kernel reads each `@SYM` (every symbol the corpus
    // names exists: only an empty one is unknown), and blames the probe's
    // address word.
    let address_word = site.len() + ":bpo/eNNN ".len();
    for a in &mut done {
        if let Err((kind, _)) = resolve_symbols(a, |_| Some(0xffff_ffff_8100_0000)) {
            return format!("err\t{address_word}\t{}", d.error_text(kind));
        }
    }
    let mut fields = Vec::new();
    for a in &done {
        let mut l = String::new();
        field_line(a, head, &mut l);
        fields.push(l);
    }
    let mut pf = String::new();
    print_fmt(h, &done, &mut pf).unwrap();
    format!("ok\t{}\t{pf}", fields.join("|"))
}

fn main() {
    let argv: Vec<String> = env::args().collect();
    if argv.len() != 3 {
        die("usage: fetch-oracle KDIR CORPUS");
    }
    let d = dialect(&argv[1]);
    let corpus = fs::read_to_string(&argv[2]).unwrap_or_else(|e| die(&format!("{}: {e}", argv[2])));
    for line in corpus
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (site, args) = line
            .split_once(' ')
            .unwrap_or_else(|| die(&format!("bad corpus line {line:?}")));
        println!("{site}\t{args}\t{}", case(d, site, args));
    }
}
