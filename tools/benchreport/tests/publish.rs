// SPDX-License-Identifier: GPL-2.0

//! `benchreport publish`: the committed BENCHMARKS.md is what the committed
//! raw results make (so that every figure on it comes from a file under
//! bench/results/), it stays short, its links resolve; and on made-up
//! results, a figure whose probes were not live is not shown.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bp-publish-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `publish` on `results`; the page's text, or the error.
fn publish(results: &Path, out: &Path) -> Result<String, String> {
    let md = out.join("BENCHMARKS.md");
    let o = Command::new(env!("CARGO_BIN_EXE_benchreport"))
        .arg("publish")
        .arg("--results")
        .arg(results)
        .arg("--markdown")
        .arg(&md)
        .arg("--svg-dir")
        .arg(out.join("svg"))
        .output()
        .expect("benchreport runs");
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(std::fs::read_to_string(md).unwrap())
}

#[test]
fn the_committed_page_is_what_the_committed_results_make() {
    let out = tmp("committed");
    let made = publish(&root().join("bench/results"), &out).unwrap();
    let committed = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap();
    assert!(
        made == committed,
        "BENCHMARKS.md is not what bench/results/ makes: run `make bench-publish` \
         (made: {}/BENCHMARKS.md)",
        out.display()
    );
    let lines = committed.lines().count();
    assert!(
        lines < 300,
        "BENCHMARKS.md has {lines} lines (fewer than 300 wanted)"
    );
    // Every relative link on the page resolves, plots included.
    for target in committed
        .split("](")
        .skip(1)
        .filter_map(|s| s.split(')').next())
        .filter(|t| !t.starts_with("http"))
    {
        let path = target.split('#').next().unwrap();
        assert!(
            root().join(path).exists(),
            "BENCHMARKS.md links {target}, which does not exist"
        );
    }
    // And every plot it names is the one the results make.
    for entry in std::fs::read_dir(out.join("svg")).into_iter().flatten() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let committed = std::fs::read(root().join("docs/bench").join(&name))
            .unwrap_or_else(|_| panic!("docs/bench/{name:?} missing: run make bench-publish"));
        assert!(
            committed == std::fs::read(entry.path()).unwrap(),
            "docs/bench/{name:?} is not what bench/results/ makes"
        );
    }
}

/// A made-up `make bench` run in `results/dir` that ran `parts`, its BENCH
/// lines `lines`.
fn add_run(results: &Path, dir: &str, parts: &str, lines: &str) {
    let d = results.join(dir);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("meta.txt"),
        format!(
            "date=2026-01-02\naccel=tcg\ntcg_thread=single\nvcpus=2\nhost_cpu=X\nhost_cpus=2\n\
             flavors=stock-7.3\nboots_at_once=1\ncommit=abc1234\nparts={parts}\nflavor=stock-7.3\n"
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("raw.txt"),
        format!("BENCHINFO kernel=7.3.4\nBENCHINFO peer_runs=1\n{lines}"),
    )
    .unwrap();
}

/// One made-up run of the peers, `results/2026-01-02-stock-7.3`.
fn fake_run(results: &Path, lines: &str) {
    add_run(results, "2026-01-02-stock-7.3", "peers", lines);
}

/// A kprobe_multi attach of 1000 functions in `ms`.
fn kprobe_multi(ms: u64) -> String {
    format!(
        "BENCH method=peer-kprobe-multi n=1000 run=1 phase=attach ns={} got=1000\n",
        ms * 1_000_000
    )
}

