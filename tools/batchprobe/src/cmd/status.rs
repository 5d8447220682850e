// SPDX-License-Identifier: GPL-2.0

//! `batchprobe status`: is the module loaded, which version, where batches
//! go, and what this kernel offers it (BTF, fprobes, direct calls,
//! kprobes, function tracing, lockdown), each with what it means; exits
//! with status 1 when the module is not loaded.

use std::fs;

use serde::Serialize;

use super::print_json;
use crate::error::{Error, Result};
use crate::kernel::{is_root, Kernel, DEBUGFS_DIR, DEVICE};
use crate::output::out;
use crate::render::table::Table;

/// One fact and what it means.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub what: &'static str,
    /// Whether batchprobe can use it as it is.
    pub ok: bool,
    pub detail: String,
}

fn check(what: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        what,
        ok,
        detail: detail.into(),
    }
}

/// The first line of a file, trimmed (`None`: unreadable).
fn first_line(kernel: &Kernel, path: &str) -> Option<String> {
    fs::read_to_string(kernel.path(path))
        .ok()
        .and_then(|s| s.lines().next().map(|l| l.trim().to_string()))
}

/// Which of `names` /proc/kallsyms lists.
fn kallsyms_has(kernel: &Kernel, names: &[&str]) -> Vec<bool> {
    let text = fs::read_to_string(kernel.path("proc/kallsyms")).unwrap_or_default();
    let mut found = vec![false; names.len()];
    for line in text.lines() {
        if let Some(sym) = line.split_whitespace().nth(2) {
            if let Some(i) = names.iter().position(|n| *n == sym) {
                found[i] = true;
            }
        }
    }
    found
}

/// The lockdown mode: the bracketed word of securityfs' `lockdown`.
pub fn lockdown_mode(text: &str) -> Option<&str> {
    let start = text.find('[')? + 1;
    let end = start + text[start..].find(']')?;
    Some(&text[start..end])
}

/// Everything `status` reports.
pub fn checks(kernel: &Kernel) -> Vec<Check> {
    let mut v = module_checks(kernel);
    v.extend(access_checks(kernel));
    v.extend(feature_checks(kernel));
    v.extend(environment_checks(kernel));
    v
}

/// The kernel's release and architecture; the module, loaded or not.
fn module_checks(kernel: &Kernel) -> Vec<Check> {
    let mut v = Vec::new();
    let release = first_line(kernel, "proc/sys/kernel/osrelease").unwrap_or_else(|| "?".into());
    v.push(check(
        "kernel",
        std::env::consts::ARCH == "x86_64",
        format!("{release} ({})", std::env::consts::ARCH),
    ));
    let loaded = kernel.loaded();
    let version = first_line(kernel, "sys/module/batchprobe/version");
    let src = first_line(kernel, "sys/module/batchprobe/srcversion");
    v.push(check(
        "module",
        loaded,
        match (loaded, version, src) {
            (false, _, _) => {
                "not loaded: modprobe batchprobe (after make install), or insmod batchprobe.ko"
                    .into()
            }
            (true, Some(ver), _) if ver == env!("CARGO_PKG_VERSION") => {
                format!("loaded, version {ver}")
            }
            (true, Some(ver), _) => format!(
                "loaded, version {ver} (this command is {}: install both from one tree)",
                env!("CARGO_PKG_VERSION")
            ),
            (true, None, Some(s)) => format!("loaded, srcversion {s}"),
            (true, None, None) => "loaded".to_string(),
        },
    ));
    v
}

