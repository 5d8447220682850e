// SPDX-License-Identifier: GPL-2.0

//! The recorded outputs under `tests/data/FLAVOR/` (scripts/record-fixtures.sh),
//! and a system root made of them for the command's own runs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The flavors recorded: 6.12's test kernel, 7.3's distro kernel (locked
/// down), Debian's own 7.3 image.
pub const FLAVORS: [&str; 3] = ["test", "distro-7.3", "stock-7.3"];

/// The recorded file `name` of `flavor`.
pub fn data(flavor: &str, name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(flavor)
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A system root under the target directory with `flavor`'s module files
/// in debugfs and the module listed as loaded; `control` is where batches
/// go (a regular file collects them).
pub fn sysroot(flavor: &str, tag: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("root-{flavor}-{tag}"));
    let _ = std::fs::remove_dir_all(&root);
    let dbg = root.join("sys/kernel/debug/batchprobe");
    std::fs::create_dir_all(&dbg).unwrap();
    std::fs::create_dir_all(root.join("sys/module/batchprobe")).unwrap();
    std::fs::create_dir_all(root.join("proc")).unwrap();
    std::fs::write(dbg.join("sets"), data(flavor, "sets")).unwrap();
    std::fs::write(dbg.join("stats"), data(flavor, "stats")).unwrap();
    std::fs::write(dbg.join("last_error"), data(flavor, "last_error.parse")).unwrap();
    std::fs::write(dbg.join("control"), "").unwrap();
    root
}

/// Runs the command with `args` under `root` (`None`: an empty root, no
/// module): (status, stdout, stderr).
pub fn run(root: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("root-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_batchprobe"))
        .args(args)
        .env("BATCHPROBE_SYSROOT", root.unwrap_or(&empty))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
