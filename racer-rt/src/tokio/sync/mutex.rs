//! `Mutex` and its guards: tokio's lock (a `tokio::sync::Mutex<()>`, which does the waiting,
//! fairly) over the value, and the mutex's clock. A guard's drop releases into the clock while
//! the lock is still held; each acquisition acquires once tokio's lock is taken.
//!
//! The value is beside tokio's lock rather than in it so that the owned guards can hold the
//! mutex through an `Arc` of ours (tokio's owned guards need an `Arc` of tokio's mutex): an owned
//! guard keeps tokio's guard with its borrow of the lock widened to `'static`, and drops it
//! before the `Arc` that keeps the lock alive.

use std::cell::{Cell, UnsafeCell};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::Arc;

use racer_core::task::HandOff;
use tokio_crate::sync as ts;
use tokio_crate::sync::TryLockError;

const OBJECT: &str = "tokio::sync::Mutex";

type RawGuard<'a> = ts::MutexGuard<'a, ()>;

/// Widens the borrow of tokio's guard to `'static`.
///
/// SAFETY: the caller keeps the lock the guard borrows where it is (in an `Arc` it holds beside
/// the guard) until the guard is dropped.
unsafe fn erase(raw: RawGuard<'_>) -> RawGuard<'static> {
    unsafe { std::mem::transmute::<RawGuard<'_>, RawGuard<'static>>(raw) }
}

/// An asynchronous mutual exclusion lock, as `tokio::sync::Mutex`.
pub struct Mutex<T: ?Sized> {
    hand: HandOff,
    raw: ts::Mutex<()>,
    data: UnsafeCell<T>,
}

// SAFETY: as tokio's: the value is reached only through a guard, which holds the lock.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

/// A guard of a locked `Mutex`, as `tokio::sync::MutexGuard`.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
    raw: ManuallyDrop<RawGuard<'a>>,
    at: &'static Location<'static>,
    _value: PhantomData<&'a mut T>,
}

