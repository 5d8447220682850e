// SPDX-License-Identifier: GPL-2.0

//! The `batchprobe` binary itself, run against system roots made of
//! recorded module files (`BATCHPROBE_SYSROOT`): its help, listings, JSON,
//! errors and the one write a batch is.

mod common;

use common::{data, run, sysroot, FLAVORS};

#[test]
fn help_names_every_command() {
    let (rc, out, _) = run(None, &["--help"]);
    assert_eq!(rc, 0);
    for c in [
        "count",
        "latency",
        "trace",
        "top",
        "apply",
        "import",
        "ls",
        "stats",
        "rm",
        "status",
        "completions",
    ] {
        assert!(out.contains(&format!("  {c} ")), "{c} in\n{out}");
    }
    let (rc, out, _) = run(None, &["--version"]);
    assert_eq!(
        (rc, out.trim()),
        (0, concat!("batchprobe ", env!("CARGO_PKG_VERSION")))
    );
    let (rc, _, err) = run(None, &["count"]);
    assert_eq!(rc, 2, "a usage error: {err}");
    assert!(err.contains("PATTERN"), "{err}");
}

#[test]
fn man_page_and_completions_are_generated() {
    let (rc, man, _) = run(None, &["man"]);
    assert_eq!(rc, 0);
    assert!(
        man.starts_with(".ie") || man.contains(".TH batchprobe 8"),
        "{}",
        &man[..200.min(man.len())]
    );
    assert!(man.contains("latency"));
    assert!(
        man.contains("batchprobe latency \\-\\-errors"),
        "examples in the page"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("man");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (rc, _, _) = run(None, &["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(rc, 0);
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    assert_eq!(
        pages,
        [
            "batchprobe-apply.8",
            "batchprobe-completions.8",
            "batchprobe-count.8",
            "batchprobe-import.8",
            "batchprobe-latency.8",
            "batchprobe-ls.8",
            "batchprobe-rm.8",
            "batchprobe-stats.8",
            "batchprobe-status.8",
            "batchprobe-top.8",
            "batchprobe-trace.8",
            "batchprobe.8"
        ]
    );
    let (rc, bash, _) = run(None, &["completions", "bash"]);
    assert_eq!(rc, 0);
    assert!(bash.contains("_batchprobe()"));
}

#[test]
fn without_the_module_every_command_says_what_to_do() {
    for args in [
        &["ls"][..],
        &["stats"],
        &["count", "vfs_read"],
        &["latency", "vfs_read"],
        &["trace", "p:a/b vfs_read"],
        &["top", "-n", "1"],
        &["rm", "x"],
    ] {
        let (rc, out, err) = run(None, args);
        assert_eq!(rc, 1, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(
            err.contains("not loaded") && err.contains("modprobe batchprobe"),
            "{args:?}: {err}"
        );
    }
    let (rc, out, err) = run(None, &["status"]);
    assert_eq!(rc, 1);
    assert!(
        out.contains("module") && out.contains("not loaded"),
        "{out}"
    );
    assert!(err.contains("not loaded"), "{err}");
}

#[test]
fn ls_and_stats_read_the_module_files() {
    for f in FLAVORS {
        let root = sysroot(f, "ls");
        let (rc, out, err) = run(Some(&root), &["ls"]);
        assert_eq!(rc, 0, "{f}: {err}");
        let rows: Vec<&str> = out
            .lines()
            .skip(1)
            .filter(|l| !l.contains("staged"))
            .collect();
        assert_eq!(rows.len(), 4, "{f}: {out}");
        assert!(
            rows[0].starts_with("cnt  ") && rows[0].contains("enabled"),
            "{f}: {out}"
        );
        assert!(out.contains("2 probe line(s) staged"), "{f}: {out}");
        let (rc, json, _) = run(Some(&root), &["ls", "--json"]);
        assert_eq!(rc, 0);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["sets"][0]["name"], "cnt");
        assert_eq!(v["sets"][0]["backends"]["kprobes"], 2, "{f}: {json}");
        assert_eq!(v["staged"], 2);
        let (rc, out, _) = run(
            Some(&root),
            &["stats", "lat", "--sort", "p99", "--top", "4"],
        );
        assert_eq!(rc, 0);
        assert_eq!(
            out.lines().filter(|l| l.starts_with("lat ")).count(),
            4,
            "{f}: {out}"
        );
        let (rc, json, _) = run(Some(&root), &["stats", "--json"]);
        assert_eq!(rc, 0);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["sets"].as_array().unwrap().len(), 4);
        assert!(v["header"]["clock"].as_str().is_some(), "{f}: {json:.200}");
        let (rc, _, err) = run(Some(&root), &["stats", "nosuchset"]);
        assert_eq!(rc, 1);
        assert_eq!(
            err.trim(),
            "batchprobe: no set nosuchset (`batchprobe ls` lists them)"
        );
    }
}

#[test]
fn a_set_left_by_a_killed_command_is_marked() {
    let root = sysroot("test", "orphan");
    let sets = root.join("sys/kernel/debug/batchprobe/sets");
    std::fs::write(&sets, "bpcount_999999 enabled kprobes=0 kretprobes=0 fprobes=1 fretprobes=0 direct=0 skipped=0 hits=3\n").unwrap();
    let (rc, out, _) = run(Some(&root), &["ls"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("left by batchprobe pid 999999: batchprobe rm bpcount_999999"),
        "{out}"
    );
    std::fs::create_dir_all(root.join("proc/999999")).unwrap();
    let (_, out, _) = run(Some(&root), &["ls"]);
    assert!(!out.contains("left by"), "{out}");
}

#[test]
fn apply_is_one_write_of_the_whole_file() {
    let root = sysroot("test", "apply");
    let file = root.join("batch");
    let text = "p:a/ vfs_read\np:a/ vfs_write\ncreate a\nenable a\n";
    std::fs::write(&file, text).unwrap();
    let (rc, out, err) = run(Some(&root), &["apply", file.to_str().unwrap()]);
    assert_eq!((rc, out.as_str(), err.as_str()), (0, "", ""));
    let control = root.join("sys/kernel/debug/batchprobe/control");
    assert_eq!(std::fs::read_to_string(&control).unwrap(), text);
    // The device, where there is one, takes it instead.
    std::fs::create_dir_all(root.join("dev")).unwrap();
    std::fs::write(root.join("dev/batchprobe"), "").unwrap();
    let (rc, _, _) = run(Some(&root), &["rm", "a", "b"]);
    assert_eq!(rc, 0);
    assert_eq!(
        std::fs::read_to_string(root.join("dev/batchprobe")).unwrap(),
        "unregister a --sync\nunregister b --sync\n"
    );
    let (rc, _, err) = run(Some(&root), &["apply", "/nonexistent/file"]);
    assert_eq!(rc, 1);
    assert!(err.contains("/nonexistent/file"), "{err}");
}

#[test]
fn a_refused_batch_shows_last_error_with_its_caret() {
    let root = sysroot("distro-7.3", "refused");
    // A write that fails (ENOSPC) as the module's would, with last_error
    // left by the module.
    std::os::unix::fs::symlink(
        "/dev/full",
        root.join("sys/kernel/debug/batchprobe/control.full"),
    )
    .unwrap();
    std::fs::remove_file(root.join("sys/kernel/debug/batchprobe/control")).unwrap();
    std::os::unix::fs::symlink(
        "/dev/full",
        root.join("sys/kernel/debug/batchprobe/control"),
    )
    .unwrap();
    let file = root.join("batch");
    std::fs::write(&file, "p:bad/ vfs_read+zz\ncreate bad\n").unwrap();
    let (rc, out, err) = run(Some(&root), &["apply", file.to_str().unwrap()]);
    assert_eq!(rc, 1);
    assert_eq!(out, "");
    // The file is as it was before the write: it is not this write's.
    let want = format!(
        "batchprobe: {}: the module refused the batch (ENOSPC); nothing was changed; last_error (the same as before this write):\n{}",
        file.display(),
        data("distro-7.3", "last_error.parse")
    );
    assert_eq!(err, want);
}

#[test]
fn import_prints_or_applies_one_batch() {
    let root = sysroot("stock-7.3", "import");
    let file = root.join("kprobe_events");
    std::fs::write(
        &file,
        "p:kprobes/p_vfs_read_0 vfs_read\nf:fp/ret vfs_write%return $retval\n",
    )
    .unwrap();
    let (rc, out, _) = run(Some(&root), &["import", "--print", file.to_str().unwrap()]);
    assert_eq!(rc, 0);
    let want = "p:kprobes/p_vfs_read_0 vfs_read\nr:fp/ret vfs_write $retval\ncreate kprobes\nenable kprobes\ncreate fp\nenable fp\n";
    assert_eq!(out, want);
    let (rc, _, _) = run(Some(&root), &["import", file.to_str().unwrap()]);
    assert_eq!(rc, 0);
    assert_eq!(
        std::fs::read_to_string(root.join("sys/kernel/debug/batchprobe/control")).unwrap(),
        want
    );
    std::fs::write(&file, "p:a/x vfs_read\n-:a/x\n").unwrap();
    let (rc, _, err) = run(Some(&root), &["import", file.to_str().unwrap()]);
    assert_eq!(rc, 1);
    assert!(err.contains(": line 2: `-:a/x`: a removal"), "{err}");
}

#[test]
fn bad_arguments_change_nothing() {
    let root = sysroot("test", "badargs");
    let control = root.join("sys/kernel/debug/batchprobe/control");
    for args in [
        &["count", "vfs_read", "-d", "0"][..],
        &["count", "vfs read"],
        &["latency", "vfs_read", "-i", "0"],
        &["trace", "--", "-:a/b"],
        &["trace", "--exit", "p:a/b vfs_read"],
        &["top", "-n", "0"],
    ] {
        let (rc, _, err) = run(Some(&root), args);
        assert_eq!(rc, 1, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&control).unwrap(), "", "{args:?}");
    }
}

#[test]
fn the_command_has_the_modules_version() {
    let h = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../include/batchprobe.h"
    ))
    .unwrap();
    let v = h
        .lines()
        .find_map(|l| l.strip_prefix("#define BATCHPROBE_VERSION"))
        .map(|r| r.trim().trim_matches('"'))
        .unwrap();
    assert_eq!(
        v,
        env!("CARGO_PKG_VERSION"),
        "include/batchprobe.h and Cargo.toml"
    );
    let root = sysroot("test", "version");
    std::fs::write(root.join("sys/module/batchprobe/version"), format!("{v}\n")).unwrap();
    let (_, out, _) = run(Some(&root), &["status"]);
    assert!(out.contains(&format!("loaded, version {v}\n")), "{out}");
    std::fs::write(root.join("sys/module/batchprobe/version"), "9.9.9\n").unwrap();
    let (_, out, _) = run(Some(&root), &["status"]);
    assert!(out.contains("version 9.9.9 (this command is"), "{out}");
}

