// SPDX-License-Identifier: GPL-2.0

//! Which functions the direct exit trampoline can call through, from their
//! prototypes in the kernel's BTF (`/sys/kernel/btf/vmlinux`).
//!
//! The exit trampoline calls a traced function's body with its own frame
//! where the caller's stack arguments were (see `rust/trampolines.c`), so it
//! serves only functions whose arguments all travel in the six argument
//! registers (x86-64 SysV: an integer, pointer or enum takes one, a struct
//! or union of up to 16 bytes one or two, a bigger one, or one with a member
//! off its natural alignment (packed), goes on the stack),
//! that are not variadic, that return (a task that never leaves the body
//! would keep the trampoline's module from unloading) and whose BTF
//! prototype is unambiguous: when several BTF functions share the name,
//! each must pass. A struct returned in memory takes `rdi` for its hidden
//! pointer. This is the rule BPF's fexit trampolines applied before they
//! copied stack arguments.
//!
//! Pure logic on the parsed BTF ([`crate::btf`]), with no kernel types, so
//! that `tests/` runs it on the host.

pub use crate::aggregate::ErrorReturn;
pub use crate::btf::Btf;
use crate::btf::{
    Type, KIND_ARRAY, KIND_ENUM, KIND_ENUM64, KIND_FLOAT, KIND_FUNC_PROTO, KIND_INT, KIND_PTR,
    KIND_STRUCT, KIND_UNION, MAX_CHAIN,
};
use crate::sort;

/// The argument registers of x86-64's calling convention.
pub const ARG_REGS: u32 = 6;

/// Functions that never return, or return only when their thread ends,
/// refused whatever their prototype: the list BPF's verifier keeps for
/// fexit, the idle and panic paths, and the kernel threads' main functions
/// (every kthread created while a set is attached enters `kthread()`, and a
/// task inside keeps the module from unloading).
pub const NORETURN: &[&[u8]] = &[
    b"__ia32_sys_exit",
    b"__ia32_sys_exit_group",
    b"__x64_sys_exit",
    b"__x64_sys_exit_group",
    b"do_exit",
    b"do_group_exit",
    b"do_task_dead",
    b"kthread_complete_and_exit",
    b"kthread_exit",
    b"make_task_dead",
    b"panic",
    b"nmi_panic",
    b"cpu_startup_entry",
    // The idle loop: on CPU offline it enters arch_cpu_idle_dead() and
    // never returns, and the idle task never exits either.
    b"do_idle",
    b"kthread",
    b"kthreadd",
    b"worker_thread",
    b"rescuer_thread",
    b"smpboot_thread_fn",
    b"kthread_worker_fn",
    b"ret_from_fork",
    b"arch_cpu_idle_dead",
    b"native_play_dead",
    b"hlt_play_dead",
    b"mwait_play_dead",
    b"stop_this_cpu",
    b"__stack_chk_fail",
    b"usercopy_abort",
    b"__module_put_and_kthread_exit",
    b"kunit_try_catch_throw",
    // A CPU going offline: cpuidle_play_dead() calls the driver's
    // enter_dead callback, which does not return when it works (the
    // suffixes below take the drivers' own: acpi_idle_play_dead,
    // intel_idle_enter_dead, acpi_processor_ffh_play_dead, ...).
    b"cpuidle_play_dead",
];

/// Name endings of the idle paths a CPU going offline never returns from:
/// the `play_dead` family and the cpuidle drivers' `enter_dead` callbacks.
/// The idle task never exits, so a body it is inside would pin the module
/// for good.
pub const NORETURN_SUFFIXES: &[&[u8]] = &[b"_play_dead", b"enter_dead"];

