//! `racer::sync::Condvar`: std's condition variable. A wait unlocks its mutex (a post) and
//! relocks it on wake-up (a wait); notifications themselves order nothing, the mutex does.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::panic::Location;
use std::sync::PoisonError;

use super::mutex::{map_lock_result, LockResult, MutexGuard};
use crate::deadlock::{self, Wait};
use crate::schedule;

/// Whether a timed wait returned because its time ran out, as `std::sync::WaitTimeoutResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

/// A condition variable, as `std::sync::Condvar`.
///
/// Invariant: `notifications` counts the notifications made so far; a model's wait
/// returns (untimed) only once it has changed since the wait released its mutex, and an
/// untimed wait outside models returns from a step of it that timed out once it has.
#[derive(Default)]
pub struct Condvar {
    inner: std::sync::Condvar,
    notifications: AtomicU64,
}

impl Condvar {
    pub const fn new() -> Condvar {
        Condvar { inner: std::sync::Condvar::new(), notifications: AtomicU64::new(0) }
    }

    /// Waits for a notification, as std's. The wait is published for deadlock detection; it is
    /// made of timed waits of std's, so that a wait its check has ended can unwind. A step that
    /// timed out returns only if a notification was counted since the wait let go of its mutex:
    /// one made after the step's time ran out, while the step was taking the mutex back (held
    /// by the notifier, say), woke no one, and std's untimed wait would have returned for it.
    /// Returning after a step that timed out with no notification would be a spurious wake-up,
    /// which std allows, so it does not.
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let site = Location::caller();
        if schedule::in_model() {
            return map_lock_result(self.wait_in_model(guard, site, false), |(g, _)| g);
        }
        let (lock, mut inner, at) = guard.release();
        // Read with the mutex still held: a count that differs later is a notification made
        // since the wait let go of it (or one racing with that, which std may deliver too).
        let seen = self.notifications.load(Ordering::SeqCst);
        let not_notified = || self.notifications.load(Ordering::SeqCst) == seen;
        let waiting = deadlock::wait(Wait::Condvar, site);
        loop {
            match self.inner.wait_timeout(inner, deadlock::TICK) {
                Ok((g, r)) if r.timed_out() && not_notified() => inner = g,
                Err(poisoned) if poisoned.get_ref().1.timed_out() && not_notified() => inner = poisoned.into_inner().0,
                Ok((g, _)) => return Ok(lock.acquired(g, at, true)),
                Err(poisoned) => return Err(PoisonError::new(lock.acquired(poisoned.into_inner().0, at, true))),
            }
            if waiting.ended() {
                // Unwind with the guard re-made, so the lock is given back on the way out.
                let _guard = lock.acquired(inner, at, true);
                std::panic::resume_unwind(Box::new(deadlock::DeadlockAbort));
            }
        }
    }

    /// Inside a model a wait unlocks, lets the other threads run until one of them notifies
    /// this condvar (or, timed, until no thread can run: its time ran out), and relocks. As in
    /// loom, a wait nobody notifies stays blocked, so that threads all waiting on condvars end the
    /// model as a deadlock instead of waking each other spuriously until the time budget.
    fn wait_in_model<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        site: &'static Location<'static>,
        timed: bool,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        // Read before the mutex is released: a notification made after the release wakes it.
        let seen = self.notifications.load(Ordering::Relaxed);
        let (lock, inner, at) = guard.release();
        drop(inner);
        let timed_out = loop {
            let timed_out = if timed {
                schedule::blocked_timed("waiting on a Condvar", site)
            } else {
                schedule::blocked("waiting on a Condvar", site);
                false
            };
            if timed_out || self.notifications.load(Ordering::Relaxed) != seen {
                break timed_out;
            }
        };
        map_lock_result(lock.relock_in_model(at, site), |g| (g, WaitTimeoutResult(timed_out)))
    }

    #[track_caller]
    pub fn wait_while<'a, T, F>(&self, mut guard: MutexGuard<'a, T>, mut condition: F) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        // The predicate must run after racer has seen the relock, so std's own loop won't do.
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        if schedule::in_model() {
            return self.wait_in_model(guard, Location::caller(), true);
        }
        let (lock, inner, at) = guard.release();
        map_lock_result(self.inner.wait_timeout(inner, dur), |(g, r)| {
            (lock.acquired(g, at, true), WaitTimeoutResult(r.timed_out()))
        })
    }

    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        let start = Instant::now();
        loop {
            if !condition(&mut *guard) {
                return Ok((guard, WaitTimeoutResult(false)));
            }
            let Some(left) = dur.checked_sub(start.elapsed()).filter(|d| !d.is_zero()) else {
                return Ok((guard, WaitTimeoutResult(true)));
            };
            guard = self.wait_timeout(guard, left)?.0;
        }
    }

    pub fn notify_one(&self) {
        self.notified();
        self.inner.notify_one()
    }

    pub fn notify_all(&self) {
        self.notified();
        self.inner.notify_all()
    }

    /// A notification, for the waits of a model (which wake every waiter: a spurious wake-up
    /// for all but one, as std allows). Counted outside models too: a thread outside the model
    /// may notify a waiter inside one.
    fn notified(&self) {
        // SeqCst, as the untimed wait's reads (`wait`): a notifier that does not hold the mutex
        // is ordered with them by nothing else.
        self.notifications.fetch_add(1, Ordering::SeqCst);
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}
