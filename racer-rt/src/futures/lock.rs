//! `racer::futures::lock`: futures' `Mutex` with the mutex's clock; the other locks are futures'
//! own.
//!
//! futures' lock (a `futures::lock::Mutex<()>`, which does the waiting) is beside the value and
//! the clock: a guard's drop releases into the clock while the lock is still held, each
//! acquisition acquires it once the lock is taken, so each holder is ordered after the previous
//! one. (The value is beside futures' lock rather than in it so that the owned guards can hold
//! the mutex through an `Arc` of ours: an owned guard keeps futures' guard with its borrow of the
//! lock widened to `'static`, and drops it before the `Arc` that keeps the lock alive.)

use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_crate::future::FusedFuture;
use futures_crate::lock as fl;
use racer_core::task::HandOff;

// futures' `BiLock` and the rest of `lock` (with futures' `bilock` feature): futures' own.
#[allow(unused_imports)]
pub use futures_crate::lock::*;

const OBJECT: &str = "futures::lock::Mutex";
const LOCKING: &str = "locking";
const UNLOCKING: &str = "unlocking";

type RawGuard<'a> = fl::MutexGuard<'a, ()>;
type RawLockFuture<'a> = fl::MutexLockFuture<'a, ()>;

/// Widens the borrow of futures' guard to `'static`.
///
/// SAFETY: the caller keeps the lock the guard borrows where it is (in an `Arc` it holds beside
/// the guard) until the guard is dropped.
unsafe fn erase(raw: RawGuard<'_>) -> RawGuard<'static> {
    unsafe { std::mem::transmute::<RawGuard<'_>, RawGuard<'static>>(raw) }
}

/// Widens the borrow of futures' lock future to `'static`: as [`erase`].
unsafe fn erase_future(raw: RawLockFuture<'_>) -> RawLockFuture<'static> {
    unsafe { std::mem::transmute::<RawLockFuture<'_>, RawLockFuture<'static>>(raw) }
}

/// A futures-aware mutex, as `futures::lock::Mutex`: each holder is ordered after the previous
/// one (the guard's drop releases the mutex's clock, the next acquisition acquires it).
pub struct Mutex<T: ?Sized> {
    hand: HandOff,
    raw: fl::Mutex<()>,
    data: UnsafeCell<T>,
}

// SAFETY: as futures': the value is reached only through a guard, which holds the lock.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

/// A guard of a locked `Mutex`, as `futures::lock::MutexGuard`.
#[clippy::has_significant_drop]
pub struct MutexGuard<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
    raw: ManuallyDrop<RawGuard<'a>>,
    at: &'static Location<'static>,
}

// SAFETY: as futures': the guard is a `&mut T` and the lock's guard.
unsafe impl<T: ?Sized + Send> Send for MutexGuard<'_, T> {}
unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

/// An owned guard of a locked `Mutex` in an `Arc`, as `futures::lock::OwnedMutexGuard`.
#[clippy::has_significant_drop]
pub struct OwnedMutexGuard<T: ?Sized> {
    // Borrows `*lock`: dropped before it.
    raw: ManuallyDrop<RawGuard<'static>>,
    lock: Arc<Mutex<T>>,
    at: &'static Location<'static>,
}

// SAFETY: as futures': the guard owns the mutex (through the `Arc`) and is a `&mut T`.
unsafe impl<T: ?Sized + Send> Send for OwnedMutexGuard<T> {}
unsafe impl<T: ?Sized + Sync> Sync for OwnedMutexGuard<T> {}

/// A guard of a part of a locked `Mutex`'s value, as `futures::lock::MappedMutexGuard`.
#[clippy::has_significant_drop]
pub struct MappedMutexGuard<'a, T: ?Sized, U: ?Sized> {
    lock: &'a Mutex<T>,
    raw: ManuallyDrop<RawGuard<'a>>,
    value: *mut U,
    at: &'static Location<'static>,
    _value: PhantomData<&'a mut U>,
}

