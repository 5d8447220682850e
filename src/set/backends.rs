// SPDX-License-Identifier: GPL-2.0

//! The backends a set holds: one instance of each, in the order `sets`
//! fields and `stats` lines list them, and the choice of the one that
//! serves a target best.
//!
//! Only a set holds one of each, so the list is the set's: adding a
//! backend means one file implementing [`SetBackend`] and one line in the
//! [`backends!`] list below.

use kernel::alloc::AllocError;

use crate::backend::{Coming, Ctx, Fit, Found, ProbeView, SetBackend, Target};
use crate::command::CreateOptions;

/// Declares [`Backends`]: one field per backend, in the order `sets`
/// fields and `stats` lines list them. Arming follows that order,
/// retiring too.
macro_rules! backends {
    ($($field:ident: $ty:ty = $new:expr,)*) => {
        /// Every backend of one set.
        pub(crate) struct Backends {
            $(pub(crate) $field: $ty,)*
        }

        impl Backends {
            /// Empty backends for a set created with `options`.
            pub(crate) fn new(options: &CreateOptions) -> Result<Self, AllocError> {
                let _ = options;
                Ok(Self { $($field: $new(options)?,)* })
            }

            /// Every backend, in list order.
            pub(crate) fn all(&self) -> [&dyn SetBackend; backends!(@count $($field)*)] {
                [$(&self.$field as &dyn SetBackend,)*]
            }

            /// Every backend, in list order, for building.
            pub(crate) fn all_mut(&mut self) -> [&mut dyn SetBackend; backends!(@count $($field)*)] {
                [$(&mut self.$field as &mut dyn SetBackend,)*]
            }
        }
    };
    (@count $($x:ident)*) => { 0 $(+ backends!(@one $x))* };
    (@one $x:ident) => { 1 };
}

// `holds=` (set/report.rs) prints the direct calls' modules, then the
// fprobes' that direct does not hold: with fprobe retired before direct, a
// module both hold is never printed twice by a read during the teardown.
backends! {
    kprobe: crate::probe::Int3Set<crate::probe::kprobe::Kprobe> = crate::probe::Int3Set::new,
    kretprobe: crate::probe::Int3Set<crate::probe::kretprobe::Kretprobe> = crate::probe::Int3Set::new,
    fprobe: crate::fprobe::FprobeSet = crate::fprobe::FprobeSet::new,
    direct: crate::direct::DirectSet = crate::direct::DirectSet::for_options,
}

impl Backends {
    /// The backend that serves `t` best (the first in list order among
    /// equals), if any, and what its `fit` found (for its `add`).
    pub(crate) fn route(
        &mut self,
        ctx: &Ctx<'_>,
        t: &Target<'_>,
    ) -> Option<(&mut dyn SetBackend, Found)> {
        let mut best: Option<(Fit, usize, Found)> = None;
        for (i, b) in self.all().iter().enumerate() {
            let (fit, found) = b.fit(ctx, t);
            // `map_or(true, ..)` and `is_none_or` each draw a lint on one of
            // the kernels (their clippy MSRVs differ): a plain match.
            let better = match best {
                Some((f, _, _)) => fit > f,
                None => true,
            };
            if fit != Fit::No && better {
                best = Some((fit, i, found));
            }
        }
        let (_, i, found) = best?;
        Some((self.all_mut().into_iter().nth(i)?, found))
    }

    /// Calls `f` for every probe of every backend.
    pub(crate) fn each(&self, f: &mut dyn FnMut(&ProbeView<'_>)) {
        for b in self.all() {
            b.each(f);
        }
    }

    /// Calls `f` for every probe from the `from`-th on (backend after
    /// backend, in list order), for as long as it returns `true`.
    pub(crate) fn each_from(&self, from: usize, f: &mut dyn FnMut(&ProbeView<'_>) -> bool) {
        let mut from = from;
        let mut go_on = true;
        for b in self.all() {
            let n = b.probes();
            if from >= n {
                from -= n;
                continue;
            }
            b.each_from(from, &mut |v| {
                go_on = f(v);
                go_on
            });
            if !go_on {
                return;
            }
            from = 0;
        }
    }

    /// Whether a backend has probes on `module` that its load registers
    /// ([`SetBackend::on_module`]).
    pub(crate) fn on_module(&self, module: &[u8]) -> bool {
        self.all().iter().any(|b| b.on_module(module))
    }

    /// Every backend's [`SetBackend::module_coming`].
    ///
    /// # Safety
    ///
    /// As [`SetBackend::module_coming`].
    pub(crate) unsafe fn module_coming(&self, c: &Coming<'_>) {
        for b in self.all() {
            // SAFETY: As the caller guarantees.
            unsafe { b.module_coming(c) };
        }
    }

    /// Misses no single probe can be charged with, summed (wrapping).
    pub(crate) fn missed_unattributed(&self) -> u64 {
        self.all()
            .iter()
            .fold(0u64, |m, b| m.wrapping_add(b.missed_unattributed()))
    }

    /// Hits and misses summed over every probe (wrapping).
    pub(crate) fn totals(&self) -> (u64, u64) {
        let (mut hits, mut missed) = (0u64, self.missed_unattributed());
        self.each(&mut |p| {
            hits = hits.wrapping_add(p.hits);
            missed = missed.wrapping_add(p.missed);
        });
        (hits, missed)
    }

    /// Whether no backend has a probe.
    pub(crate) fn is_empty(&self) -> bool {
        let mut n = 0;
        for b in self.all() {
            b.tally(&mut |_, c| n += c);
        }
        n == 0
    }
}
