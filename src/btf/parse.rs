// SPDX-License-Identifier: GPL-2.0

//! The kernel's BTF blob, read: its header, its type records and strings,
//! and the lookups both wings make of it (a function's prototype by name,
//! a type with its typedefs and qualifiers skipped). The exit trampoline's
//! rule (`direct::signature`) and the fetch-argument compiler's prototype
//! (`events::prototype`) are built on it.
//!
//! A module's BTF (`/sys/kernel/btf/MOD`) is split BTF on the kernel's: its
//! type ids go on from the last of vmlinux's, its string offsets from the
//! end of vmlinux's string section, and its types name vmlinux's. A split
//! blob ([`Btf::parse_split`]) reads as the two sections laid end to end:
//! a type's offset past the base's type section is in the module's, and
//! an id up to the base's count is the base's.
//!
//! Pure logic on the raw BTF bytes (little-endian, as on x86-64), with no
//! kernel types, so that `tests/` runs it on the host. It never allocates:
//! the caller gives it room for the type offsets and the function index.

/// The BTF header's magic.
pub const MAGIC: u16 = 0xeb9f;
/// The length of a type record without its trailing data.
pub const TYPE_LEN: usize = 12;

/// `BTF_KIND_INT`.
pub const KIND_INT: u32 = 1;
/// `BTF_KIND_PTR`.
pub const KIND_PTR: u32 = 2;
/// `BTF_KIND_ARRAY`.
pub const KIND_ARRAY: u32 = 3;
/// `BTF_KIND_STRUCT`.
pub const KIND_STRUCT: u32 = 4;
/// `BTF_KIND_UNION`.
pub const KIND_UNION: u32 = 5;
/// `BTF_KIND_ENUM`.
pub const KIND_ENUM: u32 = 6;
/// `BTF_KIND_FWD`.
pub const KIND_FWD: u32 = 7;
/// `BTF_KIND_TYPEDEF`.
pub const KIND_TYPEDEF: u32 = 8;
/// `BTF_KIND_VOLATILE`.
pub const KIND_VOLATILE: u32 = 9;
/// `BTF_KIND_CONST`.
pub const KIND_CONST: u32 = 10;
/// `BTF_KIND_RESTRICT`.
pub const KIND_RESTRICT: u32 = 11;
/// `BTF_KIND_FUNC`.
pub const KIND_FUNC: u32 = 12;
/// `BTF_KIND_FUNC_PROTO`.
pub const KIND_FUNC_PROTO: u32 = 13;
/// `BTF_KIND_VAR`.
pub const KIND_VAR: u32 = 14;
/// `BTF_KIND_DATASEC`.
pub const KIND_DATASEC: u32 = 15;
/// `BTF_KIND_FLOAT`.
pub const KIND_FLOAT: u32 = 16;
/// `BTF_KIND_DECL_TAG`.
pub const KIND_DECL_TAG: u32 = 17;
/// `BTF_KIND_TYPE_TAG`.
pub const KIND_TYPE_TAG: u32 = 18;
/// `BTF_KIND_ENUM64`.
pub const KIND_ENUM64: u32 = 19;

/// The most typedef/qualifier links followed from one type (BTF has no
/// cycles there, but a corrupt blob must not loop).
pub const MAX_CHAIN: usize = 32;

/// The little-endian `u16` at `at`.
pub fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// The little-endian `u32` at `at`.
pub fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// One BTF type record.
#[derive(Clone, Copy)]
pub struct Type {
    /// Its name, an offset into the string section.
    pub name_off: u32,
    /// `BTF_KIND_*`.
    pub kind: u32,
    /// For a struct or union: its members' offsets carry bitfield sizes.
    pub kind_flag: bool,
    /// How many members, parameters or enumerators follow it.
    pub vlen: usize,
    /// `size` or `type`, by kind.
    pub size_or_type: u32,
    /// Where its trailing data starts, in the type section.
    pub extra: usize,
}

/// A parsed BTF blob: its type and string sections, and for a split blob
/// (a module's) the base's (the kernel's).
pub struct Btf<'a> {
    types: &'a [u8],
    strings: &'a [u8],
    base: Option<Base<'a>>,
}

/// A split blob's base: the kernel's sections and its type offsets.
#[derive(Clone, Copy)]
struct Base<'a> {
    types: &'a [u8],
    strings: &'a [u8],
    offsets: &'a [u32],
}