/// An owned guard of a locked `Mutex` in an `Arc`, as `tokio::sync::OwnedMutexGuard`.
#[clippy::has_significant_drop]
pub struct OwnedMutexGuard<T: ?Sized> {
    // Borrows `*lock`: dropped before it.
    raw: ManuallyDrop<RawGuard<'static>>,
    lock: Arc<Mutex<T>>,
    at: &'static Location<'static>,
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: sharing the guard shares `&T` and the mutex (`Sync` when `T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for OwnedMutexGuard<T> {}

/// A guard of a part of a locked `Mutex`'s value, as `tokio::sync::MappedMutexGuard`.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    hand: &'a HandOff,
    raw: ManuallyDrop<RawGuard<'a>>,
    data: *mut T,
    at: &'static Location<'static>,
    _value: PhantomData<&'a mut T>,
}

// SAFETY: as tokio's: the guard is a `&mut T` and the lock's guard.
unsafe impl<'a, T: ?Sized + Sync + 'a> Sync for MappedMutexGuard<'a, T> {}
unsafe impl<'a, T: ?Sized + Send + 'a> Send for MappedMutexGuard<'a, T> {}

/// An owned guard of a part of a locked `Mutex`'s value, as
/// `tokio::sync::OwnedMappedMutexGuard`.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct OwnedMappedMutexGuard<T: ?Sized, U: ?Sized = T> {
    // Borrows `*lock`: dropped before it.
    raw: ManuallyDrop<RawGuard<'static>>,
    lock: Arc<Mutex<T>>,
    data: *mut U,
    at: &'static Location<'static>,
}

// SAFETY: as tokio's: the guard owns the mutex (through the `Arc`) and is a `&mut U`.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedMappedMutexGuard<T, U> {}
unsafe impl<T: ?Sized + Send, U: ?Sized + Send> Send for OwnedMappedMutexGuard<T, U> {}

impl<T> Mutex<T> {
    /// A new, unlocked mutex.
    #[track_caller]
    pub fn new(t: T) -> Self {
        Mutex {
            hand: HandOff::scheduled(OBJECT, Location::caller()),
            raw: ts::Mutex::new(()),
            data: UnsafeCell::new(t),
        }
    }

    /// A new, unlocked mutex, in a constant context.
    #[track_caller]
    pub const fn const_new(t: T) -> Self {
        Mutex {
            hand: HandOff::scheduled(OBJECT, Location::caller()),
            raw: ts::Mutex::const_new(()),
            data: UnsafeCell::new(t),
        }
    }

    /// The value, the mutex consumed.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// What every acquisition does once tokio's lock is taken: acquire the mutex's clock.
    fn locked<'a>(&'a self, raw: RawGuard<'a>, at: &'static Location<'static>) -> MutexGuard<'a, T> {
        self.hand.acquire("locking", at);
        MutexGuard { lock: self, raw: ManuallyDrop::new(raw), at, _value: PhantomData }
    }

    fn locked_owned(self: Arc<Self>, raw: RawGuard<'static>, at: &'static Location<'static>) -> OwnedMutexGuard<T> {
        self.hand.acquire("locking", at);
        OwnedMutexGuard { raw: ManuallyDrop::new(raw), lock: self, at, _not_sync: PhantomData }
    }

    /// Locks the mutex, waiting (asynchronously) for it: as tokio's `lock`.
    #[track_caller]
    pub fn lock(&self) -> impl Future<Output = MutexGuard<'_, T>> + '_ {
        let at = Location::caller();
        async move {
            let raw = self.raw.lock().await;
            self.locked(raw, at)
        }
    }

    /// Locks the mutex, blocking the thread: as tokio's `blocking_lock` (which panics in an
    /// asynchronous context).
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        let at = Location::caller();
        let raw = self.raw.blocking_lock();
        self.locked(raw, at)
    }

    /// Locks the mutex in an `Arc`, blocking the thread: as tokio's `blocking_lock_owned`.
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        let at = Location::caller();
        // SAFETY: the guard goes into an `OwnedMutexGuard` beside the `Arc`.
        let raw = unsafe { erase(self.raw.blocking_lock()) };
        self.locked_owned(raw, at)
    }

    /// Locks the mutex in an `Arc`: as tokio's `lock_owned`.
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> impl Future<Output = OwnedMutexGuard<T>> {
        let at = Location::caller();
        async move {
            // SAFETY: the guard goes into an `OwnedMutexGuard` beside the `Arc`.
            let raw = unsafe { erase(self.raw.lock().await) };
            self.locked_owned(raw, at)
        }
    }

    /// Locks the mutex if it is free: as tokio's `try_lock`.
    #[track_caller]
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        let at = Location::caller();
        let raw = self.raw.try_lock()?;
        Ok(self.locked(raw, at))
    }

    /// A mutable reference to the value: the borrow is exclusive, nothing is locked.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    /// Locks the mutex in an `Arc` if it is free: as tokio's `try_lock_owned`.
    #[track_caller]
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        let at = Location::caller();
        // SAFETY: the guard goes into an `OwnedMutexGuard` beside the `Arc`.
        let raw = unsafe { erase(self.raw.try_lock()?) };
        Ok(self.locked_owned(raw, at))
    }
}

impl<T> From<T> for Mutex<T> {
    #[track_caller]
    fn from(s: T) -> Self {
        Self::new(s)
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(inner) => d.field("data", &&*inner),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

// === MutexGuard ===

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// The guard's parts, its drop (the release) skipped.
    fn into_parts(this: Self) -> (&'a Mutex<T>, RawGuard<'a>, &'static Location<'static>) {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        (this.lock, raw, this.at)
    }

    /// A guard of a part of the value: as tokio's `MutexGuard::map`.
    #[inline]
    pub fn map<U: ?Sized, F>(mut this: Self, f: F) -> MappedMutexGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let (lock, raw, at) = Self::into_parts(this);
        MappedMutexGuard { hand: &lock.hand, raw: ManuallyDrop::new(raw), data, at, _value: PhantomData }
    }

    /// A guard of a part of the value, if `f` gives one: as tokio's `MutexGuard::try_map`.
    #[inline]
    pub fn try_map<U: ?Sized, F>(mut this: Self, f: F) -> Result<MappedMutexGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut U) else { return Err(this) };
        let (lock, raw, at) = Self::into_parts(this);
        Ok(MappedMutexGuard { hand: &lock.hand, raw: ManuallyDrop::new(raw), data, at, _value: PhantomData })
    }

    /// The mutex the guard locks.
    #[inline]
    pub fn mutex(this: &Self) -> &'a Mutex<T> {
        this.lock
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.hand.release("unlocking", self.at);
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
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

// === OwnedMutexGuard ===

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// The guard's parts, its drop (the release) skipped.
    fn into_parts(this: Self) -> (RawGuard<'static>, Arc<Mutex<T>>, &'static Location<'static>) {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again; each field is moved out once.
        unsafe { (ManuallyDrop::take(&mut this.raw), std::ptr::read(&this.lock), this.at) }
    }

    /// An owned guard of a part of the value: as tokio's `OwnedMutexGuard::map`.
    #[inline]
    pub fn map<U: ?Sized, F>(mut this: Self, f: F) -> OwnedMappedMutexGuard<T, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let (raw, lock, at) = Self::into_parts(this);
        OwnedMappedMutexGuard { raw: ManuallyDrop::new(raw), lock, data, at }
    }

    /// As `map`, if `f` gives a part: as tokio's `OwnedMutexGuard::try_map`.
    #[inline]
    pub fn try_map<U: ?Sized, F>(mut this: Self, f: F) -> Result<OwnedMappedMutexGuard<T, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut U) else { return Err(this) };
        let (raw, lock, at) = Self::into_parts(this);
        Ok(OwnedMappedMutexGuard { raw: ManuallyDrop::new(raw), lock, data, at })
    }

    /// The mutex the guard locks.
    #[inline]
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.lock.hand.release("unlocking", self.at);
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
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

// === MappedMutexGuard ===

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    /// The guard's parts, its drop (the release) skipped.
    fn into_parts(this: Self) -> (&'a HandOff, RawGuard<'a>, &'static Location<'static>) {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        (this.hand, raw, this.at)
    }

    /// A guard of a part of this part: as tokio's `MappedMutexGuard::map`.
    #[inline]
    pub fn map<U: ?Sized, F>(mut this: Self, f: F) -> MappedMutexGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        let (hand, raw, at) = Self::into_parts(this);
        MappedMutexGuard { hand, raw: ManuallyDrop::new(raw), data, at, _value: PhantomData }
    }

    /// As `map`, if `f` gives a part: as tokio's `MappedMutexGuard::try_map`.
    #[inline]
    pub fn try_map<U: ?Sized, F>(mut this: Self, f: F) -> Result<MappedMutexGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut U) else { return Err(this) };
        let (hand, raw, at) = Self::into_parts(this);
        Ok(MappedMutexGuard { hand, raw: ManuallyDrop::new(raw), data, at, _value: PhantomData })
    }
}

impl<T: ?Sized> Drop for MappedMutexGuard<'_, T> {
    fn drop(&mut self) {
        self.hand.release("unlocking", self.at);
        // SAFETY: dropped once, here.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized> Deref for MappedMutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: a part of the value of a mutex the guard holds.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for MappedMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: a part of the value of a mutex the guard holds.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

// === OwnedMappedMutexGuard ===

impl<T: ?Sized, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// The guard's parts, its drop (the release) skipped.
    fn into_parts(this: Self) -> (RawGuard<'static>, Arc<Mutex<T>>, &'static Location<'static>) {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again; each field is moved out once.
        unsafe { (ManuallyDrop::take(&mut this.raw), std::ptr::read(&this.lock), this.at) }
    }

    /// A guard of a part of this part: as tokio's `OwnedMappedMutexGuard::map`.
    #[inline]
    pub fn map<S: ?Sized, F>(mut this: Self, f: F) -> OwnedMappedMutexGuard<T, S>
    where
        F: FnOnce(&mut U) -> &mut S,
    {
        let data = f(&mut *this) as *mut S;
        let (raw, lock, at) = Self::into_parts(this);
        OwnedMappedMutexGuard { raw: ManuallyDrop::new(raw), lock, data, at }
    }

    /// As `map`, if `f` gives a part: as tokio's `OwnedMappedMutexGuard::try_map`.
    #[inline]
    pub fn try_map<S: ?Sized, F>(mut this: Self, f: F) -> Result<OwnedMappedMutexGuard<T, S>, Self>
    where
        F: FnOnce(&mut U) -> Option<&mut S>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut S) else { return Err(this) };
        let (raw, lock, at) = Self::into_parts(this);
        Ok(OwnedMappedMutexGuard { raw: ManuallyDrop::new(raw), lock, data, at })
    }

    /// The mutex the guard locks.
    #[inline]
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedMappedMutexGuard<T, U> {
    fn drop(&mut self) {
        self.lock.hand.release("unlocking", self.at);
        // SAFETY: dropped once, here, before the `Arc` that keeps the lock alive.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedMappedMutexGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: a part of the value of a mutex the guard holds.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedMappedMutexGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: a part of the value of a mutex the guard holds.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedMappedMutexGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedMappedMutexGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
