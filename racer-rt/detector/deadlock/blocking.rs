//! A thread about to block: a contended acquisition (a few more `try_lock`s, the lock-order
//! edges from the locks held, a re-lock check), and the publication of a wait (`Blocking`),
//! which an interruptible wait polls so that it unwinds with `DeadlockAbort` once its check was
//! ended by a deadlock. Publishing the first wait starts the watchdog.
//!
//! **Re-lock.** A blocking acquisition whose `try_lock` failed checks `HELD`: if the thread
//! holds the lock in a conflicting mode it would wait for itself; that is reported at once and
//! ends the thread's `racer::check` (or the process).
//!
//! Invariant: a wait stays published only while its `Blocking` lives; the only unwinding is
//! `DeadlockAbort`, out of a wait that can never end (never while already unwinding).

use std::panic::Location;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::provenance::stack;
use crate::report::{Deadlock, DeadlockKind, LockEdge};
use crate::runtime::check_scope::{group_of, CheckScope};
use crate::runtime::thread_state::with_current;

use super::enabled;
use super::held::held_now;
use super::lock::{conflict, Acq};
use super::lock_use::{held_frames, lock_use};
use super::order_graph::record_edges;
use super::wait_slot::{my_slot, Published, Wait, WaitSlot};
use super::watchdog::{watchdog, WATCHDOG};

/// The payload a thread unwinds with when its `racer::check` was ended by a deadlock. `check`
/// catches it; it never reaches the user's panic hook (it is raised with `resume_unwind`).
#[derive(Debug)]
pub struct DeadlockAbort;

/// How many more `try_lock`s a contended acquisition makes before it publishes its wait: most
/// contended waits are short.
pub const SPIN_ROUNDS: u32 = 4;

/// The pause before a contended acquisition's next `try_lock`: `4 << 2 * round` spin hints,
/// here, in optimised code. Few `try_lock`s, since each is a compare-and-swap on the lock's
/// cache line that slows its holder's unlock; and not in the generic wrapper, which the user's
/// unoptimised build compiles.
#[inline(never)]
pub fn pause(round: u32) {
    for _ in 0..(4u32 << (2 * round)) {
        std::hint::spin_loop();
    }
}

/// Called by a blocking acquisition whose `try_lock` failed: adds the edges from the locks held
/// (so an inversion is reported before it can hang), and reports a re-lock (then ends the
/// thread's check, or the process, unless it is suppressed).
#[inline(never)]
pub fn contended(acq: Acq) {
    if !enabled() {
        return;
    }
    let held = held_now();
    if held.is_empty() {
        return;
    }
    record_edges(&held, &acq);
    if let Some(first) = held.iter().find(|h| h.id == acq.id && conflict(h.mode, acq.mode)) {
        relock(first, &acq);
    }
}

/// Publishes the wait of an acquisition that is about to block.
#[inline(never)]
pub fn blocking_lock(acq: Acq) -> Blocking {
    if !enabled() {
        return Blocking::none();
    }
    block(Wait::Lock(acq), acq.site, false, held_now())
}

#[cold]
fn relock(first: &Acq, again: &Acq) {
    let Some((thread, sink)) = with_current(|t| (t.thread_ref.info(), t.scope.clone())) else { return };
    let frames = stack::resolve_shown(stack::capture());
    let edge = LockEdge {
        thread_name: thread.name.clone(),
        thread_id: thread.serial,
        held: lock_use(first, held_frames(first.site, &frames)),
        next: lock_use(again, frames),
    };
    let d = Deadlock { kind: DeadlockKind::Relock, edges: vec![edge], threads: Vec::new(), scope: "" };
    if crate::reporting::deliver::deadlock_found(d, sink.as_ref(), true) && !std::thread::panicking() {
        // Inside a check (outside one, the process has ended): this thread would wait forever.
        std::panic::resume_unwind(Box::new(DeadlockAbort));
    }
}

/// A published wait; dropping it (when the wait ends, or unwinds) withdraws it.
pub struct Blocking {
    slot: Option<Arc<WaitSlot>>,
    sink: Option<Arc<CheckScope>>,
}

impl Blocking {
    pub(super) fn none() -> Blocking {
        Blocking { slot: None, sink: None }
    }

    /// For an interruptible wait, called between its polls: unwinds the thread with
    /// `DeadlockAbort` if its check was ended by a deadlock.
    pub fn poll(&self) {
        if self.ended() {
            std::panic::resume_unwind(Box::new(DeadlockAbort));
        }
    }

    /// Whether the wait's check was ended by a deadlock, so the thread should unwind (never
    /// while it is already unwinding).
    pub fn ended(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.is_deadlocked()) && !std::thread::panicking()
    }
}

impl Drop for Blocking {
    fn drop(&mut self) {
        if let Some(slot) = &self.slot {
            *slot.waiting.lock() = None;
        }
    }
}

/// Publishes a wait of the calling thread (an interruptible one polls `Blocking::poll`).
pub fn wait(what: Wait, site: &'static Location<'static>) -> Blocking {
    if !enabled() {
        return Blocking::none();
    }
    let held = held_now();
    block(what, site, true, held)
}

pub(super) fn block(what: Wait, site: &'static Location<'static>, interruptible: bool, held: Vec<Acq>) -> Blocking {
    let Some(slot) = my_slot() else { return Blocking::none() };
    let Some(sink) = with_current(|t| t.scope.clone()) else { return Blocking::none() };
    let stack = stack::capture();
    let published = Published {
        seq: slot.seq.fetch_add(1, Ordering::Relaxed) + 1,
        group: group_of(&sink),
        wait: what,
        site,
        stack,
        held,
        interruptible,
    };
    *slot.waiting.lock() = Some(published);
    WATCHDOG.call_once(|| {
        let _ = std::thread::Builder::new().name("racer-deadlock-watchdog".into()).spawn(watchdog);
    });
    Blocking { slot: Some(slot), sink: if interruptible { sink } else { None } }
}