impl<'a> Btf<'a> {
    /// The sections of a raw BTF blob, if its header is sound.
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let (types, strings) = Self::sections(data)?;
        Some(Self {
            types,
            strings,
            base: None,
        })
    }

    /// A module's raw blob, split on `base` (a blob that is not split
    /// itself) whose type offsets are `base_offsets` ([`Btf::offsets`]'
    /// output), if its header is sound.
    pub fn parse_split(data: &'a [u8], base: &Btf<'a>, base_offsets: &'a [u32]) -> Option<Self> {
        if base.base.is_some() {
            return None;
        }
        let (types, strings) = Self::sections(data)?;
        Some(Self {
            types,
            strings,
            base: Some(Base {
                types: base.types,
                strings: base.strings,
                offsets: base_offsets,
            }),
        })
    }

    /// A raw blob's type and string sections.
    fn sections(data: &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
        if u16_at(data, 0)? != MAGIC {
            return None;
        }
        let hdr_len = u32_at(data, 4)? as usize;
        let type_off = u32_at(data, 8)? as usize;
        let type_len = u32_at(data, 12)? as usize;
        let str_off = u32_at(data, 16)? as usize;
        let str_len = u32_at(data, 20)? as usize;
        let at = |off: usize, len: usize| {
            let start = hdr_len.checked_add(off)?;
            data.get(start..start.checked_add(len)?)
        };
        Some((at(type_off, type_len)?, at(str_off, str_len)?))
    }

    /// The length of the base's type section (0: not split): where this
    /// blob's own types start, as offsets count.
    fn base_len(&self) -> usize {
        self.base.map_or(0, |b| b.types.len())
    }

    /// How many types the base has (0: not split): this blob's first id
    /// is one more.
    fn base_count(&self) -> u32 {
        self.base.map_or(0, |b| b.offsets.len() as u32)
    }

    /// The little-endian word at `at` of the type sections (the base's,
    /// then this blob's, end to end).
    pub fn word(&self, at: usize) -> Option<u32> {
        match self.base {
            Some(b) if at < b.types.len() => u32_at(b.types, at),
            Some(b) => u32_at(self.types, at - b.types.len()),
            None => u32_at(self.types, at),
        }
    }

    /// The type record at `off` in the type sections.
    pub fn type_at(&self, off: usize) -> Option<Type> {
        let info = self.word(off + 4)?;
        Some(Type {
            name_off: self.word(off)?,
            // Kind in bits 24-30 and vlen in bits 0-23, as 7.3's uapi
            // btf.h has them; on 6.12 (bits 24-28 and 0-15) the bits
            // between are always 0, so one reading serves both.
            kind: (info >> 24) & 0x7f,
            kind_flag: info >> 31 != 0,
            vlen: (info & 0x00ff_ffff) as usize,
            size_or_type: self.word(off + 8)?,
            extra: off + TYPE_LEN,
        })
    }

    /// The length of a type record, trailing data included.
    fn record_len(t: &Type) -> Option<usize> {
        let extra = match t.kind {
            KIND_INT | KIND_VAR | KIND_DECL_TAG => 4,
            KIND_ARRAY => 12,
            KIND_STRUCT | KIND_UNION | KIND_DATASEC | KIND_ENUM64 => 12 * t.vlen,
            KIND_ENUM | KIND_FUNC_PROTO => 8 * t.vlen,
            KIND_PTR | KIND_FWD | KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT
            | KIND_FUNC | KIND_FLOAT | KIND_TYPE_TAG => 0,
            _ => return None,
        };
        Some(TYPE_LEN + extra)
    }

    /// Walks this blob's own type section: `f(i, offset)` for its `i`th
    /// type (from 0; its id is the base's count plus `i + 1`), its offset
    /// as [`Btf::type_at`] takes it. Returns how many; `None` if a record
    /// is malformed.
    fn walk(&self, mut f: impl FnMut(usize, usize)) -> Option<usize> {
        let (base, mut off, mut i) = (self.base_len(), 0usize, 0usize);
        while off < self.types.len() {
            let at = base.checked_add(off)?;
            let t = self.type_at(at)?;
            u32::try_from(at).ok()?;
            f(i, at);
            i += 1;
            off = off.checked_add(Self::record_len(&t)?)?;
        }
        (off == self.types.len()).then_some(i)
    }

    /// How many types this blob has of its own (the room [`Btf::offsets`]
    /// needs).
    pub fn count(&self) -> Option<usize> {
        self.walk(|_, _| {})
    }

    /// Fills `out[i]` with the offset of this blob's `i`th type (id
    /// `i + 1`, after the base's in a split blob); `out` must have
    /// [`Btf::count`] entries. Then also counts the functions (the room
    /// [`Btf::index_functions`] needs).
    pub fn offsets(&self, out: &mut [u32]) -> Option<usize> {
        let mut ok = true;
        let mut funcs = 0;
        self.walk(|id, off| {
            match out.get_mut(id) {
                Some(o) => *o = off as u32,
                None => ok = false,
            }
            if self.type_at(off).is_some_and(|t| t.kind == KIND_FUNC) {
                funcs += 1;
            }
        })?;
        ok.then_some(funcs)
    }

    /// The string at `off` in the string sections (the base's, then this
    /// blob's).
    pub fn string(&self, off: u32) -> Option<&'a [u8]> {
        let (strings, off) = match self.base {
            Some(b) if (off as usize) < b.strings.len() => (b.strings, off as usize),
            Some(b) => (self.strings, off as usize - b.strings.len()),
            None => (self.strings, off as usize),
        };
        let rest = strings.get(off..)?;
        let end = rest.iter().position(|&c| c == 0)?;
        rest.get(..end)
    }

    /// Type `id`, through [`Btf::offsets`]' table (a base's id through the
    /// base's).
    pub fn get(&self, offsets: &[u32], id: u32) -> Option<Type> {
        let i = (id as usize).checked_sub(1)?;
        let off = match self.base {
            Some(b) if i < b.offsets.len() => *b.offsets.get(i)?,
            Some(b) => *offsets.get(i - b.offsets.len())?,
            None => *offsets.get(i)?,
        };
        self.type_at(off as usize)
    }

    /// Fills `out` with the ids of every function of this blob's own
    /// (a module's, not its base's), sorted by name (so that
    /// [`Btf::functions_named`] finds a name by binary search); `out` must
    /// have the room [`Btf::offsets`] returned.
    pub fn index_functions(&self, offsets: &[u32], out: &mut [u32]) -> Option<()> {
        let first = self.base_count();
        let mut n = 0;
        for (i, &off) in offsets.iter().enumerate() {
            if self.type_at(off as usize)?.kind == KIND_FUNC {
                *out.get_mut(n)? = first.checked_add(u32::try_from(i + 1).ok()?)?;
                n += 1;
            }
        }
        let out = out.get_mut(..n)?;
        let name = |id: u32| {
            self.get(offsets, id)
                .and_then(|t| self.string(t.name_off))
                .unwrap_or(b"")
        };
        // Functions of one name in id order, the first being the one the
        // kernel's `btf_find_by_name_kind()` finds.
        crate::sort::sort_by(out, |&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        Some(())
    }

    /// The ids in `funcs` ([`Btf::index_functions`]' output) of the
    /// functions named `name`, in the index's order.
    pub fn functions_named<'f>(&self, offsets: &[u32], funcs: &'f [u32], name: &[u8]) -> &'f [u32] {
        let name_of = |id: u32| {
            self.get(offsets, id)
                .and_then(|t| self.string(t.name_off))
                .unwrap_or(b"")
        };
        let from = funcs.partition_point(|&id| name_of(id) < name);
        let to = funcs.partition_point(|&id| name_of(id) <= name);
        funcs.get(from..to).unwrap_or(&[])
    }

    /// Follows typedefs and qualifiers from `id` to the type they name, as
    /// the kernel's `btf_type_skip_modifiers()` does (`None`: a dangling
    /// id, type 0 (void), or a chain longer than [`MAX_CHAIN`]).
    pub fn skip_modifiers(&self, offsets: &[u32], mut id: u32) -> Option<Type> {
        for _ in 0..MAX_CHAIN {
            let t = self.get(offsets, id)?;
            match t.kind {
                KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT | KIND_TYPE_TAG => {
                    id = t.size_or_type;
                }
                _ => return Some(t),
            }
        }
        None
    }

    /// The `i`th entry of a FUNC_PROTO's (or an ENUM's) trailing list: its
    /// name offset and its type (or value).
    pub fn param(&self, proto: &Type, i: usize) -> Option<(u32, u32)> {
        if i >= proto.vlen {
            return None;
        }
        let at = proto.extra.checked_add(8 * i)?;
        Some((self.word(at)?, self.word(at + 4)?))
    }

    /// An INT's encoding word (`BTF_INT_ENCODING`, `_OFFSET`, `_BITS`), or
    /// an ARRAY's element type: the first word after the record.
    pub fn first_word(&self, t: &Type) -> Option<u32> {
        self.word(t.extra)
    }
}
