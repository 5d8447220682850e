// SPDX-License-Identifier: GPL-2.0

//! One traced function of a direct set ([`DirectSlot`]): its counters, and
//! what the handlers do with a call once [`super::index`] has found the
//! function's slot by address: count it, record its first argument, hand it
//! to an API client, and, on the exit trampoline, count its return, time it
//! and count its error ([`crate::aggregate`]).
//!
//! # The exit trampoline's token
//!
//! The entry handler returns a token that the trampoline keeps in its frame
//! for the exit handler, which charges the return to the slot found at the
//! function's address only if the call was counted in that very slot: not a
//! task that entered through a set since detached, or through another set
//! that held the function before, or while the gate was closed (token 0).
//!
//! - An untimed slot's token is its `id` with [`ID_TAG`] set: unique among
//!   every slot made since load.
//! - A timed slot's (`create --hist`) is the call's entry time, read with
//!   [`clock`] (ns since boot), which never has [`ID_TAG`] set (2^63 ns is
//!   292 years): the
//!   exit handler takes the duration from it. A timed call was counted in
//!   this slot if its entry time is not before the slot's `born`, the time
//!   it went into the index. Any other slot of the function was out of the
//!   index before that (the index refuses two live slots at one address,
//!   and its updates are serialised by its lock, under which `born` is
//!   read), and the entry handler reads the clock after it found the slot,
//!   then looks the function up again in the index published by then and
//!   counts the call only if the slot is still there (the clock is read
//!   with a fence on both sides): so a call counted in an earlier slot read
//!   its clock before that slot left the index, before `born`. The clock,
//!   `ktime_get_mono_fast_ns()`, may step back by a few ns across a
//!   timekeeping update (its documented leeway): a call counted in an
//!   older slot within those ns of the newer slot's `born` could pass
//!   for the newer's.
//! - A slot of an exit set with return records (`records`) makes either:
//!   an entry time, the same way, while its record is taken when the call
//!   enters (only then is there a record to give a duration), else its
//!   id; its exit handler tells the two apart by [`ID_TAG`]. So such a
//!   set reads no clock while its events are off.

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::aggregate::AggRef;
use crate::aggregate::{self, ErrorReturn};
use crate::bindings;
use crate::events::format::Head;
use crate::events::tracefs::Fired;
use crate::probe::Meta;

/// Set in an untimed slot's token: no entry time has it.
const ID_TAG: u64 = 1 << 63;

/// The clock of call durations: CLOCK_MONOTONIC in ns, as BPF's
/// `bpf_ktime_get_ns()` reads it (`ktime_get_mono_fast_ns()`), NMI-safe,
/// notrace, fenced (`rust/clock.c`).
#[inline(always)]
pub(super) fn clock() -> u64 {
    // SAFETY: A notrace read of the clock, from any context.
    unsafe { bindings::bp_clock_event_ns() }
}

/// [`clock`], and the CPU the handler runs on, in one call.
#[inline(always)]
fn clock_on_cpu() -> (u64, usize) {
    let mut cpu = 0;
    // SAFETY: A notrace read of the clock and the CPU number (preemption
    // is disabled: the handlers hold ftrace's recursion lock).
    let t = unsafe { bindings::bp_clock_event_ns_cpu(&mut cpu) };
    (t, cpu as usize)
}

