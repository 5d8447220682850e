// SPDX-License-Identifier: GPL-2.0

//! Walking core-kernel text symbols, for glob targets; and where in a
//! symbol (a module's too) the kernel put a probe.
//!
//! One walk asks `sprint_symbol` for every symbol, a fixed cost of tens of
//! thousands of lookups that a batch of 16 names paid as much as one of
//! 16,000 (and that an in-kernel user such as a kprobe_multi link does not
//! pay: it has `kallsyms_lookup_name`). Core-kernel text does not change
//! after boot, so [`TextTable`] keeps what the module's one walk found,
//! from the first `create` (or BTF read) that needed it until unload (the
//! engine holds it, with its other caches), and every later use reads that
//! instead.
//!
//! Modules get no symbol iterator (`kallsyms_on_each_symbol` is not
//! exported, and `/proc/kallsyms` has no `read_iter` for `kernel_read`), but
//! `sprint_symbol()` is: see [`crate::symname`] for how a walk of
//! `start - offset + size` visits every text symbol from `_stext` to `_etext`
//! in address order.

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

use kernel::ffi::{c_char, c_ulong};
use kernel::prelude::*;

use crate::bindings;
use crate::symname::{parse_sprint_symbol_bytes, SymbolAt};

mod held;
pub(crate) use held::{copy as copy_name, HeldModules, GONE};

/// Bigger than `KSYM_SYMBOL_LEN`, which bindgen cannot evaluate.
const SYMBOL_BUF: usize = 1024;
/// A bound on any walk, far above the number of kernel text symbols.
const MAX_STEPS: usize = 1 << 21;

/// The start of core-kernel text, found once.
static TEXT_START: AtomicUsize = AtomicUsize::new(0);

struct Lookup(KVec<u8>);

impl Lookup {
    fn new() -> Result<Self> {
        Ok(Self(KVec::from_elem(0u8, SYMBOL_BUF, GFP_KERNEL)?))
    }

    /// The symbol that contains `addr`, the core kernel's or a module's.
    fn any_at(&mut self, addr: usize) -> Option<SymbolAt<'_>> {
        // SAFETY: The buffer holds `SYMBOL_BUF` > `KSYM_SYMBOL_LEN` bytes,
        // which is all `sprint_symbol` writes, NUL included.
        let len = unsafe { bindings::sprint_symbol(self.0.as_mut_ptr().cast::<c_char>(), addr) };
        let len = usize::try_from(len).ok()?.min(SYMBOL_BUF);
        parse_sprint_symbol_bytes(self.0.get(..len)?)
    }

    /// The core-kernel symbol that contains `addr` (`None`: a module's).
    fn at(&mut self, addr: usize) -> Option<SymbolAt<'_>> {
        self.any_at(addr).filter(|s| s.module.is_none())
    }
}

fn text_start(lookup: &mut Lookup) -> Result<usize> {
    let cached = TEXT_START.load(Ordering::Relaxed);
    if cached != 0 {
        return Ok(cached);
    }
    // Any core-kernel function will do as a starting point.
    let mut addr = bindings::sprint_symbol as *const () as usize;
    let mut start = 0;
    for _ in 0..MAX_STEPS {
        let Some(sym) = lookup.at(addr) else { break };
        let Some(sym_start) = addr.checked_sub(sym.offset as usize) else {
            break;
        };
        start = sym_start;
        let Some(before) = start.checked_sub(1) else {
            break;
        };
        addr = before;
    }
    if start == 0 {
        return Err(ENOENT);
    }
    TEXT_START.store(start, Ordering::Relaxed);
    Ok(start)
}

/// The offset of `addr` into the symbol that contains it, the core
/// kernel's or a module's: the kernel resolves a module's function by name
/// like any other (`kallsyms_lookup_name` falls back to the modules), so a
/// probe it put there is checked against that function's size. `None`
/// where no symbol contains it; `ENOMEM` if there was no room to ask.
pub(crate) fn offset_in_symbol(addr: usize) -> Result<Option<u64>> {
    let mut lookup = Lookup::new()?;
    Ok(lookup.any_at(addr).map(|s| s.offset))
}

