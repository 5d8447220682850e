// SPDX-License-Identifier: GPL-2.0

//! Which core-kernel functions ftrace can call, and where: asked once for
//! every text symbol, in batches, instead of once per function per
//! `create`.
//!
//! Asking ftrace about one function ([`super::traceable`]) sets it as the
//! only filter of a scratch `ftrace_ops`: a filter hash allocated, zeroed,
//! moved and freed after a grace period, per function. At tens of thousands
//! of functions that was the largest part of a `create` of our own (144 ms
//! of a 257 ms `create` of 17,349 functions, the twentieth session's
//! profile). [`CallSites`] asks for a whole batch in one
//! `ftrace_set_filter_ips` call instead, the filter update that takes an
//! array, and keeps the answers for every text symbol until unload: core
//! kernel text and its ftrace call sites do not change after boot.
//!
//! Most text symbols are no function ftrace calls (assembly, `notrace`
//! code, the IBT padding symbols), and one refusal fails a whole batch:
//! the function's own first instruction ([`bindings::bp_ftrace_site_guess`]:
//! ftrace's 5-byte NOP, a call or jmp it wrote, or the int3 of a patch
//! under way) leaves out every symbol whose bytes are no ftrace call site,
//! and ftrace decides about the rest. A call or jmp into core-kernel text
//! elsewhere than ftrace's own callers (a tail call, a cold part's first
//! call, a static call's trampoline) and an int3 are suspects, each asked
//! about alone the old way ([`super::check_ip`], which also finds a call
//! site the guess did not), as is each function of a batch ftrace refuses
//! once halving has left it alone. (In batches, the few hundred suspects
//! of a kernel had quadrupled the functions asked about: 73,566 for 17,377
//! candidates on the test kernel.)
//!
//! The table costs a walk of every text symbol and a filter update per
//! thousand, which under KASAN, lockdep and kmemleak (a stack trace saved
//! per hash entry allocated) is seconds, not a tenth of one: a `create`
//! makes it ([`SiteSource`]) only once it has asked ftrace about
//! [`ASK_FIRST`] functions one at a time, and a module that never makes a
//! large set never pays for it.

use kernel::error::to_result;
use kernel::ffi::c_ulong;
use kernel::prelude::*;
use kernel::sync::Arc;

use crate::bindings;
use crate::kallsyms::TextTable;
use crate::kvec;
use crate::locked::Locked;

/// Functions asked about in one filter update. ftrace's scratch hash
/// starts with 1,024 buckets: a batch of that many keeps its chains short.
const BATCH: usize = 1024;

/// Functions a `create` asks ftrace about one at a time before it makes
/// the table instead ([`SiteSource`]): one at a time costs a filter update
/// each (a hash allocated, zeroed and freed), the table a walk of every
/// text symbol and an update per [`BATCH`] candidates, once per module
/// life.
const ASK_FIRST: usize = 1024;

/// ftrace's own callers, the targets of the call it writes at a site of a
/// function it traces through them (its other targets, an ops' or a
/// direct call's trampoline, are outside core-kernel text).
const FTRACE_CALLERS: [&[u8]; 2] = [b"ftrace_caller", b"ftrace_regs_caller"];

/// Where ftrace calls each core-kernel text function, if it can: one byte
/// per symbol of the [`TextTable`] it was made from, in the table's order
/// (120 KB for the 121,847 text symbols of Debian's 7.3 image).
///
/// # Invariants
///
/// `offsets[i]` is 0 when ftrace cannot call the table's symbol `i`, else
/// its call site's offset from the symbol's start, plus one (at most
/// `ENDBR_INSN_SIZE + 1`).
pub(crate) struct CallSites {
    text: Arc<TextTable>,
    offsets: KVVec<u8>,
}

impl CallSites {
    /// Asks ftrace about every symbol of `text`, a batch at a time.
    /// `_locked` proves the registry lock held, which serialises the users
    /// of the scratch ops.
    pub(crate) fn new(_locked: Locked<'_>, text: Arc<TextTable>) -> Result<Self> {
        let mut offsets = KVVec::from_elem(0u8, text.len(), GFP_KERNEL)?;
        let mut batch = Batch {
            syms: KVVec::with_capacity(BATCH, GFP_KERNEL)?,
            sites: KVVec::with_capacity(BATCH, GFP_KERNEL)?,
        };
        let core = text.span();
        let callers = FTRACE_CALLERS.map(|n| text.first_named(n).and_then(|i| text.get(i)));
        text.for_each(|sym| -> Result<bool> {
            let mut target: c_ulong = 0;
            // SAFETY: Reads the kernel text at a text symbol's address with
            // copy_from_kernel_nofault, which survives any address;
            // `target` is writable.
            let site = unsafe { bindings::bp_ftrace_site_guess(sym.addr as c_ulong, &mut target) };
            let (site, target) = (site as usize, target as usize);
            if site == 0 {
                // No call site.
                return Ok(true);
            }
            let suspect = target == site
                || (core.contains(&target) && !callers.iter().flatten().any(|c| c.0 == target));
            if suspect {
                settle_one(sym.index, sym.addr, &mut offsets)?;
            } else {
                batch.syms.push((sym.index, sym.addr, site), GFP_KERNEL)?;
                batch.sites.push(site as c_ulong, GFP_KERNEL)?;
                if batch.syms.len() == BATCH {
                    batch.settle(&mut offsets)?;
                }
            }
            Ok(true)
        })?;
        batch.settle(&mut offsets)?;
        Ok(Self { text, offsets })
    }