/// `batchprobe stats | head -1`: the reader goes away, the command ends
/// quietly with status 0 (no panic, no "Broken pipe").
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    use std::io::Read;
    let root = sysroot("test", "pipe");
    let mut stats = data("test", "stats");
    for i in 0..40_000 {
        stats.push_str(&format!("  fprobe f{i} f{i}+0 hits={i} missed=0\n"));
    }
    std::fs::write(root.join("sys/kernel/debug/batchprobe/stats"), stats).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_batchprobe"))
        .args(["stats"])
        .env("BATCHPROBE_SYSROOT", &root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn apply_takes_files_in_order_and_rm_batch_their_sets() {
    let root = sysroot("stock-7.3", "files");
    let (a, b) = (root.join("a.batch"), root.join("b.batch"));
    std::fs::write(&a, "p:lat/ vfs_read\ncreate lat\n").unwrap();
    std::fs::write(
        &b,
        "# b\nd:rec/ vfs_write\np:cnt/x vfs_read\ncreate rec\ncreate cnt\n",
    )
    .unwrap();
    let (rc, _, err) = run(
        Some(&root),
        &["apply", a.to_str().unwrap(), b.to_str().unwrap()],
    );
    assert_eq!(rc, 0, "{err}");
    let control = root.join("sys/kernel/debug/batchprobe/control");
    let wrote = std::fs::read_to_string(&control).unwrap();
    // Each batch its own open and write from the start: the fake control
    // (a regular file) keeps the last, longer one.
    assert_eq!(wrote, std::fs::read_to_string(&b).unwrap());
    // The recorded sets file lists cnt, rec, lat (live) and off: the
    // files name lat, rec and cnt.
    let (rc, _, err) = run(
        Some(&root),
        &["rm", "--batch", a.to_str().unwrap(), b.to_str().unwrap()],
    );
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&control).unwrap(),
        "unregister lat --sync\nunregister rec --sync\nunregister cnt --sync\n"
    );
}

#[test]
fn latency_without_btf_says_so_and_writes_nothing() {
    let root = sysroot("test", "nobtf");
    let (rc, _, err) = run(Some(&root), &["latency", "vfs_read"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("no BTF") && err.contains("batchprobe count"),
        "{err}"
    );
    let control = root.join("sys/kernel/debug/batchprobe/control");
    assert_eq!(std::fs::read_to_string(control).unwrap(), "");
}