/// One traced function of a direct set.
pub(crate) struct DirectSlot {
    pub(super) start: usize,
    pub(super) end: usize,
    /// The ftrace call site: what the filter is given.
    pub(super) fentry: usize,
    /// Its hit counter, its set's gate, its names and its index.
    pub(super) meta: Meta,
    /// Calls ftrace's recursion lock refused (see [`super::missed`]).
    pub(super) missed: AtomicU64,
    pub(super) last_arg: AtomicU64,
    /// Exit mode: returns counted, and the last return value.
    pub(super) exits: AtomicU64,
    pub(super) last_ret: AtomicU64,
    /// Unique among every slot made since load, never 0: an untimed
    /// slot's token (see the module's documentation).
    pub(super) id: u64,
    /// Named on a line of its own (or by an API client), not a glob member.
    pub(super) explicit: bool,
    /// A glob member that another tracer holds (a foreign direct caller or
    /// an IPMODIFY ftrace user): left out of the attach (see
    /// [`super::DirectSet::attach_all`]). Set at most once, by the attach's
    /// bisection, after the slot is in the published index (handlers may
    /// be reading the slot's counters then), and before the set is
    /// published to `sets` and `stats` readers, the only readers of this
    /// flag besides the build itself: atomic, so that no `&mut` to a slot
    /// a handler may see is ever made.
    pub(super) refused: AtomicBool,
    /// `create --hist`, or an API set's `BATCHPROBE_DIRECT_EXIT` target:
    /// the token is the call's entry time, and each return's duration goes
    /// into the histogram (`hist`), to the client's handler (if any) and
    /// into the return record (if taken).
    pub(super) timed: bool,
    /// `create --hist`: its durations go into the histogram. (A slot may
    /// be timed for an API client alone.)
    pub(super) hist: bool,
    /// A function of an exit set with return records: a call is timed
    /// (its token the entry time) only if the record is taken when it
    /// enters; a call that entered untimed writes no record (a call
    /// cannot be timed after its entry).
    pub(super) records: bool,
    /// When the slot went into the index ([`clock`]; 0 before).
    pub(super) born: AtomicU64,
    /// `create --errors`: how its return value carries an error (else
    /// `No`).
    pub(super) error_return: ErrorReturn,
    /// Its aggregate blocks (`--hist` or `--errors`), from
    /// [`super::DirectSet`]'s `prepare`, before the slot is in the index.
    pub(super) agg: Option<AggRef>,
}

impl DirectSlot {
    /// A slot for `[start, end)`, whose ftrace call site is `fentry`.
    pub(super) fn new(start: usize, end: usize, fentry: usize, meta: Meta, explicit: bool) -> Self {
        Self {
            start,
            end,
            fentry,
            meta,
            missed: AtomicU64::new(0),
            last_arg: AtomicU64::new(0),
            exits: AtomicU64::new(0),
            last_ret: AtomicU64::new(0),
            id: NEXT_SLOT_ID.fetch_add(1, Ordering::Relaxed),
            explicit,
            refused: AtomicBool::new(false),
            timed: false,
            hist: false,
            records: false,
            born: AtomicU64::new(0),
            error_return: ErrorReturn::No,
            agg: None,
        }
    }

    /// Calls not delivered: refused by ftrace's recursion lock.
    pub(crate) fn missed(&self) -> u64 {
        self.missed.load(Ordering::Relaxed)
    }

    /// The first argument of the last recorded call (record mode).
    pub(crate) fn last_arg(&self) -> u64 {
        self.last_arg.load(Ordering::Relaxed)
    }

    /// Returns counted (exit mode).
    pub(crate) fn exits(&self) -> u64 {
        self.exits.load(Ordering::Relaxed)
    }

    /// The last return value recorded (exit mode).
    pub(crate) fn last_ret(&self) -> u64 {
        self.last_ret.load(Ordering::Relaxed)
    }

    /// The symbol.
    pub(crate) fn symbol(&self) -> &[u8] {
        self.meta.symbol()
    }

    /// Counts a call, records its first argument in record mode, and
    /// hands it to the set's API client, if any, with the arguments the
    /// trampoline saved below `frame` (null: none saved, as for fprobe).
    /// `indexed`, given by the exit trampoline's entry handler, says
    /// whether the slot is still in the index (for a timed token).
    /// Returns the exit trampoline's token (0: not counted).
    #[inline(always)]
    pub(super) fn hit<F: Fn() -> bool>(
        &self,
        arg0: usize,
        record: bool,
        frame: *const usize,
        indexed: Option<F>,
    ) -> u64 {
        let entered = match indexed {
            Some(still) if self.timed || (self.records && self.meta.event().taken()) => {
                let t = clock();
                if !still() {
                    return 0;
                }
                Some(t)
            }
            _ => None,
        };
        // Not `Meta::hit`: the argument is recorded between the count and
        // the delivery, and the token depends on whether it counted.
        let Some(gate) = self.meta.count() else {
            return 0;
        };
        if record {
            self.last_arg.store(arg0 as u64, Ordering::Relaxed);
        }
        let event = self.meta.event();
        if event.head() == Head::Entry && event.taken() {
            self.record_entry(frame);
        }
        if gate.has_client() {
            let mut args = [0usize; 6];
            args[0] = arg0;
            if !frame.is_null() {
                for (i, a) in args.iter_mut().enumerate() {
                    // SAFETY: The trampoline pushed rdi, rsi, rdx, rcx,
                    // r8 and r9 right below its frame pointer `frame`,
                    // and they stay there until the handler returns.
                    *a = unsafe { frame.sub(i + 1).read() };
                }
            }
            let hit = bindings::batchprobe_hit {
                kind: self.client_kind(),
                ip: self.start,
                regs: core::ptr::null_mut(),
                args: args.map(|a| a),
                ..Default::default()
            };
            gate.deliver(self.meta.index(), &hit);
        }
        entered.unwrap_or(self.id | ID_TAG)
    }