    /// Where ftrace calls the text function that starts at `addr`:
    /// `Some(Some(site))`, `Some(None)` if it cannot; `None` if no text
    /// symbol starts there (ask ftrace).
    pub(crate) fn of(&self, addr: usize) -> Option<Option<usize>> {
        let index = self.text.index_of(addr)?;
        Some(match self.offsets.get(index).copied() {
            None | Some(0) => None,
            Some(o) => Some(addr.wrapping_add(usize::from(o)).wrapping_sub(1)),
        })
    }
}

/// The candidates not asked about yet: each one's symbol (index, address)
/// and its guessed call site; the sites again, as ftrace takes them.
struct Batch {
    syms: KVVec<(usize, usize, usize)>,
    sites: KVVec<c_ulong>,
}

impl Batch {
    /// Asks ftrace about every candidate, writes the answers, and empties
    /// the batch. Fails only when ftrace refuses for another reason than a
    /// missing call site (`ENODEV` once ftrace is dead, `ENOMEM`).
    fn settle(&mut self, offsets: &mut [u8]) -> Result {
        let res = settle(&self.syms, &mut self.sites, offsets);
        kvec::clear(&mut self.syms);
        kvec::clear(&mut self.sites);
        crate::sched::cond_resched();
        res
    }
}

/// Asks ftrace whether every one of `sites` is a call site, halving on a
/// refusal down to single functions (recursion depth at most
/// log2([`BATCH`]) + 1).
fn settle(syms: &[(usize, usize, usize)], sites: &mut [c_ulong], offsets: &mut [u8]) -> Result {
    if syms.is_empty() {
        return Ok(());
    }
    let n = u32::try_from(sites.len()).map_err(|_| EINVAL)?;
    // SAFETY: `sites` holds `n` addresses, which ftrace only reads; the
    // caller holds the registry lock (`CallSites::new`).
    let ret = unsafe { bindings::bp_ftrace_check_sites(sites.as_mut_ptr(), n) };
    if ret == 0 {
        for &(index, addr, site) in syms {
            if let Some(o) = offsets.get_mut(index) {
                // The guess is at `addr` or past its endbr64.
                *o = u8::try_from(site.wrapping_sub(addr).wrapping_add(1)).unwrap_or(0);
            }
        }
        return Ok(());
    }
    if ret != EINVAL.to_errno() {
        to_result(ret)?;
    }
    if let [(index, addr, _)] = *syms {
        // ftrace has no call site where the bytes suggested one.
        return settle_one(index, addr, offsets);
    }
    let half = syms.len() / 2;
    let (s0, s1) = syms.split_at(half);
    let (t0, t1) = sites.split_at_mut(half);
    settle(s0, t0, offsets)?;
    settle(s1, t1, offsets)
}

/// Asks ftrace about one function the old way, which also tries the
/// symbol's own address, and writes the answer. Only its "no call site"
/// (`EINVAL`) is an answer to keep; anything else fails the table.
fn settle_one(index: usize, addr: usize, offsets: &mut [u8]) -> Result {
    match super::check_ip(addr) {
        Ok(site) => {
            if let Some(o) = offsets.get_mut(index) {
                *o = u8::try_from(site.wrapping_sub(addr).wrapping_add(1)).unwrap_or(0);
            }
            Ok(())
        }
        Err(e) if e == EINVAL => Ok(()),
        Err(e) => Err(e),
    }
}

/// Where one `create` reads ftrace's call sites: the module's
/// [`CallSites`] if it has them; else ftrace one function at a time, until
/// the `create` has asked about [`ASK_FIRST`] and makes the table (which
/// the engine then keeps, [`SiteSource::made`]).
#[derive(Default)]
pub(crate) enum SiteSource {
    /// The table.
    Ready(Arc<CallSites>),
    /// No table yet: made from these text symbols after `asked` reaches
    /// [`ASK_FIRST`].
    Pending {
        /// The kernel's text symbols.
        text: Arc<TextTable>,
        /// Functions asked about so far.
        asked: usize,
    },
    /// Ask ftrace every time (no text symbols, or the table could not be
    /// made: ftrace dead, or out of memory).
    #[default]
    Ask,
}

impl SiteSource {
    /// Where ftrace calls the text function at `addr`, as
    /// [`CallSites::of`] says; `None`: ask ftrace. `locked` proves the
    /// registry lock held, which making the table needs.
    pub(crate) fn of(&mut self, locked: Locked<'_>, addr: usize) -> Option<Option<usize>> {
        match self {
            Self::Ready(s) => s.of(addr),
            // A module's function: never in the core kernel's table.
            Self::Pending { text, .. } if !text.span().contains(&addr) => None,
            Self::Pending { asked, .. } if *asked < ASK_FIRST => {
                *asked += 1;
                None
            }
            Self::Pending { text, .. } => {
                let made =
                    CallSites::new(locked, text.clone()).and_then(|s| Ok(Arc::new(s, GFP_KERNEL)?));
                *self = match made {
                    Ok(s) => Self::Ready(s),
                    Err(_) => Self::Ask,
                };
                match self {
                    Self::Ready(s) => s.of(addr),
                    _ => None,
                }
            }
            Self::Ask => None,
        }
    }

    /// The table, if there is one now.
    pub(crate) fn made(&self) -> Option<Arc<CallSites>> {
        match self {
            Self::Ready(s) => Some(s.clone()),
            _ => None,
        }
    }
}