// SAFETY: as futures': the guard is a `&mut U` into the value and the lock's guard.
unsafe impl<T: ?Sized + Send, U: ?Sized + Send> Send for MappedMutexGuard<'_, T, U> {}
unsafe impl<T: ?Sized + Sync, U: ?Sized + Sync> Sync for MappedMutexGuard<'_, T, U> {}

/// The future of `Mutex::lock`, as `futures::lock::MutexLockFuture`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct MutexLockFuture<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
    raw: RawLockFuture<'a>,
    at: &'static Location<'static>,
}

// SAFETY: as futures': the future reaches the value only once it has the lock, and gives it
// away as a guard; sharing it shares nothing of the value.
unsafe impl<T: ?Sized + Send> Send for MutexLockFuture<'_, T> {}
unsafe impl<T: ?Sized> Sync for MutexLockFuture<'_, T> {}

/// The future of `Mutex::lock_owned`, as `futures::lock::OwnedMutexLockFuture`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct OwnedMutexLockFuture<T: ?Sized> {
    // Borrows `*lock`: dropped before it. `None` once the lock was taken.
    raw: Option<RawLockFuture<'static>>,
    lock: Arc<Mutex<T>>,
    at: &'static Location<'static>,
}

// SAFETY: as `MutexLockFuture`.
unsafe impl<T: ?Sized + Send> Send for OwnedMutexLockFuture<T> {}
unsafe impl<T: ?Sized> Sync for OwnedMutexLockFuture<T> {}

impl<T> Mutex<T> {
    /// A new, unlocked mutex.
    #[track_caller]
    pub const fn new(t: T) -> Self {
        Mutex { hand: HandOff::new(OBJECT, Location::caller()), raw: fl::Mutex::new(()), data: UnsafeCell::new(t) }
    }

    /// The value, the mutex consumed.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// What every acquisition does once futures' lock is taken: acquire the mutex's clock.
    fn locked<'a>(&'a self, raw: RawGuard<'a>, at: &'static Location<'static>) -> MutexGuard<'a, T> {
        self.hand.acquire(LOCKING, at);
        MutexGuard { lock: self, raw: ManuallyDrop::new(raw), at }
    }

    fn locked_owned(self: Arc<Self>, raw: RawGuard<'static>, at: &'static Location<'static>) -> OwnedMutexGuard<T> {
        self.hand.acquire(LOCKING, at);
        OwnedMutexGuard { raw: ManuallyDrop::new(raw), lock: self, at }
    }

    /// Locks the mutex if it is free: as futures' `try_lock`.
    #[track_caller]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        let at = Location::caller();
        let raw = self.raw.try_lock()?;
        Some(self.locked(raw, at))
    }

    /// Locks the mutex in an `Arc` if it is free: as futures' `try_lock_owned`.
    #[track_caller]
    pub fn try_lock_owned(self: &Arc<Self>) -> Option<OwnedMutexGuard<T>> {
        let at = Location::caller();
        // SAFETY: the guard goes into an `OwnedMutexGuard` beside a clone of the `Arc`.
        let raw = unsafe { erase(self.raw.try_lock()?) };
        Some(self.clone().locked_owned(raw, at))
    }

    /// Locks the mutex, waiting (asynchronously) for it: as futures' `lock`.
    #[track_caller]
    pub fn lock(&self) -> MutexLockFuture<'_, T> {
        MutexLockFuture { lock: self, raw: self.raw.lock(), at: Location::caller() }
    }

    /// Locks the mutex in an `Arc`: as futures' `lock_owned`.
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> OwnedMutexLockFuture<T> {
        // SAFETY: the future goes into an `OwnedMutexLockFuture` beside the `Arc`, dropped first.
        let raw = unsafe { erase_future(self.raw.lock()) };
        OwnedMutexLockFuture { raw: Some(raw), lock: self, at: Location::caller() }
    }

    /// A mutable reference to the value: the borrow is exclusive, nothing is locked.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T> From<T> for Mutex<T> {
    #[track_caller]
    fn from(t: T) -> Self {
        Self::new(t)
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.raw, f)
    }
}

