// SPDX-License-Identifier: GPL-2.0

//! Test support: little-endian BTF blobs built by hand, record by record,
//! laid out as the kernel's `/sys/kernel/btf/vmlinux` (for the tests of
//! `src/btf/parse.rs` and the two wings that read it).

/// `BTF_KIND_INT`.
pub const INT: u32 = 1;
/// `BTF_KIND_PTR`.
pub const PTR: u32 = 2;
/// `BTF_KIND_ARRAY`.
pub const ARRAY: u32 = 3;
/// `BTF_KIND_STRUCT`.
pub const STRUCT: u32 = 4;
/// `BTF_KIND_UNION`.
pub const UNION: u32 = 5;
/// `BTF_KIND_ENUM`.
pub const ENUM: u32 = 6;
/// `BTF_KIND_TYPEDEF`.
pub const TYPEDEF: u32 = 8;
/// `BTF_KIND_CONST`.
pub const CONST: u32 = 10;
/// `BTF_KIND_FUNC`.
pub const FUNC: u32 = 12;
/// `BTF_KIND_FUNC_PROTO`.
pub const PROTO: u32 = 13;
/// `BTF_KIND_FLOAT`.
pub const FLOAT: u32 = 16;
/// `BTF_INT_SIGNED`, in an INT's encoding word.
pub const SIGNED: u32 = 1 << 24;
/// `BTF_INT_BOOL`, in an INT's encoding word.
pub const BOOL: u32 = 4 << 24;

/// A blob being built: types are pushed as raw records, ids from 1.
pub struct Builder {
    types: Vec<u8>,
    strings: Vec<u8>,
    next: u32,
    /// Where this blob's strings start, as offsets count (a split blob's:
    /// the base's string section's length).
    str_base: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// An empty blob (its string section starts with the empty name).
    pub fn new() -> Self {
        Self {
            types: Vec::new(),
            strings: vec![0],
            next: 1,
            str_base: 0,
        }
    }

    /// An empty blob split on `base`, as a module's is on the kernel's:
    /// its ids go on from the base's last, its string offsets from the end
    /// of the base's strings (its own string section starts with no empty
    /// name: offset 0 is the base's).
    pub fn split(base: &Builder) -> Self {
        Self {
            types: Vec::new(),
            strings: Vec::new(),
            next: base.next,
            str_base: base.str_base + base.strings.len() as u32,
        }
    }

    /// Adds a string; its offset (0 for the empty one).
    pub fn name(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let off = self.str_base + self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        off
    }

    /// Adds a type record with its trailing words; its id.
    pub fn record(
        &mut self,
        name: &str,
        kind: u32,
        vlen: u32,
        size_or_type: u32,
        extra: &[u32],
    ) -> u32 {
        let name_off = self.name(name);
        for w in [name_off, (kind << 24) | vlen, size_or_type]
            .iter()
            .chain(extra)
        {
            self.types.extend_from_slice(&w.to_le_bytes());
        }
        self.next += 1;
        self.next - 1
    }

    /// An unsigned integer of `size` bytes.
    pub fn int(&mut self, name: &str, size: u32) -> u32 {
        self.int_enc(name, size, 0)
    }

    /// An integer of `size` bytes with `encoding` ([`SIGNED`], [`BOOL`]).
    pub fn int_enc(&mut self, name: &str, size: u32, encoding: u32) -> u32 {
        self.record(name, INT, 0, size, &[encoding | size * 8])
    }

    /// A struct of `size` bytes with one `int` member.
    pub fn strukt(&mut self, name: &str, size: u32) -> u32 {
        let int = self.int("m", 4);
        let n = self.name("x");
        self.record(name, STRUCT, 1, size, &[n, int, 0])
    }

    /// A function `name` with these unnamed parameter types (0: `...`)
    /// returning `ret`.
    pub fn func(&mut self, name: &str, ret: u32, params: &[u32]) -> u32 {
        let named: Vec<(&str, u32)> = params.iter().map(|&t| ("", t)).collect();
        self.func_named(name, ret, &named)
    }

    /// A function `name` with these named parameters returning `ret`.
    pub fn func_named(&mut self, name: &str, ret: u32, params: &[(&str, u32)]) -> u32 {
        let mut extra = Vec::new();
        for &(n, t) in params {
            extra.push(self.name(n));
            extra.push(t);
        }
        let proto = self.record("", PROTO, params.len() as u32, ret, &extra);
        self.record(name, FUNC, 0, proto, &[])
    }

    /// The blob: its header, types and strings.
    pub fn blob(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&0xeb9fu16.to_le_bytes());
        b.push(1);
        b.push(0);
        let (t, s) = (self.types.len() as u32, self.strings.len() as u32);
        for w in [24, 0, t, t, s] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&self.types);
        b.extend_from_slice(&self.strings);
        b
    }
}