/// The symbol that contains an address.
pub(crate) struct OwnedSymbol {
    /// Its name (a module's as `MOD:SYM`, from [`symbol_any_at`]).
    pub(crate) name: KVec<u8>,
    /// The address's offset into it.
    pub(crate) offset: u32,
    /// Its size (up to the next symbol).
    pub(crate) size: usize,
}

/// The core-kernel symbol that contains `addr` (`None`: a module's, or none).
pub(crate) fn symbol_at(addr: usize) -> Result<Option<OwnedSymbol>> {
    let mut lookup = Lookup::new()?;
    let sym = lookup.at(addr);
    owned(sym)
}

/// The symbol that contains `addr`, the core kernel's or a module's (named
/// `MOD:SYM` then, as a probe line names it); `None`: none does.
pub(crate) fn symbol_any_at(addr: usize) -> Result<Option<OwnedSymbol>> {
    let mut lookup = Lookup::new()?;
    let sym = lookup.any_at(addr);
    owned(sym)
}

fn owned(sym: Option<SymbolAt<'_>>) -> Result<Option<OwnedSymbol>> {
    let Some(sym) = sym else {
        return Ok(None);
    };
    let Ok(offset) = u32::try_from(sym.offset) else {
        return Ok(None);
    };
    if sym.size == 0 || sym.offset >= sym.size {
        return Ok(None);
    }
    let mut name = KVec::new();
    if let Some(m) = sym.module {
        name.extend_from_slice(m.as_bytes(), GFP_KERNEL)?;
        name.push(b':', GFP_KERNEL)?;
    }
    name.extend_from_slice(sym.name.as_bytes(), GFP_KERNEL)?;
    Ok(Some(OwnedSymbol {
        name,
        offset,
        size: sym.size as usize,
    }))
}

/// This module's name (Kbuild's `obj-m`), which `MOD:GLOB` may not name.
const THIS_MODULE_NAME: &[u8] = b"batchprobe";

