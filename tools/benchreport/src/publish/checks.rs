// SPDX-License-Identifier: GPL-2.0

//! How long `make check` and `make check-all` take (`DATE-HHMM-check-LABEL/
//! times.txt`: the `CHECK` lines `scripts/check.sh` writes to
//! `out/check-times.txt`, under `# ` lines saying when, which commit, on
//! what host), as one table of the runs kept.

use std::fmt::Write as _;
use std::path::Path;

/// One check's times.
pub(crate) struct CheckRun {
    pub(crate) name: String,
    /// The `# ` lines, without the `# `.
    header: Vec<String>,
    flavors: String,
    /// `(step, seconds, note)`: deps, kernel-FLAVOR (note: cached, built,
    /// prepared), kernels (their wall time: Debian's tree is prepared beside
    /// the builds), host-tests, builds, guests.
    steps: Vec<(String, u64, String)>,
    /// Which programs the guests ran: `all`, `normal` (those not marked
    /// `# speed: slow`) or `tests` (those `BP_TESTS` named), and how many
    /// slow ones were left out; `None` in a file from before `CHECK
    /// programs` (`make check` ran every program then).
    speed: Option<(String, u64)>,
    /// `(run, program, seconds)`: each program's own time.
    programs: Vec<(String, String, f64)>,
    /// `accel=... vcpus=... at_once=... runs=...`.
    guests: String,
    /// `(run, seconds, passed, failed, skipped, qemu status)`.
    runs: Vec<(String, u64, u64, u64, u64, String)>,
    /// The host tests' `(passed, failed, skipped)`.
    host: Option<(u64, u64, u64)>,
    total: u64,
    result: (u64, u64, u64),
}