/// Where batches go, and what lockdown allows.
fn access_checks(kernel: &Kernel) -> Vec<Check> {
    let mut v = Vec::new();
    let loaded = kernel.loaded();
    let lockdown = fs::read_to_string(kernel.path("sys/kernel/security/lockdown")).ok();
    let mode = lockdown
        .as_deref()
        .and_then(lockdown_mode)
        .unwrap_or("none")
        .to_string();
    let device = kernel.path(DEVICE).exists();
    let debugfs_control = kernel.path(DEBUGFS_DIR).join("control").exists();
    v.push(check(
        "control",
        loaded && (device || (debugfs_control && mode == "none")),
        match (loaded, device, debugfs_control) {
            (false, _, _) => "none: the module is not loaded".into(),
            (true, true, _) => format!("{} (the control device)", kernel.path(DEVICE).display()),
            (true, false, true) if mode != "none" => format!(
                "none: /dev/batchprobe is missing and debugfs takes no writes under lockdown={mode}"
            ),
            (true, false, true) => format!(
                "{}/control (debugfs; /dev/batchprobe is missing)",
                kernel.path(DEBUGFS_DIR).display()
            ),
            (true, false, false) if !is_root() => {
                "none visible to this user: run batchprobe as root".into()
            }
            (true, false, false) => {
                "none: neither /dev/batchprobe nor debugfs' control: is debugfs mounted?".into()
            }
        },
    ));
    v.push(check(
        "lockdown",
        mode != "confidentiality",
        match (lockdown.is_some(), mode.as_str()) {
            (false, _) => "no lockdown LSM (or securityfs not mounted)".to_string(),
            (_, "none") => "none".into(),
            (_, "integrity") => {
                "integrity: debugfs takes no writes; /dev/batchprobe does (signed module)".into()
            }
            (_, m) => format!("{m}: kprobes are refused, to batchprobe as to kprobe_events"),
        },
    ));
    v
}

/// What the kernel offers the module's backends.
fn feature_checks(kernel: &Kernel) -> Vec<Check> {
    let mut v = Vec::new();
    let [kprobes, fprobe, direct]: [bool; 3] = kallsyms_has(
        kernel,
        &[
            "register_kprobe",
            "register_fprobe",
            "register_ftrace_direct",
        ],
    )
    .try_into()
    .unwrap_or([false; 3]);
    v.push(check(
        "kprobes",
        kprobes,
        if kprobes {
            "yes: p!:, r!:, offsets, addresses"
        } else {
            "no (CONFIG_KPROBES): the module cannot load"
        },
    ));
    v.push(check(
        "fprobe",
        fprobe,
        if fprobe {
            "yes: p: and r: at a function's entry are fprobes where ftrace traces it"
        } else {
            "no (CONFIG_FPROBE): p: and r: lines are int3 kprobes"
        },
    ));
    v.push(check(
        "direct calls",
        direct,
        if direct {
            "yes: d: lines, exit sets (batchprobe latency)"
        } else {
            "no (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS): no d: lines, no latency"
        },
    ));
    let btf = kernel.path("sys/kernel/btf/vmlinux").exists();
    v.push(check(
        "BTF",
        btf,
        if btf {
            "yes: $argN by name, exit sets' prototypes and errno classes"
        } else {
            "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF): no exit sets, no named arguments"
        },
    ));
    v
}

/// Function tracing on, tracefs mounted, root.
fn environment_checks(kernel: &Kernel) -> Vec<Check> {
    let mut v = Vec::new();
    let ftrace_on = first_line(kernel, "proc/sys/kernel/ftrace_enabled");
    v.push(check(
        "function tracing",
        ftrace_on.as_deref() != Some("0"),
        match ftrace_on.as_deref() {
            Some("0") => "off (/proc/sys/kernel/ftrace_enabled is 0): fprobes, d: lines and exit sets are refused",
            Some(_) => "on",
            None => "unknown (no /proc/sys/kernel/ftrace_enabled)",
        },
    ));
    let tracefs = kernel.tracefs().is_ok();
    v.push(check(
        "tracefs",
        tracefs,
        if tracefs {
            "mounted: events and records (batchprobe trace)"
        } else {
            "not mounted: mount -t tracefs none /sys/kernel/tracing"
        },
    ));
    v.push(check(
        "user",
        is_root(),
        if is_root() {
            "root"
        } else {
            "not root: the module's files are root's (run batchprobe as root)"
        },
    ));
    v
}

/// Runs `batchprobe status`.
pub fn run(kernel: &Kernel, json: bool) -> Result<()> {
    let v = checks(kernel);
    if json {
        print_json(&v)?;
    } else {
        let mut t = Table::new(&["", "", ""]);
        for c in &v {
            t.row(vec![
                c.what.to_string(),
                if c.ok { "ok".into() } else { "NO".into() },
                c.detail.clone(),
            ]);
        }
        out(t.render().split_once('\n').map_or("", |x| x.1))?;
    }
    if !kernel.loaded() {
        return Err(Error::new("the batchprobe module is not loaded"));
    }
    Ok(())
}