    /// Writes the call's entry record (`d:` in a set made without
    /// `--exit`), as an fprobe entry event writes it: at the function's
    /// ftrace call site, the arguments read from the registers the
    /// trampoline saved below `frame` (null: none saved, the `--fprobe`
    /// baseline, which `create` refuses fetch arguments).
    #[inline(never)]
    fn record_entry(&self, frame: *const usize) {
        let event = self.meta.event();
        let mut regs = Regs::zeroed();
        let fetch_regs = if event.has_args() && !frame.is_null() {
            // SAFETY: The trampoline saved the argument registers below
            // its frame pointer `frame` (rdi at -8 ... r9 at -48, rax at
            // -56), above which are the saved rbp, the fentry call's
            // return address and the caller's: the traced function's
            // stack pointer at entry is `frame + 16`. They stay there
            // until the handler returns.
            unsafe { regs.at_entry(frame, self.fentry) }
        } else {
            core::ptr::null_mut()
        };
        event.fire(|| Fired::Entry {
            ip: self.fentry,
            regs: core::ptr::null_mut(),
            fetch_regs,
        });
    }

    /// Writes the call's return record (`d:` in a set made with `--exit`),
    /// as an fprobe return event writes it, with the call's `duration`:
    /// `caller` points to the return address into the caller, above which
    /// the caller's stack goes on; `saved` to the argument registers the
    /// trampoline kept (null: it keeps none, and the set's records read
    /// none).
    #[inline(never)]
    fn record_exit(&self, retval: usize, duration: u64, (caller, saved): Frame) {
        let event = self.meta.event();
        let mut regs = Regs::zeroed();
        // SAFETY: The exit trampoline hands the address of the return
        // address into the caller, on the task's stack, still there.
        let ret_ip = unsafe { caller.read() };
        let fetch_regs = if event.has_args() {
            regs.at_return(retval, ret_ip, caller as usize + 8)
        } else {
            core::ptr::null_mut()
        };
        event.fire(|| Fired::Exit {
            func: self.fentry,
            ret_ip,
            duration,
            fetch_regs,
            edata: saved.cast(),
        });
    }

