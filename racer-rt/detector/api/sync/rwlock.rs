//! `racer::sync::RwLock`: std's reader-writer lock with its happens-before edges (see
//! `RwClocks`): a writer's section happens before every later section, every reader's section
//! happens before the next writer's, and two read sections are left parallel: a write inside a
//! read section is still a race with a read inside another.

use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::panic::{Location, RefUnwindSafe, UnwindSafe};

use super::mutex::{acquire, map_lock_result, map_try_lock_result};
use crate::deadlock::{self, Acq, LockMeta};
use crate::report::LockMode;
use crate::runtime::rw_clocks::RwClocks;
use crate::runtime::sync_object::{kind, SyncObject};

use std::sync::{LockResult, TryLockResult};

/// A reader-writer lock, as `std::sync::RwLock`.
pub struct RwLock<T: ?Sized> {
    /// Its clocks are reached only by threads holding `inner` (see `RwClocks`).
    sync: SyncObject<kind::RwLock, RwClocks>,
    /// The lock's identity for deadlock detection; its drop forgets the lock's edges.
    meta: LockMeta,
    inner: std::sync::RwLock<T>,
}

impl<T: ?Sized> UnwindSafe for RwLock<T> {}
impl<T: ?Sized> RefUnwindSafe for RwLock<T> {}

impl<T> RwLock<T> {
    #[track_caller]
    pub const fn new(t: T) -> RwLock<T> {
        RwLock {
            sync: SyncObject::new(RwClocks::new(), Location::caller()),
            meta: LockMeta::new(),
            inner: std::sync::RwLock::new(t),
        }
    }

    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    #[inline]
    fn acq(&self, mode: LockMode, at: &'static Location<'static>) -> Acq {
        Acq::new(&self.meta, mode, "RwLock", self.sync.created, at)
    }

    fn read_locked<'a>(
        &'a self,
        inner: std::sync::RwLockReadGuard<'a, T>,
        at: &'static Location<'static>,
        blocking: bool,
    ) -> RwLockReadGuard<'a, T> {
        // SAFETY: `inner` is the lock's std read guard: this thread holds it shared.
        unsafe { self.sync.clock.wait_shared(self.sync.event("read-locking", at)) };
        deadlock::acquired(self.acq(LockMode::Shared, at), blocking);
        RwLockReadGuard { lock: self, inner, locked_at: at }
    }

    fn write_locked<'a>(
        &'a self,
        inner: std::sync::RwLockWriteGuard<'a, T>,
        at: &'static Location<'static>,
        blocking: bool,
    ) -> RwLockWriteGuard<'a, T> {
        // SAFETY: `inner` is the lock's std write guard: this thread holds it exclusively.
        unsafe { self.sync.clock.wait_exclusive(self.sync.event("write-locking", at)) };
        deadlock::acquired(self.acq(LockMode::Exclusive, at), blocking);
        RwLockWriteGuard { lock: self, inner: ManuallyDrop::new(inner), locked_at: at }
    }

    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let at = Location::caller();
        let r = acquire(at, || self.acq(LockMode::Shared, at), || self.inner.try_read(), || self.inner.read());
        map_lock_result(r, |g| self.read_locked(g, at, true))
    }

    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let at = Location::caller();
        map_try_lock_result(self.inner.try_read(), |g| self.read_locked(g, at, false))
    }

    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let at = Location::caller();
        let r = acquire(at, || self.acq(LockMode::Exclusive, at), || self.inner.try_write(), || self.inner.write());
        map_lock_result(r, |g| self.write_locked(g, at, true))
    }

    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let at = Location::caller();
        map_try_lock_result(self.inner.try_write(), |g| self.write_locked(g, at, false))
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

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    #[track_caller]
    fn from(t: T) -> RwLock<T> {
        RwLock::new(t)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// Shared access to a read-locked `RwLock`; dropping it posts into the lock's read clock,
/// then unlocks.
pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    inner: std::sync::RwLockReadGuard<'a, T>,
    locked_at: &'static Location<'static>,
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        // Runs before the field `inner` unlocks.
        self.lock.sync.clock.post_shared(self.lock.sync.event("read-unlocking", self.locked_at));
        deadlock::released(self.lock.meta.id());
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// Exclusive access to a write-locked `RwLock`; dropping it posts into the lock's write clock,
/// then unlocks.
///
/// Invariant: `inner` is dropped only by the guard's drop, which unlocks with it.
pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    inner: ManuallyDrop<std::sync::RwLockWriteGuard<'a, T>>,
    locked_at: &'static Location<'static>,
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `inner` is never used again (the invariant).
        let inner = unsafe { ManuallyDrop::take(&mut self.inner) };
        let event = self.lock.sync.event("write-unlocking", self.locked_at);
        // SAFETY: `inner` holds the lock exclusively until it is dropped there.
        unsafe { self.lock.sync.clock.post_exclusive_and_unlock(event, || drop(inner)) };
        deadlock::released(self.lock.meta.id());
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