/// Whether `name` is a function that never returns, or returns only when
/// its thread ends ([`NORETURN`], [`NORETURN_SUFFIXES`]).
pub fn never_returns(name: &[u8]) -> bool {
    NORETURN.contains(&name) || NORETURN_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// The x86 system call wrappers (`arch/x86/include/asm/syscall_wrapper.h`):
/// each takes the one `const struct pt_regs *`. BTF does not always name
/// them: a `SYSCALL_DEFINE0` wrapper is an alias of its `__do_sys_` body.
pub const SYSCALL_WRAPPERS: &[&[u8]] = &[
    b"__x64_sys_",
    b"__ia32_sys_",
    b"__x64_compat_sys_",
    b"__ia32_compat_sys_",
];

/// Whether `name` is an x86 syscall wrapper ([`SYSCALL_WRAPPERS`]).
pub fn is_syscall_wrapper(name: &[u8]) -> bool {
    SYSCALL_WRAPPERS.iter().any(|p| name.starts_with(p))
}

/// The errno of a refusal: operation not supported (for this function).
pub const REFUSED_ERRNO: i32 = crate::errno::EOPNOTSUPP;

/// FNV-1a: the names of the kernel's functions, compared as hashes to find
/// the ones it has more than once (a collision can only refuse more).
pub fn name_hash(name: &[u8]) -> u64 {
    name.iter().fold(0xcbf2_9ce4_8422_2325, |h, &c| {
        (h ^ u64::from(c)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Keeps, in `hashes` (sorted), one of each hash that occurs more than
/// once; returns how many. `hashes` holds every text symbol's
/// [`name_hash`].
pub fn duplicates(hashes: &mut [u64]) -> usize {
    sort::sort(hashes);
    let mut kept = 0;
    let mut i = 0;
    while let Some(&h) = hashes.get(i) {
        let run = hashes
            .get(i..)
            .map_or(0, |r| r.iter().take_while(|&&x| x == h).count());
        if run > 1 {
            if let Some(k) = hashes.get_mut(kept) {
                *k = h;
            }
            kept += 1;
        }
        i += run.max(1);
    }
    kept
}

/// Why the exit trampoline cannot serve a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The BTF has no function of that name.
    NotInBtf,
    /// The function is a module's, and the module has no BTF.
    NoModuleBtf,
    /// `...`: its arguments are read from the caller's stack.
    Variadic,
    /// Its arguments need this many registers, more than six.
    StackArguments(u32),
    /// An argument is passed in memory (a struct or union over 16 bytes,
    /// or one with an unaligned member, as a packed one may have) or in a
    /// vector register (a float).
    ArgumentInMemory,
    /// It never returns.
    NoReturn,
    /// The kernel has more than one function of that name: BTF (from a
    /// pahole before 1.25) may hold only one of their prototypes.
    Ambiguous,
    /// The BTF does not describe it in a way this reads.
    Unreadable,
}

impl Refusal {
    /// What `last_error` and `stats` say.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::NotInBtf => "not for the exit trampoline (no BTF prototype)",
            Refusal::NoModuleBtf => {
                "not for the exit trampoline (its module has no BTF: /sys/kernel/btf/MOD, CONFIG_DEBUG_INFO_BTF_MODULES)"
            }
            Refusal::Variadic => "not for the exit trampoline (variadic)",
            Refusal::StackArguments(_) => {
                "not for the exit trampoline (arguments on the stack: more than 6 registers)"
            }
            Refusal::ArgumentInMemory => {
                "not for the exit trampoline (an argument passed in memory)"
            }
            Refusal::NoReturn => {
                "not for the exit trampoline (never returns, or only when its thread ends)"
            }
            Refusal::Unreadable => "not for the exit trampoline (BTF prototype not understood)",
            Refusal::Ambiguous => {
                "not for the exit trampoline (more than one function of that name: \
                 its BTF prototype may be another's)"
            }
        }
    }
}

/// The exit trampoline's rule, on the parsed blob.
impl Btf<'_> {
    /// How function `name`'s return value carries an error (`create
    /// --errors`): a signed `int` or `long`, or a pointer (`ERR_PTR`), by
    /// its BTF return type; the syscall wrappers return `long`. A name BTF
    /// has with different return kinds (two static functions) counts none.
    pub fn error_return(&self, offsets: &[u32], funcs: &[u32], name: &[u8]) -> ErrorReturn {
        if is_syscall_wrapper(name) {
            return ErrorReturn::Int64;
        }
        let mut kinds = self
            .functions_named(offsets, funcs, name)
            .iter()
            .map(|&id| self.return_kind(offsets, id));
        let first = kinds.next().unwrap_or_default();
        if kinds.all(|k| k == first) {
            first
        } else {
            ErrorReturn::No
        }
    }

    /// The [`ErrorReturn`] of BTF function `id`.
    fn return_kind(&self, offsets: &[u32], id: u32) -> ErrorReturn {
        let ret = self
            .get(offsets, id)
            .and_then(|f| self.get(offsets, f.size_or_type))
            .filter(|p| p.kind == KIND_FUNC_PROTO && p.size_or_type != 0)
            .and_then(|p| self.skip_modifiers(offsets, p.size_or_type));
        let Some(t) = ret else {
            return ErrorReturn::No;
        };
        // BTF_KIND_INT's word: encoding in bits 24-27 (BTF_INT_SIGNED 1).
        let signed = || self.word(t.extra).is_some_and(|w| (w >> 24) & 1 == 1);
        match (t.kind, t.size_or_type) {
            (KIND_PTR, _) => ErrorReturn::Pointer,
            (KIND_INT, 4) if signed() => ErrorReturn::Int32,
            (KIND_INT, 8) if signed() => ErrorReturn::Int64,
            _ => ErrorReturn::No,
        }
    }

    /// The registers function `name` needs for its arguments, or why the
    /// exit trampoline cannot serve it. `funcs` is [`Btf::index_functions`]'
    /// output.
    pub fn classify(&self, offsets: &[u32], funcs: &[u32], name: &[u8]) -> Result<u32, Refusal> {
        if never_returns(name) {
            return Err(Refusal::NoReturn);
        }
        if is_syscall_wrapper(name) {
            return Ok(1);
        }
        let same = self.functions_named(offsets, funcs, name);
        if same.is_empty() {
            return Err(Refusal::NotInBtf);
        }
        let mut most = 0;
        for &id in same {
            let func = self.get(offsets, id).ok_or(Refusal::Unreadable)?;
            most = most.max(self.prototype_regs(offsets, func.size_or_type)?);
        }
        Ok(most)
    }

    /// The argument registers a FUNC_PROTO needs.
    fn prototype_regs(&self, offsets: &[u32], proto: u32) -> Result<u32, Refusal> {
        let p = self.get(offsets, proto).ok_or(Refusal::Unreadable)?;
        if p.kind != KIND_FUNC_PROTO {
            return Err(Refusal::Unreadable);
        }
        // A struct returned in memory: its address comes in rdi. (Type 0,
        // void, returns nothing.)
        let mut regs = match p.size_or_type {
            0 => 0,
            ret => match self.regs_of(offsets, ret) {
                Ok(_) => 0,
                Err(Refusal::ArgumentInMemory) => 1,
                Err(e) => return Err(e),
            },
        };
        for i in 0..p.vlen {
            let ty = self.word(p.extra + 8 * i + 4).ok_or(Refusal::Unreadable)?;
            if ty == 0 {
                // A trailing "void" parameter is BTF's `...`.
                return Err(Refusal::Variadic);
            }
            regs += self.regs_of(offsets, ty)?;
        }
        if regs > ARG_REGS {
            return Err(Refusal::StackArguments(regs));
        }
        Ok(regs)
    }

    /// The registers an argument of type `id` takes: `Variadic` for void
    /// (id 0), `ArgumentInMemory` when it goes to the stack.
    fn regs_of(&self, offsets: &[u32], id: u32) -> Result<u32, Refusal> {
        if id == 0 {
            return Err(Refusal::Variadic);
        }
        let t = self.resolve(offsets, id)?;
        let regs = match t.size_or_type {
            0..=8 => 1,
            9..=16 => 2,
            _ => 0,
        };
        match t.kind {
            KIND_PTR => Ok(1),
            KIND_INT | KIND_ENUM | KIND_ENUM64 if regs != 0 => Ok(regs),
            // x86-64 SysV: an aggregate with an unaligned field (a packed
            // struct's) is passed in memory, whatever its size.
            KIND_STRUCT | KIND_UNION if regs != 0 && !self.has_unaligned(offsets, &t, 0)? => {
                Ok(regs)
            }
            KIND_INT | KIND_ENUM | KIND_ENUM64 | KIND_STRUCT | KIND_UNION | KIND_FLOAT => {
                Err(Refusal::ArgumentInMemory)
            }
            _ => Err(Refusal::Unreadable),
        }
    }

    /// Follows typedefs and qualifiers from `id` to the type they name.
    fn resolve(&self, offsets: &[u32], id: u32) -> Result<Type, Refusal> {
        self.skip_modifiers(offsets, id).ok_or(Refusal::Unreadable)
    }

    /// The natural alignment of type `id`, in bytes, as the x86-64 ABI
    /// lays it out unpacked: a scalar's size (16 for `__int128`), a
    /// pointer's 8, an array's element's, an aggregate's largest member's.
    /// `depth` bounds the nesting a corrupt blob could make endless.
    fn align_of(&self, offsets: &[u32], id: u32, depth: usize) -> Result<u32, Refusal> {
        if depth >= MAX_CHAIN {
            return Err(Refusal::Unreadable);
        }
        let t = self.resolve(offsets, id)?;
        match t.kind {
            KIND_PTR => Ok(8),
            KIND_INT | KIND_ENUM | KIND_ENUM64 | KIND_FLOAT => {
                Ok(t.size_or_type.clamp(1, 16).next_power_of_two())
            }
            KIND_ARRAY => {
                let elem = self.word(t.extra).ok_or(Refusal::Unreadable)?;
                self.align_of(offsets, elem, depth + 1)
            }
            KIND_STRUCT | KIND_UNION => {
                let mut most = 1;
                for i in 0..t.vlen {
                    let ty = self.word(t.extra + 12 * i + 4).ok_or(Refusal::Unreadable)?;
                    most = most.max(self.align_of(offsets, ty, depth + 1)?);
                }
                Ok(most)
            }
            _ => Err(Refusal::Unreadable),
        }
    }

    /// Whether aggregate `t`, or one nested in it, has a member that is not
    /// at a multiple of its natural alignment (bitfields aside): the ABI's
    /// "unaligned field", which sends the whole aggregate to memory. It
    /// judges a packed aggregate nested in another by its members' natural
    /// alignment, so it may refuse one the compiler would pass in registers,
    /// never the reverse.
    fn has_unaligned(&self, offsets: &[u32], t: &Type, depth: usize) -> Result<bool, Refusal> {
        if depth >= MAX_CHAIN {
            return Err(Refusal::Unreadable);
        }
        for i in 0..t.vlen {
            let at = t.extra + 12 * i;
            let ty = self.word(at + 4).ok_or(Refusal::Unreadable)?;
            let raw = self.word(at + 8).ok_or(Refusal::Unreadable)?;
            let (bits, bit_off) = if t.kind_flag {
                (raw >> 24, raw & 0xff_ffff)
            } else {
                (0, raw)
            };
            if bits != 0 {
                continue;
            }
            let align = self.align_of(offsets, ty, depth + 1)?;
            if bit_off % (8 * align) != 0 {
                return Ok(true);
            }
            // An array of aggregates: the element's own layout.
            let mut m = self.resolve(offsets, ty)?;
            for _ in 0..MAX_CHAIN {
                if m.kind != KIND_ARRAY {
                    break;
                }
                let elem = self.word(m.extra).ok_or(Refusal::Unreadable)?;
                m = self.resolve(offsets, elem)?;
            }
            if matches!(m.kind, KIND_STRUCT | KIND_UNION)
                && self.has_unaligned(offsets, &m, depth + 1)?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