/// `k=N` from `words`, or an error naming `what`.
fn num(words: &[&str], k: &str, what: &str) -> Result<u64, String> {
    words
        .iter()
        .find_map(|w| w.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{what}: no {k}=N"))
}

/// The run in `dir`.
pub(crate) fn load(dir: &Path, name: &str) -> Result<CheckRun, String> {
    let path = dir.join("times.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut c = CheckRun {
        name: name.to_string(),
        header: Vec::new(),
        flavors: String::new(),
        steps: Vec::new(),
        speed: None,
        programs: Vec::new(),
        guests: String::new(),
        runs: Vec::new(),
        host: None,
        total: 0,
        result: (0, 0, 0),
    };
    let mut ended = false;
    for (i, line) in text.lines().enumerate() {
        if let Some(h) = line.strip_prefix("# ") {
            c.header.push(h.to_string());
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let at = format!("{name}/times.txt:{}", i + 1);
        let secs = |s: Option<&&str>| -> Result<u64, String> {
            s.and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{at}: no seconds: {line}"))
        };
        match w.as_slice() {
            ["CHECK", "flavors", f @ ..] => c.flavors = f.join(" "),
            ["CHECK", "step", s, rest @ ..] => {
                let note = rest.get(1..).unwrap_or(&[]).join(" ");
                c.steps.push((s.to_string(), secs(rest.first())?, note));
            }
            ["CHECK", "programs", rest @ ..] => {
                let speed = rest
                    .iter()
                    .find_map(|w| w.strip_prefix("speed="))
                    .ok_or_else(|| format!("{at}: no speed=: {line}"))?;
                c.speed = Some((speed.to_string(), num(rest, "slow_left_out", &at)?));
            }
            ["CHECK", "program", run, prog, s] => {
                let t = s.parse().map_err(|_| format!("{at}: no seconds: {line}"))?;
                c.programs.push((run.to_string(), prog.to_string(), t));
            }
            ["CHECK", "guests", rest @ ..] => c.guests = rest.join(" "),
            ["CHECK", "guest", run, rest @ ..] => {
                let qemu = rest
                    .iter()
                    .find_map(|w| w.strip_prefix("qemu_status="))
                    .unwrap_or("?");
                c.runs.push((
                    run.to_string(),
                    secs(rest.first())?,
                    num(rest, "passed", &at)?,
                    num(rest, "failed", &at)?,
                    num(rest, "skipped", &at)?,
                    qemu.to_string(),
                ));
            }
            ["CHECK", "host", rest @ ..] => {
                c.host = Some((
                    num(rest, "passed", &at)?,
                    num(rest, "failed", &at)?,
                    num(rest, "skipped", &at)?,
                ));
            }
            ["CHECK", "total", s] => c.total = secs(Some(s))?,
            ["CHECK", "result", rest @ ..] => {
                c.result = (
                    num(rest, "passed", &at)?,
                    num(rest, "failed", &at)?,
                    num(rest, "skipped", &at)?,
                );
                ended = true;
            }
            ["CHECK", ..] => return Err(format!("{at}: unknown CHECK line: {line}")),
            _ => {}
        }
    }
    if !ended || c.total == 0 {
        return Err(format!(
            "{name}/times.txt: no `CHECK total` and `CHECK result`: the check did not end"
        ));
    }
    Ok(c)
}

/// `s` seconds as `MmSSs`.
fn minutes(s: u64) -> String {
    format!("{}m{:02}s", s / 60, s % 60)
}

impl CheckRun {
    /// Whether a kernel was built or Debian's tree prepared from nothing in
    /// this run (a cold run), else every kernel was found in the cache.
    fn cold(&self) -> bool {
        self.steps
            .iter()
            .any(|(s, _, n)| s.starts_with("kernel-") && n == "built")
    }

    /// Seconds before the guests booted: every step but theirs; the
    /// kernels' wall time where the file has it (the kernel steps ran side
    /// by side), else each kernel's.
    fn before_guests(&self) -> u64 {
        let wall = self.step("kernels").is_some();
        self.steps
            .iter()
            .filter(|(s, _, _)| s != "guests" && !(wall && s.starts_with("kernel-")))
            .map(|(_, t, _)| t)
            .sum()
    }

    /// Which programs ran, for the flavors' cell.
    fn programs_run(&self) -> String {
        match self.speed.as_ref().map(|(s, n)| (s.as_str(), n)) {
            Some(("normal", n)) => format!("; {n} programs left out, slow on a kernel"),
            Some(("tests", _)) => "; the programs BP_TESTS named".to_string(),
            Some(_) | None => "; every program".to_string(),
        }
    }

    /// Whether this is a newcomer's `make check`: the test kernel and
    /// Debian's image, a kernel built, the programs `make check` runs (not
    /// `make check-all`'s, nor a `BP_TESTS` subset).
    fn newcomer(&self) -> bool {
        let speed = self.speed.as_ref().map(|(s, _)| s.as_str());
        self.flavors == "test stock-7.3" && self.cold() && matches!(speed, None | Some("normal"))
    }

    fn step(&self, name: &str) -> Option<u64> {
        self.steps
            .iter()
            .find(|(s, _, _)| s == name)
            .map(|(_, t, _)| *t)
    }

    /// The table's row.
    fn row(&self) -> String {
        let kernels: Vec<String> = self
            .steps
            .iter()
            .filter_map(|(s, t, n)| {
                let f = s.strip_prefix("kernel-")?;
                Some(format!("{f} {n} {}", minutes(*t)))
            })
            .collect();
        let runs: Vec<String> = self
            .runs
            .iter()
            .map(|(r, t, p, f, s, q)| {
                let broken = if q == "0" { "" } else { ", broken" };
                format!("{r} {} ({p}/{f}/{s}{broken})", minutes(*t))
            })
            .collect();
        let (p, f, s) = self.result;
        let host = self.host.map_or(String::new(), |(p, f, s)| {
            format!(" (host tests {p}/{f}/{s})")
        });
        format!(
            "| [{d}](bench/results/{n}/times.txt) {commit} | {machine} | {flavors} ({how}{progs}) | {kernels} | {before}{host} | {guests}: {runs} | **{total}** | {p} passed, {f} failed, {s} skipped |",
            d = self.name.get(..10).unwrap_or("?"),
            n = self.name,
            commit = self
                .header
                .get(1)
                .map_or("?", |h| h.trim_start_matches("commit ")),
            machine = self
                .header
                .get(2)
                .map_or("?", |h| h.trim_start_matches("host: ")),
            flavors = self.flavors,
            how = if self.cold() { "cold" } else { "kernels cached" },
            progs = self.programs_run(),
            kernels = match self.step("kernels") {
                Some(t) if kernels.len() > 1 => {
                    format!("{}, side by side {}", kernels.join(", "), minutes(t))
                }
                _ => kernels.join(", "),
            },
            before = minutes(self.before_guests()),
            guests = self.step("guests").map_or("?".into(), minutes),
            runs = runs.join(", "),
            total = minutes(self.total),
        )
    }
}

/// The section: one row per run, oldest first.
pub(crate) fn section(o: &mut String, checks: &[CheckRun]) {
    if checks.is_empty() {
        return;
    }
    let guests = checks.last().map_or("", |c| c.guests.as_str());
    let newcomer: Vec<&CheckRun> = checks.iter().filter(|c| c.newcomer()).collect();
    let goal = match newcomer.iter().map(|c| c.total).min() {
        None => "no row below is one".to_string(),
        Some(t) => format!(
            "the fastest below took {} ({})",
            minutes(t),
            if t <= 30 * 60 { "met" } else { "not met" }
        ),
    };
    let _ = writeln!(
        o,
        "## How long the checks take\n\n\
         `make check` (a newcomer's: the host tests, the test kernel and Debian's image) and \
         `make check-all` (what CI runs), as `scripts/check.sh` timed each step; each row's \
         link is its raw file. *Before the guests*: the packages, the kernels (built, or \
         found in `~/.cache/batchprobe/`), the host tests and lints, the modules and \
         initramfs images. Each guest: its time, and its programs' results \
         (passed/failed/skipped). The goal for a newcomer's cold `make check` on a 2-core \
         machine is 30 minutes: {goal}. The last run's guests: {guests}.\n\n\
         | run | host | flavors | kernels | before the guests | guests | total | result |\n\
         | --- | --- | --- | --- | ---: | --- | ---: | --- |"
    );
    for c in checks {
        let _ = writeln!(o, "{}", c.row());
    }
    o.push('\n');
    slowest(o, checks);
}

/// The programs of the last run that timed them, slowest first, down to
/// 20 s on some run (the mark of `# speed: slow`, docs/testing.md): the
/// last that ran every program, else the last.
fn slowest(o: &mut String, checks: &[CheckRun]) {
    let timed = || checks.iter().rev().filter(|c| !c.programs.is_empty());
    let every = |c: &&CheckRun| matches!(&c.speed, Some((s, _)) if s == "all");
    let Some(c) = timed().find(every).or_else(|| timed().next()) else {
        return;
    };
    let runs: Vec<&str> = c.runs.iter().map(|r| r.0.as_str()).collect();
    let mut names: Vec<&str> = c.programs.iter().map(|p| p.1.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let secs = |run: &str, name: &str| {
        c.programs
            .iter()
            .find(|p| p.0 == run && p.1 == name)
            .map(|p| p.2)
    };
    let most = |name: &str| {
        runs.iter()
            .filter_map(|r| secs(r, name))
            .fold(0.0_f64, f64::max)
    };
    names.retain(|n| most(n) >= 20.0);
    names.sort_by(|a, b| most(b).total_cmp(&most(a)));
    let _ = writeln!(
        o,
        "Programs that ran 20 s or more (the mark of `# speed: slow`) in the last run that timed each one ({}, {}; each \
         program's own time, `CHECK program` lines):\n\n| program | {} |\n| --- |{}",
        c.name,
        c.programs_run().trim_start_matches("; "),
        runs.join(" | "),
        " ---: |".repeat(runs.len())
    );
    for n in &names {
        let cells: Vec<String> = runs
            .iter()
            .map(|r| secs(r, n).map_or("-".to_string(), |t| format!("{t:.0} s")))
            .collect();
        let _ = writeln!(o, "| `{n}` | {} |", cells.join(" | "));
    }
    if names.is_empty() {
        o.push_str("| (none) |\n");
    }
    o.push('\n');
}