/// The name of `module`, as `MOD:SYM` names it: at most
/// `MODULE_NAME_LEN` bytes, no NUL.
///
/// # Safety
///
/// `module` is a live module, and stays so for `'a`.
pub(crate) unsafe fn module_name<'a>(module: *mut bindings::module) -> &'a [u8] {
    // SAFETY: `module` is live (caller); `bp_module_name()` gives its
    // name, NUL-terminated within `MODULE_NAME_LEN` bytes, which lives as
    // long as the module.
    let p = unsafe { bindings::bp_module_name(module) }.cast::<u8>();
    let mut len = 0;
    // SAFETY: As above: every byte up to the NUL is readable.
    while len < crate::command::MODULE_NAME_LEN && unsafe { *p.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: The `len` bytes before the NUL, live for `'a` (caller).
    unsafe { core::slice::from_raw_parts(p, len) }
}

/// A loaded module's text, for a `MOD:GLOB` line: its functions are
/// walked as the core kernel's are ([`crate::symname`]'s `sprint_symbol`
/// steps), from the start of the module's text to its end.
///
/// # Invariants
///
/// `module` is a live module of which this holds a reference (taken by
/// `bp_module_next()`, put on drop): its text, `start` to `start + size`,
/// stays mapped and its symbols stay listed while this lives.
pub(crate) struct ModuleText {
    module: *mut bindings::module,
    start: usize,
    size: usize,
}

impl ModuleText {
    /// The loaded module called `name`, held loaded: the walk of
    /// [`ModuleText::next`] until it meets the name. `ENOENT`: no live
    /// module has that name (one loading or going counts as none, as for
    /// `kprobe_events`' `MOD:SYM`); `EPERM`: it is batchprobe, which that
    /// walk leaves out.
    pub(crate) fn find(name: &[u8]) -> Result<Self> {
        if name == THIS_MODULE_NAME {
            return Err(EPERM);
        }
        let mut text = Self::next(None)?;
        while let Some(t) = text {
            if t.name() == name {
                return Ok(t);
            }
            text = Self::next(Some(&t))?;
        }
        Err(ENOENT)
    }

    /// The live module after `prev` on the list of modules (`None`: the
    /// first), batchprobe left out, held loaded; `None` past the last: a
    /// `*:GLOB` line's walk of every module.
    pub(crate) fn next(prev: Option<&Self>) -> Result<Option<Self>> {
        let mut module = core::ptr::null_mut();
        let (mut start, mut size): (c_ulong, c_ulong) = (0, 0);
        let prev = prev.map_or(core::ptr::null_mut(), |p| p.module);
        // SAFETY: `prev` is null or a module this holds a reference on
        // (type invariant of `Self`), which keeps it on the list (but for
        // a forced unload, `rmmod -f`, which ignores references: unsafe
        // by the kernel's own account, it taints); the out-pointers are
        // valid for writes.
        let err = unsafe { bindings::bp_module_next(prev, &mut module, &mut start, &mut size) };
        if err == -(bindings::ENOENT as i32) {
            return Ok(None);
        }
        kernel::error::to_result(err)?;
        // INVARIANT: `bp_module_next()` took a reference on the live
        // `module` and gave its text.
        Ok(Some(Self {
            module,
            start,
            size,
        }))
    }

    /// The module's name, as `MOD:SYM` names it: at most `MODULE_NAME_LEN`
    /// bytes, no NUL.
    pub(crate) fn name(&self) -> &[u8] {
        // SAFETY: `module` is live while this holds it (type invariant).
        unsafe { module_name(self.module) }
    }

    /// Calls `f` with the name, address and size of every symbol of the
    /// module's text, in address order, until `f` returns `Ok(false)` or an
    /// error, which is returned as it is. Addresses no symbol covers
    /// (before the first) are stepped over; a bounded walk that reschedules
    /// as it goes and stops (`EINTR`) when the writer is killed: each
    /// `sprint_symbol()` of a module's address scans the module's whole
    /// symbol table, so a large module's walk is long.
    pub(crate) fn for_each_function<E: From<Error>>(
        &self,
        mut f: impl FnMut(&str, usize, usize) -> Result<bool, E>,
    ) -> Result<(), E> {
        let mut lookup = Lookup::new()?;
        let end = self.start.saturating_add(self.size);
        let mut addr = self.start;
        let mut steps = 0usize;
        while addr < end && steps < MAX_STEPS {
            steps += 1;
            if steps % 64 == 0 {
                crate::sched::resched_unless_killed()?;
            }
            let next = match lookup.any_at(addr) {
                Some(sym) if sym.module.is_some() && sym.size > 0 => {
                    let sym_start = addr.wrapping_sub(sym.offset as usize);
                    let next = sym_start.saturating_add(sym.size as usize);
                    if !f(sym.name, sym_start, sym.size as usize)? {
                        break;
                    }
                    next
                }
                // No symbol here (padding before the first): on to the
                // next possible function start.
                _ => (addr | 15) + 1,
            };
            addr = next.max(addr + 1);
        }
        Ok(())
    }
}

impl Drop for ModuleText {
    fn drop(&mut self) {
        // SAFETY: This holds a reference on `module` (type invariant),
        // put once, here.
        unsafe { bindings::bp_module_put(self.module) };
    }
}

/// A reference on a module that outlives the walk that took it
/// ([`ModuleHold::new`]): the module stays loaded until it is put, once,
/// by [`ModuleHold::release`] or on drop. It reads nothing of the module.
///
/// # Invariants
///
/// `module` is null once put, else a module on which this holds a
/// reference.
pub(crate) struct ModuleHold {
    module: AtomicPtr<bindings::module>,
}

impl ModuleHold {
    /// Keeps `text`'s reference on its module.
    pub(crate) fn new(text: ModuleText) -> Self {
        let module = text.module;
        // The reference passes to this value: `text`'s drop must not put it.
        core::mem::forget(text);
        // INVARIANT: `text` held a reference on `module` (its invariant).
        Self {
            module: AtomicPtr::new(module),
        }
    }

    /// Whether the reference is still held.
    pub(crate) fn is_held(&self) -> bool {
        !self.module.load(Ordering::Acquire).is_null()
    }

    /// Puts the reference, if it is still held: the module may unload.
    pub(crate) fn release(&self) {
        let module = self.module.swap(core::ptr::null_mut(), Ordering::AcqRel);
        if !module.is_null() {
            // SAFETY: This held a reference on `module` (type invariant),
            // put once: the swap left null behind.
            unsafe { bindings::bp_module_put(module) };
        }
    }
}

impl Drop for ModuleHold {
    fn drop(&mut self) {
        self.release();
    }
}

// SAFETY: A module reference may be put by any task; the pointer is only
// swapped atomically and never dereferenced here.
unsafe impl Send for ModuleHold {}
// SAFETY: See `Send`.
unsafe impl Sync for ModuleHold {}

/// A core-kernel text symbol.
pub(crate) struct TextSymbol<'a> {
    /// Its name.
    pub(crate) name: &'a str,
    /// Its address.
    pub(crate) addr: usize,
    /// Its size (up to the next symbol).
    pub(crate) size: usize,
    /// Its place in address order among the walk's symbols: its index in
    /// the [`TextTable`].
    pub(crate) index: usize,
}

