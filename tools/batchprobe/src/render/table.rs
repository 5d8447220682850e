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
        let mut numeric = vec![true; n];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(n) {
                width[i] = width[i].max(cell.chars().count());
            }
        }
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(n) {
                numeric[i] &= looks_numeric(cell);
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate().take(n) {
                if i > 0 {
                    line.push_str("  ");
                }
                let pad = width[i] - cell.chars().count();
                if numeric[i] && !self.rows.is_empty() {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// A count, a duration (`12.3us`, `<16us`), a rate or `-`.
fn looks_numeric(cell: &str) -> bool {
    let c = cell.trim_start_matches('<');
    c == "-" || c == "inf" || c.starts_with(|ch: char| ch.is_ascii_digit())
}