// === the lock futures ===

impl<'a, T: ?Sized> Future for MutexLockFuture<'a, T> {
    type Output = MutexGuard<'a, T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<MutexGuard<'a, T>> {
        let (lock, at) = (self.lock, self.at);
        Pin::new(&mut self.raw).poll(cx).map(|raw| lock.locked(raw, at))
    }
}

impl<T: ?Sized> FusedFuture for MutexLockFuture<'_, T> {
    fn is_terminated(&self) -> bool {
        self.raw.is_terminated()
    }
}

impl<T: ?Sized> fmt::Debug for MutexLockFuture<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.raw, f)
    }
}

impl<T: ?Sized> Future for OwnedMutexLockFuture<T> {
    type Output = OwnedMutexGuard<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<OwnedMutexGuard<T>> {
        let raw = self.raw.as_mut().expect("polled OwnedMutexLockFuture after completion");
        let guard = std::task::ready!(Pin::new(raw).poll(cx));
        self.raw = None;
        Poll::Ready(self.lock.clone().locked_owned(guard, self.at))
    }
}

impl<T: ?Sized> FusedFuture for OwnedMutexLockFuture<T> {
    fn is_terminated(&self) -> bool {
        self.raw.is_none()
    }
}

impl<T: ?Sized> fmt::Debug for OwnedMutexLockFuture<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedMutexLockFuture")
            .field("was_acquired", &self.raw.is_none())
            .field("mutex", &self.lock)
            .finish_non_exhaustive()
    }
}

// === MutexGuard ===

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// A guard of a part of the value: as futures' `MutexGuard::map`.
    #[inline]
    pub fn map<U: ?Sized, F>(mut this: Self, f: F) -> MappedMutexGuard<'a, T, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let value = f(&mut *this) as *mut U;
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again: its lock goes to the new guard.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        MappedMutexGuard { lock: this.lock, raw: ManuallyDrop::new(raw), value, at: this.at, _value: PhantomData }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.hand.release(UNLOCKING, self.at);
        // SAFETY: dropped once, here.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutexGuard").field("value", &&**self).field("mutex", &self.lock).finish()
    }
}

// === OwnedMutexGuard ===

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.lock.hand.release(UNLOCKING, self.at);
        // SAFETY: dropped once, here, before the `Arc` that keeps the lock alive.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized> Deref for OwnedMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedMutexGuard").field("value", &&**self).field("mutex", &self.lock).finish()
    }
}

// === MappedMutexGuard ===

impl<'a, T: ?Sized, U: ?Sized> MappedMutexGuard<'a, T, U> {
    /// A guard of a part of this part: as futures' `MappedMutexGuard::map`.
    #[inline]
    pub fn map<V: ?Sized, F>(mut this: Self, f: F) -> MappedMutexGuard<'a, T, V>
    where
        F: FnOnce(&mut U) -> &mut V,
    {
        let value = f(&mut *this) as *mut V;
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again: its lock goes to the new guard.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        MappedMutexGuard { lock: this.lock, raw: ManuallyDrop::new(raw), value, at: this.at, _value: PhantomData }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for MappedMutexGuard<'_, T, U> {
    fn drop(&mut self) {
        self.lock.hand.release(UNLOCKING, self.at);
        // SAFETY: dropped once, here.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized, U: ?Sized> Deref for MappedMutexGuard<'_, T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: a part of the value of a mutex the guard holds.
        unsafe { &*self.value }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for MappedMutexGuard<'_, T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: a part of the value of a mutex the guard holds.
        unsafe { &mut *self.value }
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for MappedMutexGuard<'_, T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MappedMutexGuard").field("value", &&**self).field("mutex", &self.lock).finish()
    }
}
