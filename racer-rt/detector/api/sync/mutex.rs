//! `racer::sync::Mutex`: std's mutex; unlocking posts into the mutex's clock and locking waits
//! on it, so everything done under the lock happens before the next holder's section.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::{Location, RefUnwindSafe, UnwindSafe};

use crate::deadlock::{self, Acq, LockMeta};
use crate::report::LockMode;
use crate::runtime::sync_clock::HeldClock;
use crate::runtime::sync_object::{kind, SyncObject};
use crate::schedule;

pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

/// A mutual exclusion primitive, as `std::sync::Mutex`.
pub struct Mutex<T: ?Sized> {
    /// Its clock is reached only by the thread holding `inner`.
    sync: SyncObject<kind::Mutex, HeldClock>,
    /// The lock's identity for deadlock detection; its drop forgets the lock's edges.
    meta: LockMeta,
    inner: std::sync::Mutex<T>,
}

// As std's: a panic while the lock is held poisons it, so a lock seen across a panic is safe to
// use (racer's bookkeeping beside it is the detector's, never left half-made by user code).
impl<T: ?Sized> UnwindSafe for Mutex<T> {}
impl<T: ?Sized> RefUnwindSafe for Mutex<T> {}

/// Maps the guard inside a `LockResult`, keeping the poison flag.
pub(crate) fn map_lock_result<G, H>(r: LockResult<G>, f: impl FnOnce(G) -> H) -> LockResult<H> {
    match r {
        Ok(g) => Ok(f(g)),
        Err(poisoned) => Err(PoisonError::new(f(poisoned.into_inner()))),
    }
}

/// A blocking acquisition at `at`: `try_once` first; only when it would block, deadlock
/// bookkeeping for the acquisition `acq` names (edges from the locks held, a re-lock), a few
/// more tries, then `block`, its wait published while it lasts. Inside a model, tries at
/// points until one succeeds (a lock never blocks the model's turn).
pub(crate) fn acquire<G>(
    at: &'static Location<'static>,
    acq: impl FnOnce() -> Acq,
    try_once: impl Fn() -> TryLockResult<G>,
    block: impl FnOnce() -> LockResult<G>,
) -> LockResult<G> {
    let acquired_now = |r| match r {
        Ok(g) => Some(Ok(g)),
        Err(TryLockError::Poisoned(p)) => Some(Err(p)),
        Err(TryLockError::WouldBlock) => None,
    };
    if schedule::in_model() {
        schedule::point("locking", at);
        loop {
            if let Some(r) = acquired_now(try_once()) {
                return r;
            }
            schedule::blocked("waiting for a lock", at);
        }
    }
    if let Some(r) = acquired_now(try_once()) {
        return r;
    }
    let acq = acq();
    deadlock::contended(acq);
    for round in 0..deadlock::SPIN_ROUNDS {
        deadlock::pause(round);
        if let Some(r) = acquired_now(try_once()) {
            return r;
        }
    }
    let _waiting = deadlock::blocking_lock(acq);
    block()
}

/// Maps the guard inside a `TryLockResult`, keeping the poison flag.
pub(crate) fn map_try_lock_result<G, H>(r: TryLockResult<G>, f: impl FnOnce(G) -> H) -> TryLockResult<H> {
    match r {
        Ok(g) => Ok(f(g)),
        Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(f(p.into_inner())))),
        Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
    }
}

impl<T> Mutex<T> {
    #[track_caller]
    pub const fn new(t: T) -> Mutex<T> {
        Mutex {
            sync: SyncObject::new(HeldClock::new(), Location::caller()),
            meta: LockMeta::new(),
            inner: std::sync::Mutex::new(t),
        }
    }

    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    #[inline]
    pub(crate) fn acq(&self, at: &'static Location<'static>) -> Acq {
        Acq::new(&self.meta, LockMode::Exclusive, "Mutex", self.sync.created, at)
    }

    /// Makes a guard out of a std guard just acquired: the wait. `blocking`: taken by `lock`
    /// (or a condvar's relock), so the locks held get a lock-order edge to it.
    pub(crate) fn acquired<'a>(
        &'a self,
        inner: std::sync::MutexGuard<'a, T>,
        at: &'static Location<'static>,
        blocking: bool,
    ) -> MutexGuard<'a, T> {
        // SAFETY: `inner` is the lock's std guard: this thread holds the lock.
        unsafe { self.sync.clock.wait(self.sync.event("locking", at)) };
        deadlock::acquired(self.acq(at), blocking);
        MutexGuard { lock: self, inner: Some(inner), locked_at: at }
    }

    /// The lock's std guard has been given up (the guard dropped, or a condvar wait).
    pub(crate) fn released(&self) {
        deadlock::released(self.meta.id());
    }

    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let at = Location::caller();
        let r = acquire(at, || self.acq(at), || self.inner.try_lock(), || self.inner.lock());
        map_lock_result(r, |g| self.acquired(g, at, true))
    }

    /// A condvar's relock inside a model, at `site`, for a guard first taken at `at`.
    pub(crate) fn relock_in_model(
        &self,
        at: &'static Location<'static>,
        site: &'static Location<'static>,
    ) -> LockResult<MutexGuard<'_, T>> {
        let r = acquire(site, || self.acq(at), || self.inner.try_lock(), || self.inner.lock());
        map_lock_result(r, |g| self.acquired(g, at, true))
    }

    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let at = Location::caller();
        schedule::point("trying a lock", at);
        map_try_lock_result(self.inner.try_lock(), |g| self.acquired(g, at, false))
    }

    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    pub fn clear_poison(&self) {
        self.inner.clear_poison()
    }

    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    #[track_caller]
    fn from(t: T) -> Mutex<T> {
        Mutex::new(t)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// The guard of a locked `Mutex`; dropping it posts, then unlocks.
///
/// Invariant: `inner` is `Some` from creation until the guard is dropped or handed to a
/// `Condvar` wait.
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    pub(crate) lock: &'a Mutex<T>,
    pub(crate) inner: Option<std::sync::MutexGuard<'a, T>>,
    locked_at: &'static Location<'static>,
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// The unlock half of a guard: posts and returns the std guard, for a condvar to wait with.
    pub(crate) fn release(mut self) -> (&'a Mutex<T>, std::sync::MutexGuard<'a, T>, &'static Location<'static>) {
        let inner = self.inner.take().expect("guard already released");
        // SAFETY: `inner` still holds the lock.
        unsafe { self.lock.sync.clock.post(self.lock.sync.event("unlocking", self.locked_at)) };
        self.lock.released();
        (self.lock, inner, self.locked_at)
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.inner.as_deref().expect("guard already released")
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.inner.as_deref_mut().expect("guard already released")
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            // SAFETY: `inner` still holds the lock.
            unsafe {
                self.lock.sync.clock.post_and_unlock(self.lock.sync.event("unlocking", self.locked_at), |_| drop(inner))
            };
            // After the unlock: only this thread's own list of held locks changes, and the
            // next holder need not wait for it.
            self.lock.released();
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