#[test]
fn a_figure_not_live_is_not_shown() {
    let out = tmp("notlive");
    let results = out.join("results");
    fake_run(
        &results,
        "BENCH method=peer-bp-fprobe n=1000 run=1 phase=attach ns=50000000 got=1000\n\
         BENCH method=peer-bp-fprobe n=1000 run=1 phase=detach ns=40000000 got=1000\n\
         BENCH method=peer-bp-direct n=1000 run=2 phase=attach ns=7000000 got=12\n\
         BENCH method=peer-bp-direct n=1000 run=2 phase=detach ns=7000000 got=12\n\
         BENCH method=peer-bp-fprobe-cold n=1000 run=1 phase=insmod ns=30000000\n\
         BENCH method=peer-bp-fprobe-cold n=1000 run=1 phase=attach ns=170000000 got=1000\n\
         BENCH method=peer-bp-fprobe-loaded n=1000 run=1 phase=fill ns=900000000\n\
         BENCH method=peer-bp-fprobe-loaded n=1000 run=1 phase=attach ns=80000000 got=1000\n\
         BENCH method=peer-bp-direct-cold n=1000 run=1 phase=insmod ns=30000000\n\
         BENCH method=peer-bp-direct-cold n=1000 run=1 phase=attach ns=9000000 got=12\n\
         BENCH method=peer-kprobe-multi n=1000 run=3 phase=attach ns=100000000 got=1000\n\
         BENCH method=peer-kprobe-multi n=1000 run=3 phase=detach ns=60000000 got=1000\n\
         BENCH method=peer-fentry-fexit n=1000 status=over-budget projected_s=900\n\
         BENCH method=peer-bp-exit n=1000 run=1 phase=attach ns=60000000 got=1000\n",
    );
    let page = publish(&results, &out).unwrap();
    // The fprobe set: warm 50 ms (2.00× kprobe_multi's 100), cold 30 + 170
    // = 200 ms (0.50×), loaded earlier 80 ms (1.25×), detach 40 ms (1.50×).
    assert!(
        page.contains(
            "| 1000 | batchprobe, `p:` lines (one fprobe) | 50.0 | 200 (30.0 + 170) | 80.0 | 40.0 | 2.00× / 0.50× / 1.25×, 1.50× |"
        ),
        "{page}"
    );
    // 12 of 1000 attached, warm and cold: no figure, no ratio; no point
    // loaded earlier.
    assert!(
        page.contains("| 1000 | batchprobe, `d:` lines (one ftrace_ops) | not live (12 of 1000 attached) | not live (12 of 1000 attached) | not run | not live (12 of 1000 attached) | – / – / –, – |"),
        "{page}"
    );
    assert!(page.contains("over budget (900 s projected)"), "{page}");
    assert!(
        page.contains("bench/results/2026-01-02-stock-7.3/raw.txt"),
        "{page}"
    );
}

#[test]
fn the_latest_run_of_a_flavor_is_published() {
    let out = tmp("latest");
    let results = out.join("results");
    fake_run(&results, &kprobe_multi(1));
    add_run(&results, "2026-02-03-stock-7.3", "peers", &kprobe_multi(2));
    let page = publish(&results, &out).unwrap();
    assert!(page.contains("2026-02-03-stock-7.3/raw.txt"), "{page}");
    assert!(!page.contains("2026-01-02-stock-7.3/raw.txt"), "{page}");
}

#[test]
fn a_directory_not_named_as_results_is_refused() {
    let out = tmp("badname");
    let results = out.join("results");
    std::fs::create_dir_all(results.join("stock-7.3")).unwrap();
    let e = publish(&results, &out).unwrap_err();
    assert!(
        e.contains("not DATE-FLAVOR, DATE-cli-FLAVOR or DATE-check-LABEL"),
        "{e}"
    );
}

#[test]
fn a_run_named_with_its_time_is_its_flavors() {
    let out = tmp("timed");
    let results = out.join("results");
    add_run(
        &results,
        "2026-01-02-1553-stock-7.3",
        "peers",
        &kprobe_multi(1),
    );
    let page = publish(&results, &out).unwrap();
    assert!(page.contains("## Debian's 7.3 image (stock-7.3)"), "{page}");
    assert!(page.contains("2026-01-02-1553-stock-7.3/raw.txt"), "{page}");
}

#[test]
fn each_part_comes_from_the_latest_run_that_has_it() {
    let out = tmp("parts");
    let results = out.join("results");
    // An older run of the peers, then a newer one of the seed alone.
    fake_run(&results, &kprobe_multi(1));
    add_run(
        &results,
        "2026-02-03-stock-7.3",
        "seed",
        "BENCH method=tracefs n=256 run=1 phase=unregister_complete ns=3000000000 offset=5 got=256\n\
         BENCH method=batchprobe n=256 run=1 phase=unregister_complete ns=10000000 offset=5 got=256\n",
    );
    let page = publish(&results, &out).unwrap();
    assert!(page.contains("2026-02-03-stock-7.3/raw.txt"), "{page}");
    assert!(page.contains("2026-01-02-stock-7.3/raw.txt"), "{page}");
    assert!(
        page.contains("| remove | 3000 | 10.0 | **300×** |"),
        "{page}"
    );
    assert!(
        page.contains("| 1000 | one kprobe_multi link | 1.0 |"),
        "{page}"
    );
}

#[test]
fn a_kvm_run_is_not_called_tcg() {
    let out = tmp("kvm");
    let results = out.join("results");
    fake_run(&results, &kprobe_multi(1));
    let meta = results.join("2026-01-02-stock-7.3/meta.txt");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("accel=tcg", "accel=kvm")).unwrap();
    let page = publish(&results, &out).unwrap();
    assert!(!page.contains("Every figure is from QEMU TCG"), "{page}");
    assert!(page.contains("Each run says how its guest ran"), "{page}");
    assert!(page.contains("kernel 7.3.4, QEMU KVM, 2 vCPUs"), "{page}");
}

