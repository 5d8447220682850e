// SPDX-License-Identifier: GPL-2.0

//! The documentation as a user meets it: every relative link of the
//! README, the CHANGELOG, BENCHMARKS.md and `docs/` resolves (the file exists, and an
//! anchor names a heading there, as GitHub makes heading anchors), the
//! README stays under 300 lines, and the reference pages carry no dated
//! interface notes ("until 2026-12-04, ..."): those belong in the
//! CHANGELOG; and every figure the README quotes is on BENCHMARKS.md, which
//! is made from the raw data under bench/results/ (tools/benchreport's
//! tests check that).

mod common;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use common::{files, root};

/// The Markdown files checked: the README, the CHANGELOG, every page
/// under docs/.
fn pages() -> Vec<PathBuf> {
    let r = root();
    let mut v = vec![
        r.join("README.md"),
        r.join("CHANGELOG.md"),
        r.join("BENCHMARKS.md"),
    ];
    files(&r.join("docs"), &["md"], &mut v);
    v
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// A heading's anchor, as GitHub makes it: lower case, punctuation but `-`
/// and `_` dropped, spaces made `-`.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `page`'s headings (a repeated one as GitHub numbers it:
/// `x`, `x-1`, ...).
fn anchors(page: &Path) -> HashSet<String> {
    let text = fs::read_to_string(page).unwrap();
    let mut seen = HashSet::new();
    for l in prose(&text) {
        if !l.starts_with('#') {
            continue;
        }
        let base = slug(l);
        let mut s = base.clone();
        let mut n = 0;
        while seen.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        seen.insert(s);
    }
    seen
}

/// The link targets of `line`: what stands in `](...)`.
fn targets(line: &str) -> Vec<&str> {
    let mut v = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                v.push(&after[..j]);
                rest = &after[j..];
            }
            None => break,
        }
    }
    v
}

#[test]
fn every_relative_link_resolves() {
    let mut bad = Vec::new();
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for (n, line) in prose(&text).into_iter().enumerate() {
            for t in targets(line) {
                if t.contains("://") || t.starts_with("mailto:") || t.contains(' ') {
                    continue;
                }
                let (path, anchor) = t.split_once('#').unwrap_or((t, ""));
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    dir.join(path)
                };
                let name = page
                    .strip_prefix(root())
                    .unwrap_or(&page)
                    .display()
                    .to_string();
                if !file.exists() {
                    bad.push(format!("{name}: prose line {}: {t}: no such file", n + 1));
                } else if !anchor.is_empty()
                    && file.extension().is_some_and(|e| e == "md")
                    && !anchors(&file).contains(anchor)
                {
                    bad.push(format!(
                        "{name}: prose line {}: {t}: no such heading",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "links that do not resolve:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_readme_is_read_in_five_minutes() {
    let lines = fs::read_to_string(root().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(lines < 300, "README.md has {lines} lines");
}

#[test]
fn the_reference_has_no_dated_interface_notes() {
    let r = root();
    let reference = [
        "README.md",
        "docs/cli.md",
        "docs/control.md",
        "docs/errors.md",
        "docs/api.md",
        "docs/install.md",
    ];
    let mut found = Vec::new();
    for p in reference {
        let text = fs::read_to_string(r.join(p)).unwrap();
        for (n, l) in text.lines().enumerate() {
            let lower = l.to_lowercase();
            if let Some(i) = lower.find("until 20") {
                if lower[i + 6..]
                    .chars()
                    .take(10)
                    .filter(|c| c.is_ascii_digit())
                    .count()
                    == 8
                {
                    found.push(format!("{p}:{}: {l}", n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "dated notes (move them to CHANGELOG.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(
        slug("## Installing, signing, Secure Boot"),
        "installing-signing-secure-boot"
    );
    assert_eq!(
        slug("### Building for your distribution's kernel"),
        "building-for-your-distributions-kernel"
    );
    assert_eq!(
        slug("## At boot: batchprobe.service"),
        "at-boot-batchprobeservice"
    );
    assert_eq!(targets("a [x](b.md#c) and [y](d)"), ["b.md#c", "d"]);
}

/// The figures of `text`: each number followed by " ms" or "×", as
/// written (thousands separators dropped), with its unit.
fn figures(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.' || b[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.' || b[j] == b',') {
            j += 1;
        }
        let num = text[i..j].trim_end_matches(['.', ',']).replace(',', "");
        let rest = &text[j..];
        if rest.starts_with('×') {
            out.push(format!("{num}×"));
        } else if rest.starts_with(" ms") {
            out.push(format!("{num} ms"));
        }
        i = j;
    }
    out
}

/// Whether `page` has `num` as a number of its own (not inside a longer one).
fn has_number(page: &str, num: &str) -> bool {
    page.match_indices(num).any(|(at, _)| {
        let before = page[..at].chars().next_back();
        let after = page[at + num.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !after.is_some_and(|c| {
                c.is_ascii_digit()
                    || c == '.' && {
                        page[at + num.len() + 1..].starts_with(|d: char| d.is_ascii_digit())
                    }
            })
    })
}

#[test]
fn the_readmes_figures_are_on_the_benchmark_page() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let page = fs::read_to_string(root().join("BENCHMARKS.md")).unwrap();
    let start = readme
        .find("## When to pick it")
        .expect("README: ## When to pick it");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let figs = figures(&section[..end]);
    assert!(
        !figs.is_empty(),
        "the README's \"When to pick it\" quotes no figure"
    );
    let missing: Vec<&String> = figs
        .iter()
        .filter(|f| {
            let num = f.trim_end_matches(" ms").trim_end_matches('×');
            // A ratio with its sign ("2.00×", "**287×**"), a time as a number.
            let needle = if f.ends_with('×') { f.as_str() } else { num };
            !has_number(&page, needle)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "figures in the README's \"When to pick it\" that BENCHMARKS.md does not have: {missing:?}"
    );
}

#[test]
fn figures_are_read_as_written() {
    assert_eq!(
        figures("took 68.5 ms against 249 ms (3.63×); 44,008 functions, 12 ms."),
        ["68.5 ms", "249 ms", "3.63×", "12 ms"]
    );
    assert!(has_number("| 68.5 | 249 |", "68.5"));
    assert!(!has_number("| 168.5 |", "68.5"));
    assert!(!has_number("| 68.55 |", "68.5"));
    assert!(has_number("took 68.5.", "68.5"));
}
