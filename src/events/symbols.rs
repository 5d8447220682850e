// SPDX-License-Identifier: GPL-2.0

//! The addresses of the symbols `@SYM[+|-OFFS]` fetch arguments name.
//!
//! The kernel resolves them with `kallsyms_lookup_name()` when the probe is
//! registered; a module cannot call that (it is not exported since 5.7),
//! and nothing exported looks a data symbol up by name. So a write whose
//! arguments name symbols reads `/proc/kallsyms` once, as the writer
//! (`rust/kallsyms.c`: its credentials decide whether addresses show), and
//! takes each name's first line there: the core kernel's symbols come
//! first, then each module's, as `kallsyms_lookup_name()` looks (core
//! kernel, then `module_kallsyms_lookup_name()`), and what it lists after
//! those ([`ModuleGroups`]) is left out. A write without `@SYM` reads
//! nothing. (`@MOD:SYM` is not a fetch argument: the kernel's grammar
//! takes the colon for a type's.)

use kernel::prelude::*;

use crate::kallsyms::Printed;
use crate::sched::Pacer;
use crate::sort;
use crate::symname::parse_kallsyms_line;

/// The most bytes of `/proc/kallsyms` read (`EFBIG` beyond): Debian's
/// kernels list some 200,000 symbols in about 9 MiB.
const MAX_KALLSYMS: usize = 64 << 20;

/// The names a write's `@SYM` arguments use, and then their addresses.
///
/// # Invariants
///
/// After [`SymbolAddrs::resolve`], `names` is sorted by name (a repeated
/// name's first entry is the one looked up); an address of 0 is a name
/// `/proc/kallsyms` does not list.
pub(crate) struct SymbolAddrs {
    names: KVVec<(KVec<u8>, u64)>,
}

impl SymbolAddrs {
    /// None yet.
    pub(crate) fn new() -> Self {
        Self {
            names: KVVec::new(),
        }
    }

    /// Whether a name was noted.
    pub(crate) fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Notes `name` (from an `@SYM`, without its offset), to resolve.
    pub(crate) fn note(&mut self, name: &str) -> Result {
        let mut n = KVec::new();
        n.extend_from_slice(name.as_bytes(), GFP_KERNEL)?;
        self.names.push((n, 0), GFP_KERNEL)?;
        Ok(())
    }

    /// The address of `name` (a noted one), as `kallsyms_lookup_name()`
    /// gives it; `None` for one `/proc/kallsyms` does not list.
    pub(crate) fn lookup(&self, name: &str) -> Option<u64> {
        let i = self.find(name.as_bytes())?;
        self.names.get(i).map(|e| e.1).filter(|&a| a != 0)
    }

    /// The first entry of `name`.
    fn find(&self, name: &[u8]) -> Option<usize> {
        let i = self.names.partition_point(|(n, _)| n.as_slice() < name);
        (self.names.get(i)?.0.as_slice() == name).then_some(i)
    }

    /// Looks every noted name up in `/proc/kallsyms`: `EPERM` when the
    /// writer may not see addresses (every one reads as zero), `ENOENT`
    /// without procfs' kallsyms in init's root, `EINTR` once the writer is
    /// killed.
    pub(crate) fn resolve(&mut self) -> Result {
        sort::sort_by(&mut self.names, |a, b| a.0.cmp(&b.0));
        let file = Printed::kallsyms(MAX_KALLSYMS)?;
        let mut pace = Pacer::new(4096);
        let mut groups = ModuleGroups::new();
        let mut shown = false;
        for line in file.bytes().split(|&b| b == b'\n') {
            pace.step()?;
            let Some(l) = core::str::from_utf8(line)
                .ok()
                .and_then(parse_kallsyms_line)
            else {
                continue;
            };
            if !groups.lookup_sees(l.module)? {
                break;
            }
            shown |= l.addr != 0;
            self.take(l.name.as_bytes(), l.addr);
        }
        if !shown {
            return Err(EPERM);
        }
        Ok(())
    }

    /// Gives `name` the address `addr`, unless an earlier line gave it one.
    fn take(&mut self, name: &[u8], addr: u64) {
        if let Some(e) = self.find(name).and_then(|i| self.names.get_mut(i)) {
            if e.1 == 0 {
                e.1 = addr;
            }
        }
    }
}

/// Where `/proc/kallsyms` stops listing what `kallsyms_lookup_name()`
/// finds: after the core kernel's symbols and each module's, in one group
/// per module, it lists ftrace's copies of modules' freed init functions
/// (under their modules' names again), then BPF programs (`[bpf]`) and the
/// ftrace and kprobes trampolines (`[__builtin__ftrace]`,
/// `[__builtin__kprobes]`), which no lookup by name finds.
struct ModuleGroups<'f> {
    /// The modules whose group has ended.
    done: KVVec<&'f str>,
    current: Option<&'f str>,
}

impl<'f> ModuleGroups<'f> {
    fn new() -> Self {
        Self {
            done: KVVec::new(),
            current: None,
        }
    }

    /// Whether a line of `module` (`None`: the core kernel) is still one
    /// `kallsyms_lookup_name()` would find.
    fn lookup_sees(&mut self, module: Option<&'f str>) -> Result<bool> {
        let Some(m) = module else {
            return Ok(self.current.is_none());
        };
        if m == "bpf" || m.starts_with("__builtin__") {
            return Ok(false);
        }
        if self.current == Some(m) {
            return Ok(true);
        }
        if self.done.contains(&m) {
            return Ok(false);
        }
        if let Some(c) = self.current.replace(m) {
            self.done.push(c, GFP_KERNEL)?;
        }
        Ok(true)
    }
}