/// Every core-kernel text symbol, in address order, as one walk
/// ([`for_each_text_symbol`]) found it.
///
/// Core-kernel text (`_stext` to `_etext`) is fixed once the kernel has
/// booted, so the table never goes stale. Its size follows the kernel's
/// symbol count, never user input: the names plus three words and
/// 8 to 16 bytes of name index per symbol (about 1 MiB for 25,000
/// symbols), in `KVVec`s.
///
/// # Invariants
///
/// `names` is the symbols' names one after another, each stored whole from
/// a `&str`; the third word of `syms[i]` is where name `i` ends (it starts
/// where name `i - 1` ends, or at 0). `by_name` has a power-of-two length,
/// at least twice the symbols' count; each name is in it once, as `i + 1`
/// for the first symbol `i` of that name in address order, in the first
/// slot holding no other name from [`name_hash`]'s slot on (0: empty).
pub(crate) struct TextTable {
    /// Every symbol's name, one after another.
    names: KVVec<u8>,
    /// Per symbol, in address order: its address, its size, and where its
    /// name ends in `names` (it starts where the previous one ends).
    syms: KVVec<(usize, usize, usize)>,
    /// The first symbol of each name, hashed (open addressing, linear
    /// probing): a name is found with one hash and mostly one comparison.
    /// A binary search of the sorted names made about 15 string
    /// comparisons per name, the largest part of batchprobe's own `create`
    /// of 18,000 explicit names (sampled).
    by_name: KVVec<u32>,
}

