// SPDX-License-Identifier: GPL-2.0

//! What a control write checks around its run, besides its lines: the
//! kernel's lockdown before anything runs, and the exit trampoline's pin on
//! the module after a `flush` or `unregister --sync`.

use kernel::prelude::*;

use super::Engine;
use crate::bindings;
use crate::command::Command;
use crate::direct;
use crate::error::Failed;

impl Engine {
    /// After a write's `flush` or `unregister --sync`: the exit trampoline's
    /// pin on the module goes too, waited for ([`direct::exit::settle`]),
    /// so that `rmmod` can follow at once. If a task still sleeps inside a
    /// function an exit set traced, the write has done its work all the
    /// same; `last_error` names the waiting line and what holds the module.
    pub(super) fn settle_exit_pin(&self, cmds: &[(usize, Command<'_>)], texts: &[&[u8]]) {
        let Some(inside) = direct::exit::settle() else {
            return;
        };
        let waits =
            |c: &Command<'_>| matches!(c, Command::Flush | Command::Unregister { sync: true, .. });
        let Some((&(line, _), &text)) = cmds.iter().zip(texts).rev().find(|((_, c), _)| waits(c))
        else {
            return;
        };
        let f = Failed::new(
            EBUSY,
            format_args!(
                "done, but {inside} task(s) still sleep inside functions an exit set traced: \
                 the module keeps its pin (rmmod: in use) until they return"
            ),
        );
        self.registry
            .lock()
            .set_last_error(Some((line, text)), None, &f);
    }

    /// Where the kernel is locked down for confidentiality, it refuses
    /// kprobes to `kprobe_events` and fprobe events alike
    /// (`LOCKDOWN_KPROBES`: probes whose fetch arguments read any kernel
    /// memory, records that reach perf); a write that stages, creates,
    /// arms or retargets probes is refused there too, at its first such
    /// line, before anything runs, and the lockdown LSM logs its own line.
    /// Teardown (`disable`, `unregister`, `flush`, `-:`) stays allowed: a
    /// set made before the kernel was locked down can still go.
    pub(super) fn refuse_locked_down(
        &self,
        cmds: &[(usize, Command<'_>)],
        texts: &[&[u8]],
    ) -> Result {
        let arms = |c: &Command<'_>| {
            matches!(
                c,
                Command::Probe(_)
                    | Command::Create { .. }
                    | Command::Enable(_)
                    | Command::Retarget { .. }
            )
        };
        let Some((&(line, _), &text)) = cmds.iter().zip(texts).find(|((_, c), _)| arms(c)) else {
            return Ok(());
        };
        // SAFETY: A plain C call, in process context.
        let ret = unsafe { bindings::bp_lockdown_kprobes() };
        if ret == 0 {
            return Ok(());
        }
        let error = Error::from_errno(ret);
        let f = Failed::new(
            error,
            format_args!(
                "the kernel is locked down (lockdown=confidentiality): it refuses kprobes, \
                 as to kprobe_events"
            ),
        );
        self.registry
            .lock()
            .set_last_error(Some((line, text)), None, &f);
        Err(error)
    }
}
