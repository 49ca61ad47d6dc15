//! The detector's side of a lock racer did not write (any `lock_api` raw lock: parking_lot's, a
//! spin lock): racer-rt's generic adapter (`lock_adapter.rs`) calls these around the raw lock's
//! own operations, so that the lock orders like racer's `RwLock` (a mutex uses its exclusive
//! half only) and takes part in deadlock detection. And the wait of a condition variable racer
//! did not write (`racer::parking_lot::Condvar`), published for hang detection.

use std::panic::Location;

use crate::deadlock::{self, Acq, Blocking, LockMeta, Wait};
use crate::provenance::sync_event::SyncEvent;
use crate::report::LockMode;
use crate::runtime::rw_clocks::RwClocks;

/// What racer keeps beside a foreign raw lock, inside the adapter that wraps it.
///
/// Invariant: `clocks` are reached only by threads holding the raw lock, in the mode each of
/// `RwClocks`' methods asks.
#[derive(Debug)]
pub struct ForeignLock {
    clocks: RwClocks,
    /// The lock's identity for deadlock detection; dropping it forgets the lock's edges.
    meta: LockMeta,
    object: &'static str,
    created: &'static Location<'static>,
}

impl ForeignLock {
    /// `object` names the lock in reports ("parking_lot::Mutex").
    #[track_caller]
    pub const fn new(object: &'static str) -> ForeignLock {
        ForeignLock { clocks: RwClocks::new(), meta: LockMeta::new(), object, created: Location::caller() }
    }

    fn event(&self, op: &'static str, at: &'static Location<'static>) -> SyncEvent {
        SyncEvent { op, object: self.object, created: Some(self.created), at }
    }

    fn acq(&self, mode: LockMode, at: &'static Location<'static>) -> Acq {
        Acq::new(&self.meta, mode, self.object, self.created, at)
    }

    /// A blocking acquisition in `mode`: `try_once` first; on contention the deadlock
    /// bookkeeping (lock-order edges, a re-lock), a few more tries, then `block` with the wait
    /// published, as racer's own locks do. Then the wait of [`locked`](Self::locked).
    pub fn lock(
        &self,
        mode: LockMode,
        at: &'static Location<'static>,
        try_once: impl Fn() -> bool,
        block: impl FnOnce(),
    ) {
        if !try_once() {
            let acq = self.acq(mode, at);
            deadlock::contended(acq);
            let spun = (0..deadlock::SPIN_ROUNDS).any(|round| {
                deadlock::pause(round);
                try_once()
            });
            if !spun {
                let _waiting = deadlock::blocking_lock(acq);
                block();
            }
        }
        self.locked(mode, at, true);
    }

    /// The raw lock was just taken in `mode` by the calling thread. `blocking`: by a blocking
    /// call (not a `try_`), so the locks held get a lock-order edge to it.
    pub fn locked(&self, mode: LockMode, at: &'static Location<'static>, blocking: bool) {
        // SAFETY (both): the raw lock was just taken in `mode` (the adapter's invariant).
        match mode {
            LockMode::Shared => unsafe { self.clocks.wait_shared(self.event("read-locking", at)) },
            LockMode::Exclusive => unsafe { self.clocks.wait_exclusive(self.event("locking", at)) },
        }
        deadlock::acquired(self.acq(mode, at), blocking);
    }

    /// The calling thread is about to let go of the raw lock held in `mode`.
    pub fn unlocking(&self, mode: LockMode, at: &'static Location<'static>) {
        match mode {
            LockMode::Shared => self.clocks.post_shared(self.event("read-unlocking", at)),
            // SAFETY: the raw lock is still held exclusively (the adapter's invariant).
            // (The adapter lets go of the raw lock itself, after this.)
            LockMode::Exclusive => unsafe { self.clocks.post_exclusive_and_unlock(self.event("unlocking", at), || ()) },
        }
        deadlock::released(self.meta.id());
    }

    /// A shared (or upgradable) hold becomes exclusive: every reader's section so far happens
    /// before what follows.
    pub fn upgraded(&self, at: &'static Location<'static>) {
        self.clocks.upgraded(self.event("upgrading", at));
        deadlock::released(self.meta.id());
        deadlock::acquired(self.acq(LockMode::Exclusive, at), false);
    }

    /// An exclusive hold is about to become shared: the section so far happens before every
    /// later reader.
    pub fn downgrading(&self, at: &'static Location<'static>) {
        // SAFETY: the raw lock is still held exclusively (the adapter's invariant).
        unsafe { self.clocks.downgrading(self.event("downgrading", at)) };
        deadlock::released(self.meta.id());
        deadlock::acquired(self.acq(LockMode::Shared, at), false);
    }
}

/// An untimed wait on a condition variable racer did not write (`racer::parking_lot::Condvar`),
/// published for hang detection while it lasts, as racer's own `Condvar` publishes its waits:
/// the waiter sleeps in timed steps of `ForeignCondvarWait::STEP` and calls `poll` between
/// them, which unwinds the thread when its `racer::check` was ended by a hang.
pub struct ForeignCondvarWait(Blocking);

impl ForeignCondvarWait {
    /// The longest sleep between two polls.
    pub const STEP: std::time::Duration = deadlock::TICK;

    /// Publishes the wait; call it once the condition variable's mutex is let go (the wait
    /// names the locks the thread still holds).
    pub fn begin(site: &'static Location<'static>) -> ForeignCondvarWait {
        ForeignCondvarWait(deadlock::wait(Wait::Condvar, site))
    }

    /// Unwinds the thread (with racer's deadlock abort) if its check was ended by a hang.
    pub fn poll(&self) {
        self.0.poll();
    }
}
