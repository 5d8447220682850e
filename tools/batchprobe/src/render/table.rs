// SPDX-License-Identifier: GPL-2.0

//! An aligned table: a header row, then rows; columns holding numbers are
//! right-aligned, as `ps`, `perf` and the BCC tools print them.

/// A table being filled.
#[derive(Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names.
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (as many cells as columns).
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.header.len());
        self.rows.push(cells);
    }

    /// Whether no row was added.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as text, one line per row, no trailing spaces.
    pub fn render(&self) -> String {
        let n = self.header.len();
        let mut width = vec![0; n];
        let mut numeric = vec![!self.rows.is_empty(); n];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(n) {
                width[i] = width[i].max(shown_len(cell));
            }
        }
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(n) {
                numeric[i] &= looks_numeric(cell);
            }
        }
        let line: usize = width.iter().sum::<usize>() + 2 * n + 1;
        let mut out = String::with_capacity(line * (self.rows.len() + 1));
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let start = out.len();
            for (i, cell) in row.iter().enumerate().take(n) {
                if i > 0 {
                    out.push_str("  ");
                }
                let pad = width[i] - shown_len(cell);
                if numeric[i] {
                    spaces(&mut out, pad);
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    spaces(&mut out, pad);
                }
            }
            let end = out[start..].trim_end_matches(' ').len();
            out.truncate(start + end);
            out.push('\n');
        }
        out
    }
}

/// How many columns `cell` takes (its characters; bytes for ASCII).
fn shown_len(cell: &str) -> usize {
    if cell.is_ascii() {
        cell.len()
    } else {
        cell.chars().count()
    }
}

/// Appends `n` spaces.
fn spaces(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let k = left.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        left -= k;
    }
}

/// A count, a duration (`12.3us`, `<16us`), a rate or `-`.
fn looks_numeric(cell: &str) -> bool {
    let c = cell.trim_start_matches('<');
    c == "-" || c == "inf" || c.starts_with(|ch: char| ch.is_ascii_digit())
}
