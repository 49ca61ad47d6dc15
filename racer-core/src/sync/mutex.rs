//! `racer::sync::Mutex`: std's mutex; unlocking posts into the mutex's clock and locking waits
//! on it, so everything done under the lock happens before the next holder's section.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;

use crate::sync_clock::{HeldClock, SyncEvent};

pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

/// A mutual exclusion primitive, as `std::sync::Mutex`.
pub struct Mutex<T: ?Sized> {
    /// Reached only by the thread holding `inner`.
    clock: HeldClock,
    created: &'static Location<'static>,
    inner: std::sync::Mutex<T>,
}

/// Maps the guard inside a `LockResult`, keeping the poison flag.
pub(crate) fn map_lock_result<G, H>(r: LockResult<G>, f: impl FnOnce(G) -> H) -> LockResult<H> {
    match r {
        Ok(g) => Ok(f(g)),
        Err(poisoned) => Err(PoisonError::new(f(poisoned.into_inner()))),
    }
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
        Mutex { clock: HeldClock::new(), created: Location::caller(), inner: std::sync::Mutex::new(t) }
    }

    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    fn event(&self, op: &'static str, at: &'static Location<'static>) -> SyncEvent {
        SyncEvent { op, object: "Mutex", created: Some(self.created), at }
    }

    /// Makes a guard out of a std guard just acquired: the wait.
    pub(crate) fn acquired<'a>(&'a self, inner: std::sync::MutexGuard<'a, T>, at: &'static Location<'static>) -> MutexGuard<'a, T> {
        // SAFETY: `inner` is the lock's std guard: this thread holds the lock.
        unsafe { self.clock.wait(self.event("locking", at)) };
        MutexGuard { lock: self, inner: Some(inner), locked_at: at }
    }

    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let at = Location::caller();
        map_lock_result(self.inner.lock(), |g| self.acquired(g, at))
    }

    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let at = Location::caller();
        map_try_lock_result(self.inner.try_lock(), |g| self.acquired(g, at))
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
        unsafe { self.lock.clock.post(self.lock.event("unlocking", self.locked_at)) };
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
            unsafe { self.lock.clock.post(self.lock.event("unlocking", self.locked_at)) };
            drop(inner);
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