/// FNV-1a, 64 bits: the name index's hash.
fn name_hash(name: &[u8]) -> u64 {
    name.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl TextTable {
    /// Walks the kernel's text symbols once and keeps them.
    pub(crate) fn new() -> Result<Self> {
        Self::new_unless(&AtomicBool::new(false))
    }

    /// [`TextTable::new`], giving up with `EINTR` as soon as `stop` is set
    /// (by unload, for a walk on a workqueue, which no signal reaches).
    pub(crate) fn new_unless(stop: &AtomicBool) -> Result<Self> {
        let mut names = KVVec::new();
        let mut syms = KVVec::new();
        for_each_text_symbol(|s| -> Result<bool> {
            if stop.load(Ordering::Relaxed) {
                return Err(EINTR);
            }
            names.extend_from_slice(s.name.as_bytes(), GFP_KERNEL)?;
            syms.push((s.addr, s.size, names.len()), GFP_KERNEL)?;
            Ok(true)
        })?;
        let n = u32::try_from(syms.len()).map_err(|_| E2BIG)?;
        let slots = syms
            .len()
            .checked_mul(2)
            .and_then(usize::checked_next_power_of_two)
            .ok_or(E2BIG)?
            .max(2);
        let mut table = Self {
            names,
            syms,
            by_name: KVVec::from_elem(0u32, slots, GFP_KERNEL)?,
        };
        for i in 0..n {
            let name = table.name(i as usize);
            match table.slot_of(name) {
                Ok(_) => (), // A later symbol of a name already in.
                Err(free) => {
                    if let Some(slot) = table.by_name.get_mut(free) {
                        *slot = i + 1;
                    }
                }
            }
            if i % 1024 == 1023 {
                crate::sched::cond_resched();
            }
        }
        Ok(table)
    }

    /// Where `name` is in the name index: `Ok(slot)` if it is there,
    /// `Err(slot)` the empty slot it would take.
    fn slot_of(&self, name: &[u8]) -> Result<usize, usize> {
        let mask = self.by_name.len().wrapping_sub(1);
        let mut at = (name_hash(name) as usize) & mask;
        // At most half the slots are taken: an empty one comes within
        // `len` probes.
        for _ in 0..self.by_name.len() {
            match self.by_name.get(at).copied() {
                None | Some(0) => return Err(at),
                Some(i) if self.name((i as usize).wrapping_sub(1)) == name => return Ok(at),
                Some(_) => at = (at + 1) & mask,
            }
        }
        Err(at)
    }

    /// How many symbols it holds.
    pub(crate) fn len(&self) -> usize {
        self.syms.len()
    }

    /// Symbol `i`'s name (empty past the end).
    fn name(&self, i: usize) -> &[u8] {
        let from = match i.checked_sub(1) {
            Some(p) => self.syms.get(p).map_or(0, |s| s.2),
            None => 0,
        };
        let end = self.syms.get(i).map_or(from, |s| s.2);
        self.names.get(from..end).unwrap_or(&[])
    }

    /// The index of the first symbol named `name`, in address order (the
    /// one a walk meets first).
    pub(crate) fn first_named(&self, name: &[u8]) -> Option<usize> {
        let slot = self.slot_of(name).ok()?;
        let i = *self.by_name.get(slot)?;
        (i as usize).checked_sub(1)
    }

    /// Where core-kernel text starts and ends: from the first symbol to
    /// the end of the last (empty for an empty table).
    pub(crate) fn span(&self) -> core::ops::Range<usize> {
        let start = self.syms.first().map_or(0, |s| s.0);
        let end = self.syms.last().map_or(start, |s| s.0.saturating_add(s.1));
        start..end
    }

    /// Symbol `i`'s address and size.
    pub(crate) fn get(&self, i: usize) -> Option<(usize, usize)> {
        self.syms.get(i).map(|&(addr, size, _)| (addr, size))
    }

    /// The index of the symbol that starts at `addr`, if one does.
    pub(crate) fn index_of(&self, addr: usize) -> Option<usize> {
        self.syms.binary_search_by_key(&addr, |s| s.0).ok()
    }

    /// Calls `f` for every symbol, in address order, until `f` returns
    /// `Ok(false)` or an error, which is returned as it is: the walk that
    /// filled the table, from memory.
    pub(crate) fn for_each<E>(
        &self,
        mut f: impl FnMut(TextSymbol<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        let mut from = 0;
        for (i, &(addr, size, end)) in self.syms.iter().enumerate() {
            if i % 1024 == 1023 {
                crate::sched::cond_resched();
            }
            let name = match self.names.get(from..end) {
                // SAFETY: Each name was a whole `&str` when it was stored,
                // and `from..end` are its bounds (type invariant): valid
                // UTF-8, which checking again cost a walk of every name
                // (2% of a `create` of 18,000 functions, sampled).
                Some(b) => unsafe { core::str::from_utf8_unchecked(b) },
                None => "",
            };
            from = end;
            if !f(TextSymbol {
                name,
                addr,
                size,
                index: i,
            })? {
                break;
            }
        }
        Ok(())
    }
}

/// Calls `f` for every core-kernel text symbol, in address order, until
/// `f` returns `Ok(false)` or an error, which is returned as it is (the
/// walk's own errors, reading the symbol table, become an `E` too).
fn for_each_text_symbol<E: From<Error>>(
    mut f: impl FnMut(TextSymbol<'_>) -> Result<bool, E>,
) -> Result<(), E> {
    let mut lookup = Lookup::new()?;
    let mut addr = text_start(&mut lookup)?;
    for step in 0..MAX_STEPS {
        if step % 256 == 255 {
            crate::sched::cond_resched();
        }
        let Some(sym) = lookup.at(addr) else { break };
        if sym.name == "_etext" || sym.size == 0 {
            break;
        }
        let start = addr.wrapping_sub(sym.offset as usize);
        // SAFETY: Reads the kernel's page tables for any address.
        if !unsafe { bindings::bp_kernel_text_mapped(start as c_ulong) } {
            // Past core-kernel text: rodata, data, the freed init text,
            // bss. With KALLSYMS_ALL (every kernel we build, and Debian's)
            // kallsyms lists them all, and may name `_etext` by another
            // symbol at its address (6.12: `__start_rodata` or a string),
            // so that the name check above never fires (on 7.3 `_etext`
            // is mid-page and has its name, or `__static_call_text_end`'s,
            // whose page is still executable: the next symbol stops it).
            // Walked on, they had made 69,880 "text" symbols of the debug
            // kernel's 24,720 (Debian's image: 149,942 of 121,847), and
            // the freed init text, filled with int3, thousands of false
            // ftrace call sites. (Under `rodata=off` rodata and data stay
            // executable, and the walk ends at the freed init text.)
            break;
        }
        let next = start.wrapping_add(sym.size as usize);
        let this = TextSymbol {
            name: sym.name,
            addr: start,
            size: sym.size as usize,
            index: step,
        };
        if !f(this)? || next <= addr {
            break;
        }
        addr = next;
    }
    Ok(())
}

/// A symbol table the kernel prints (`/proc/kallsyms`, kprobes' debugfs
/// `blacklist`), read whole as the writer (`rust/kallsyms.c`).
///
/// # Invariants
///
/// `raw` points to `len` bytes that the C side vmalloc'ed, owned by this
/// value.
pub(crate) struct Printed {
    raw: *mut u8,
    len: usize,
}

impl Printed {
    /// `/proc/kallsyms`, up to `max` bytes (`EFBIG` beyond).
    pub(crate) fn kallsyms(max: usize) -> Result<Self> {
        Self::read(bindings::bp_kallsyms_read, max)
    }

    /// kprobes' debugfs `blacklist`, up to `max` bytes (`EFBIG` beyond;
    /// `ENOENT` without debugfs at `/sys/kernel/debug`).
    pub(crate) fn kprobe_blacklist(max: usize) -> Result<Self> {
        Self::read(bindings::bp_kprobe_blacklist_read, max)
    }

    /// The file one of `rust/kallsyms.c`'s readers reads: `ret` bytes it
    /// vmalloc'ed at `buf`, or a negative errno.
    fn read(
        reader: unsafe extern "C" fn(*mut *mut kernel::ffi::c_void, usize) -> kernel::ffi::c_long,
        max: usize,
    ) -> Result<Self> {
        let mut buf: *mut kernel::ffi::c_void = core::ptr::null_mut();
        // SAFETY: `reader` is one of rust/kallsyms.c's, which write `buf`
        // only; `buf` is writable; process context (a control write).
        let ret = unsafe { reader(&mut buf, max) };
        if ret < 0 {
            return Err(Error::from_errno(ret as i32));
        }
        // INVARIANT: `buf` holds `ret` bytes from the vmalloc'ed read.
        Ok(Self {
            raw: buf.cast(),
            len: ret as usize,
        })
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: By the type invariant `raw` holds `len` readable bytes.
        unsafe { core::slice::from_raw_parts(self.raw, self.len) }
    }
}

impl Drop for Printed {
    fn drop(&mut self) {
        // SAFETY: By the type invariant `raw` came from vmalloc and is
        // owned here.
        unsafe { bindings::bp_vfree(self.raw.cast()) };
    }
}