/// `make check`'s times as `scripts/check.sh` writes them.
const CHECK_TIMES: &str = "\
# make check's times (scripts/check.sh), 2026-01-02 10:00 UTC
# commit abc1234
# host: 2 CPUs, Some CPU
CHECK step deps 3
CHECK flavors test stock-7.3
CHECK step kernel-test 650 built
CHECK step kernel-stock-7.3 400 prepared
CHECK step host-tests 120
CHECK step builds 300
CHECK guests accel=tcg tcg_thread=single vcpus=2 at_once=2 runs=stock-7.3,test,test@smp4
CHECK guest test 1267 passed=1740 failed=0 skipped=23 qemu_status=0
CHECK guest stock-7.3 2001 passed=1773 failed=0 skipped=11 qemu_status=0
CHECK guest test@smp4 399 passed=132 failed=0 skipped=1 qemu_status=0
CHECK step guests 2400
CHECK host passed=213 failed=0 skipped=0
CHECK total 3873
CHECK result passed=3858 failed=0 skipped=35
";

#[test]
fn check_times_are_a_row_each_from_their_file() {
    let out = tmp("checks");
    let results = out.join("results");
    let dir = results.join("2026-01-02-1000-check-test+stock-7.3");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("times.txt"), CHECK_TIMES).unwrap();
    let page = publish(&results, &out).unwrap();
    assert!(page.contains("## How long the checks take"), "{page}");
    let row = page
        .lines()
        .find(|l| l.contains("2026-01-02-1000-check-test+stock-7.3/times.txt"))
        .unwrap_or_else(|| panic!("no row: {page}"));
    // Before the guests: 3 + 650 + 400 + 120 + 300 s.
    for want in [
        "abc1234",
        "2 CPUs, Some CPU",
        "test stock-7.3 (cold; every program)",
        "test built 10m50s",
        "stock-7.3 prepared 6m40s",
        "| 24m33s (host tests 213/0/0) |",
        "40m00s: test 21m07s (1740/0/23), stock-7.3 33m21s (1773/0/11)",
        "**64m33s**",
        "3858 passed, 0 failed, 35 skipped",
    ] {
        assert!(row.contains(want), "{want:?} not in {row}");
    }
    assert!(
        page.contains("the fastest below took 64m33s (not met)"),
        "{page}"
    );
}

/// A newcomer's `make check` as `scripts/check.sh` writes it since the
/// kernels are made side by side and the slow programs left out.
const CHECK_TIMES_NORMAL: &str = "\
# make check's times (scripts/check.sh), 2026-01-03 10:00 UTC
# commit def5678
# host: 2 CPUs, Some CPU
CHECK step deps 3
CHECK flavors test stock-7.3
CHECK step kernel-test 650 built
CHECK step kernel-stock-7.3 400 prepared
CHECK step kernels 700
CHECK step host-tests 120
CHECK step builds 300
CHECK programs speed=normal slow_left_out=15
CHECK guests accel=tcg tcg_thread=single vcpus=2 at_once=2 runs=stock-7.3,test
CHECK guest test 500 passed=1500 failed=0 skipped=20 qemu_status=0
CHECK program test test_a.sh 12.5
CHECK program test test_b.sh 31.0
CHECK guest stock-7.3 600 passed=1500 failed=0 skipped=10 qemu_status=0
CHECK program stock-7.3 test_a.sh 44.4
CHECK program stock-7.3 test_b.sh 2.0
CHECK program stock-7.3 test_c.sh 19.9
CHECK step guests 600
CHECK host passed=213 failed=0 skipped=0
CHECK total 1723
CHECK result passed=3213 failed=0 skipped=30
";