    /// Counts a return with its value, while the set's gate is open, if
    /// the call was counted in this very slot (`token`, from [`Self::hit`];
    /// see the module's documentation), with its duration and error in
    /// the aggregates the set keeps, and writes its return record if its
    /// event is on (`frame`: see [`Self::record_exit`]).
    #[inline(always)]
    pub(super) fn exit_hit(&self, retval: usize, token: u64, frame: Frame) {
        // An entry time (a timed slot's token; a records slot's while its
        // record was taken), else the slot's id.
        let time_token = token != 0 && token & ID_TAG == 0;
        let (duration, cpu) = if self.timed || (self.records && time_token) {
            if !time_token || token < self.born.load(Ordering::Relaxed) {
                return;
            }
            // A few ns back across a timekeeping update (the fast
            // accessor's one leeway) is a duration of 0.
            let (now, cpu) = clock_on_cpu();
            (Some(now.saturating_sub(token)), Some(cpu))
        } else {
            if token != self.id | ID_TAG {
                return;
            }
            (None, None)
        };
        let Some(gate) = self.meta.open_gate() else {
            return;
        };
        self.exits.fetch_add(1, Ordering::Relaxed);
        self.last_ret.store(retval as u64, Ordering::Relaxed);
        let event = self.meta.event();
        if let Some(d) = duration.filter(|_| event.head() == Head::Exit && event.taken()) {
            self.record_exit(retval, d, frame);
        }
        if gate.has_client() {
            let hit = bindings::batchprobe_hit {
                kind: self.client_kind(),
                ip: self.start,
                flags: bindings::BATCHPROBE_HIT_RETURN,
                retval: retval as kernel::ffi::c_ulong,
                duration_ns: duration.unwrap_or(0),
                ..Default::default()
            };
            gate.deliver(self.meta.index(), &hit);
        }
        if let Some(agg) = &self.agg {
            let errno = self.error_return.errno(retval as u64);
            // A slot timed for its records alone keeps no histogram.
            let duration = duration.filter(|_| self.hist);
            if duration.is_some() || errno.is_some() {
                let cpu = cpu.unwrap_or_else(AggRef::this_cpu);
                if let Some(block) = agg.block(cpu) {
                    aggregate::record(block, duration, errno);
                }
            }
        }
    }

    /// The kind an API client's handler is told: an API set's timed slots
    /// are its `BATCHPROBE_DIRECT_EXIT` targets (the control file's
    /// `--hist` sets, timed too, have no client).
    #[inline(always)]
    fn client_kind(&self) -> bindings::batchprobe_kind {
        if self.timed {
            bindings::batchprobe_kind_BATCHPROBE_DIRECT_EXIT
        } else {
            bindings::batchprobe_kind_BATCHPROBE_DIRECT
        }
    }

    /// Its aggregates, to be summed (none without `--hist` or `--errors`).
    pub(crate) fn aggregate(&self) -> Option<&dyn aggregate::Summarize> {
        self.agg.as_ref().map(|a| a as &dyn aggregate::Summarize)
    }
}

/// What the exit trampoline's frame holds for a return record: where the
/// return address into the caller is, and the argument registers it kept
/// (or null).
pub(super) type Frame = (*const usize, *const usize);

/// The registers a direct call's record reads, as an fprobe's handler has
/// them (`ftrace_regs`: the argument registers, the stack pointer, the
/// return value), built on the handler's stack only when a record has
/// fetch arguments to read.
struct Regs(bindings::pt_regs);

impl Regs {
    fn zeroed() -> Self {
        // SAFETY: `pt_regs` is plain integers: all zeros is a valid value.
        Self(unsafe { core::mem::zeroed() })
    }

    /// At a function's entry, from the trampoline frame at `frame`, the
    /// function's ftrace call site being `ip`.
    ///
    /// # Safety
    ///
    /// `frame` is a live counting or exit trampoline's frame pointer.
    #[inline(always)]
    unsafe fn at_entry(&mut self, frame: *const usize, ip: usize) -> *mut bindings::pt_regs {
        // SAFETY: By the caller, the saved registers are at these offsets
        // below `frame`, the saved rbp at `frame` itself.
        let at = |i: usize| unsafe { frame.sub(i).read() };
        let r = &mut self.0;
        r.di = at(1);
        r.si = at(2);
        r.dx = at(3);
        r.cx = at(4);
        r.r8 = at(5);
        r.r9 = at(6);
        r.ax = at(7);
        // SAFETY: As above.
        r.bp = unsafe { frame.read() };
        r.sp = frame as usize + 16;
        r.ip = ip;
        &mut self.0
    }

    /// At a function's return of `retval` to `ret_ip`, the caller's stack
    /// pointer being `sp` again.
    #[inline(always)]
    fn at_return(&mut self, retval: usize, ret_ip: usize, sp: usize) -> *mut bindings::pt_regs {
        let r = &mut self.0;
        r.ax = retval;
        r.ip = ret_ip;
        r.sp = sp;
        &mut self.0
    }
}

/// The next [`DirectSlot::id`] (from 1: 0 is "not counted").
static NEXT_SLOT_ID: AtomicU64 = AtomicU64::new(1);
