// SPDX-License-Identifier: GPL-2.0

//! A set of addresses in a table the caller provides: open addressing with
//! linear probing, 0 marking a free slot. Pure logic, free of kernel types,
//! so that host tests can check it; the caller allocates the table (a power
//! of two long) and grows it, see [`needs_growth`].
//!
//! Set builds use it to find a function named twice in O(1) per name, where
//! a scan of what was added so far made adding N functions cost O(N²).

/// What [`insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    /// The address was not in the set; now it is.
    New,
    /// The address was already in the set.
    Present,
    /// No free slot (or an unusable table or key): nothing changed.
    Full,
}

/// Where probing for `key` starts in a table of `len` slots (a power of two).
fn home(key: usize, len: usize) -> usize {
    // Fibonacci hashing: function addresses share their low (alignment) and
    // high (kernel text) bits; the multiply spreads the middle ones.
    let h = (key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((h ^ (h >> 32)) as usize) & (len.wrapping_sub(1))
}

/// Adds `key` (never 0) to the set held in `table` (a power of two long).
pub fn insert(table: &mut [usize], key: usize) -> Inserted {
    let len = table.len();
    if key == 0 || !len.is_power_of_two() {
        return Inserted::Full;
    }
    let mut i = home(key, len);
    for _ in 0..len {
        let Some(slot) = table.get_mut(i) else {
            return Inserted::Full;
        };
        if *slot == key {
            return Inserted::Present;
        }
        if *slot == 0 {
            *slot = key;
            return Inserted::New;
        }
        i = (i + 1) & (len - 1);
    }
    Inserted::Full
}

/// Whether `key` is in the set held in `table`.
pub fn contains(table: &[usize], key: usize) -> bool {
    let len = table.len();
    if key == 0 || !len.is_power_of_two() {
        return false;
    }
    let mut i = home(key, len);
    for _ in 0..len {
        match table.get(i) {
            Some(&k) if k == key => return true,
            Some(&0) | None => return false,
            Some(_) => i = (i + 1) & (len - 1),
        }
    }
    false
}

/// Whether a table of `len` slots holding `count` keys must grow before one
/// more is added: it stays at most half full, which keeps probes short.
pub fn needs_growth(count: usize, len: usize) -> bool {
    count.saturating_add(1).saturating_mul(2) > len
}

/// The table length to grow to from `len`: double, at least 64.
pub fn grown_len(len: usize) -> usize {
    len.saturating_mul(2).max(64)
}