#[test]
fn a_newcomer_check_says_what_it_left_out_and_its_slowest_programs() {
    let out = tmp("checksnormal");
    let results = out.join("results");
    for (name, text) in [
        ("2026-01-02-1000-check-test+stock-7.3", CHECK_TIMES),
        ("2026-01-03-1000-check-test+stock-7.3", CHECK_TIMES_NORMAL),
    ] {
        let dir = results.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("times.txt"), text).unwrap();
    }
    let page = publish(&results, &out).unwrap();
    let row = |name: &str| {
        page.lines()
            .find(|l| l.contains(&format!("{name}/times.txt")))
            .unwrap_or_else(|| panic!("no row {name}: {page}"))
            .to_string()
    };
    let old = row("2026-01-02-1000-check-test+stock-7.3");
    assert!(
        old.contains("test stock-7.3 (cold; every program)"),
        "{old}"
    );
    let new = row("2026-01-03-1000-check-test+stock-7.3");
    // Before the guests: 3 + 700 (the kernels side by side) + 120 + 300 s.
    for want in [
        "test stock-7.3 (cold; 15 programs left out, slow on a kernel)",
        "test built 10m50s, stock-7.3 prepared 6m40s, side by side 11m40s",
        "| 18m43s (host tests 213/0/0) |",
        "**28m43s**",
    ] {
        assert!(new.contains(want), "{want:?} not in {new}");
    }
    assert!(
        page.contains("the fastest below took 28m43s (met)"),
        "{page}"
    );
    assert!(page.contains("| program | test | stock-7.3 |"), "{page}");
    assert!(page.contains("| `test_a.sh` | 12 s | 44 s |"), "{page}");
    assert!(page.contains("| `test_b.sh` | 31 s | 2 s |"), "{page}");
    assert!(!page.contains("test_c.sh"), "{page}");
    let a = page.find("`test_a.sh`").unwrap();
    let b = page.find("`test_b.sh`").unwrap();
    assert!(a < b, "slowest first: {page}");

    // A `make check-all` of the same flavors, cold and quicker, is no
    // newcomer's check; its programs are the ones the slowest list reads.
    let all = CHECK_TIMES_NORMAL
        .replace("speed=normal slow_left_out=15", "speed=all slow_left_out=0")
        .replace("CHECK total 1723", "CHECK total 1000")
        .replace(
            "CHECK program test test_b.sh 31.0",
            "CHECK program test test_b.sh 31.0\nCHECK program test test_slow.sh 99.0",
        );
    let dir = results.join("2026-01-04-1000-check-test+stock-7.3");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("times.txt"), all).unwrap();
    let page = publish(&results, &out).unwrap();
    assert!(
        page.contains("the fastest below took 28m43s (met)"),
        "{page}"
    );
    assert!(
        page.contains("test stock-7.3 (cold; every program)"),
        "{page}"
    );
    assert!(page.contains("| `test_slow.sh` | 99 s | - |"), "{page}");
    assert!(
        page.contains("(2026-01-04-1000-check-test+stock-7.3, every program;"),
        "{page}"
    );
}

#[test]
fn a_check_that_did_not_end_is_refused() {
    let out = tmp("checkcut");
    let results = out.join("results");
    let dir = results.join("2026-01-02-1000-check-test");
    std::fs::create_dir_all(&dir).unwrap();
    let cut: String = CHECK_TIMES
        .lines()
        .take_while(|l| !l.starts_with("CHECK total"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("times.txt"), cut).unwrap();
    let e = publish(&results, &out).unwrap_err();
    assert!(e.contains("the check did not end"), "{e}");
}

#[test]
fn a_module_run_has_its_table_and_ratios() {
    let out = tmp("modules");
    let results = out.join("results");
    add_run(
        &results,
        "2026-01-02-stock-7.3",
        "modules",
        "BENCHINFO mod_functions=600 mod_names=600 mod_kallsyms=5000 mod_runs=1\n\
         BENCH method=mod-bp-fprobe n=600 run=1 phase=attach ns=300000000 got=600\n\
         BENCH method=mod-bp-fprobe n=600 run=1 phase=detach ns=60000000 got=600\n\
         BENCH method=mod-kprobe-multi n=600 run=1 phase=attach ns=150000000 got=600\n\
         BENCH method=mod-kprobe-multi n=600 run=1 phase=detach ns=30000000 got=600\n\
         BENCH method=mod-bp-int3 n=600 run=1 phase=attach ns=12000000000 got=600\n\
         BENCH method=mod-bp-int3 n=600 run=1 phase=detach ns=9000000000 got=600\n",
    );
    let page = publish(&results, &out).unwrap();
    assert!(page.contains("A module's functions"), "{page}");
    assert!(
        page.contains("the 600 `ext4_*` functions ftrace traces"),
        "{page}"
    );
    // The link's median over each way's: 150 / 300 ms = 0.50× attach for
    // the p: line, 150 ms / 12 s = 0.01× for the int3 kprobes.
    assert!(
        page.contains(
            "| 600 | batchprobe, `p:SET/ ext4:ext4_*` (fprobes) | 300 | 60.0 | 0.50×, 0.50× |"
        ),
        "{page}"
    );
    assert!(
        page.contains("| 600 | batchprobe, `p!:SET/ ext4:ext4_*` (int3 kprobes) | 12000 | 9000 | 0.01×, 0.00× |"),
        "{page}"
    );
    // No direct-call run: no row.
    assert!(!page.contains("`d:SET/ ext4:ext4_*`"), "{page}");
    assert!(
        page.contains("Data of the module table") || page.contains("Data: "),
        "{page}"
    );
}
