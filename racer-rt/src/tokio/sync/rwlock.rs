//! `RwLock` and its guards: tokio's lock (a `tokio::sync::RwLock<()>`, fair, write-preferring)
//! over the value, and two clocks. A writer's guard releases into `written` and a reader's into
//! `read`, while the lock is still held; a writer acquires both once it holds the lock, a
//! reader `written` only, so that readers do not order each other. A downgrade releases into
//! `written` (readers may enter from then on).
//!
//! As for `Mutex`, the value is beside tokio's lock so that the owned guards can hold the lock
//! through an `Arc` of ours, with tokio's guard widened to `'static` and dropped first.

use std::cell::UnsafeCell;
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

const OBJECT: &str = "tokio::sync::RwLock";

type RawRead<'a> = ts::RwLockReadGuard<'a, ()>;
type RawWrite<'a> = ts::RwLockWriteGuard<'a, ()>;

/// Widens the borrow of tokio's read guard to `'static`.
///
/// SAFETY: the caller keeps the lock the guard borrows where it is (in an `Arc` it holds beside
/// the guard) until the guard is dropped.
unsafe fn erase_read(raw: RawRead<'_>) -> RawRead<'static> {
    unsafe { std::mem::transmute::<RawRead<'_>, RawRead<'static>>(raw) }
}

/// As `erase_read`, for a write guard.
///
/// SAFETY: as `erase_read`'s.
unsafe fn erase_write(raw: RawWrite<'_>) -> RawWrite<'static> {
    unsafe { std::mem::transmute::<RawWrite<'_>, RawWrite<'static>>(raw) }
}

/// The lock's two clocks.
#[derive(Debug)]
struct Clocks {
    /// Writers' releases (and downgrades').
    written: HandOff,
    /// Readers' releases.
    read: HandOff,
}

impl Clocks {
    #[track_caller]
    const fn new() -> Clocks {
        Clocks {
            written: HandOff::scheduled(OBJECT, Location::caller()),
            read: HandOff::new(OBJECT, Location::caller()),
        }
    }

    fn read_locked(&self, at: &'static Location<'static>) {
        self.written.acquire("read-locking", at);
    }

    fn write_locked(&self, at: &'static Location<'static>) {
        self.written.acquire("write-locking", at);
        self.read.acquire("write-locking", at);
    }
}

/// An asynchronous reader-writer lock, as `tokio::sync::RwLock`.
pub struct RwLock<T: ?Sized> {
    clocks: Clocks,
    raw: ts::RwLock<()>,
    data: UnsafeCell<T>,
}

// SAFETY: as tokio's: readers share `&T`, a writer has `&mut T`, each through a guard of the lock.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

/// A read guard, as `tokio::sync::RwLockReadGuard`.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    read: &'a HandOff,
    raw: ManuallyDrop<RawRead<'a>>,
    data: *const T,
    at: &'static Location<'static>,
    _value: PhantomData<&'a T>,
}

// SAFETY: as tokio's: the guard is a `&T` and tokio's guard.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockReadGuard<'_, T> {}

/// The parts of a write guard, mapped or not; its drop releases into `written`.
struct Write<'a, T: ?Sized> {
    clocks: &'a Clocks,
    raw: ManuallyDrop<RawWrite<'a>>,
    data: *mut T,
    at: &'static Location<'static>,
}

/// A write guard, as `tokio::sync::RwLockWriteGuard`.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    w: Write<'a, T>,
    _value: PhantomData<&'a mut T>,
}

/// A write guard of a part of the value, as `tokio::sync::RwLockMappedWriteGuard`.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    w: Write<'a, T>,
    _value: PhantomData<&'a mut T>,
}

// SAFETY: as tokio's: the guards are a `&mut T` and tokio's guard.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockMappedWriteGuard<'_, T> {}
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockMappedWriteGuard<'_, T> {}

/// An owned read guard of a lock in an `Arc`, as `tokio::sync::OwnedRwLockReadGuard`.
#[clippy::has_significant_drop]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    // Borrows `*lock`: dropped before it.
    raw: ManuallyDrop<RawRead<'static>>,
    lock: Arc<RwLock<T>>,
    data: *const U,
    at: &'static Location<'static>,
}

// SAFETY: as tokio's: the guard owns the lock (through the `Arc`) and is a `&U`.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Send for OwnedRwLockReadGuard<T, U> {}
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedRwLockReadGuard<T, U> {}

/// The parts of an owned write guard, mapped or not; its drop releases into `written`.
struct OwnedWrite<T: ?Sized, U: ?Sized> {
    // Borrows `*lock`: dropped before it.
    raw: ManuallyDrop<RawWrite<'static>>,
    lock: Arc<RwLock<T>>,
    data: *mut U,
    at: &'static Location<'static>,
}

/// An owned write guard of a lock in an `Arc`, as `tokio::sync::OwnedRwLockWriteGuard`.
#[clippy::has_significant_drop]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    w: OwnedWrite<T, T>,
}

/// An owned write guard of a part of the value, as `tokio::sync::OwnedRwLockMappedWriteGuard`.
#[clippy::has_significant_drop]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    w: OwnedWrite<T, U>,
}

// SAFETY: as tokio's: the guards own the lock (through the `Arc`) and are a `&mut U`.
unsafe impl<T: ?Sized + Send + Sync> Send for OwnedRwLockWriteGuard<T> {}
unsafe impl<T: ?Sized + Send + Sync> Sync for OwnedRwLockWriteGuard<T> {}
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Send for OwnedRwLockMappedWriteGuard<T, U> {}
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedRwLockMappedWriteGuard<T, U> {}

impl<T> RwLock<T> {
    /// A new, unlocked lock.
    #[track_caller]
    pub fn new(value: T) -> RwLock<T> {
        RwLock { clocks: Clocks::new(), raw: ts::RwLock::new(()), data: UnsafeCell::new(value) }
    }

    /// A new, unlocked lock admitting at most `max_reads` readers at once.
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        RwLock { clocks: Clocks::new(), raw: ts::RwLock::with_max_readers((), max_reads), data: UnsafeCell::new(value) }
    }

    /// A new, unlocked lock, in a constant context.
    #[track_caller]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock { clocks: Clocks::new(), raw: ts::RwLock::const_new(()), data: UnsafeCell::new(value) }
    }

    /// As `with_max_readers`, in a constant context.
    #[track_caller]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        RwLock {
            clocks: Clocks::new(),
            raw: ts::RwLock::const_with_max_readers((), max_reads),
            data: UnsafeCell::new(value),
        }
    }

    /// The value, the lock consumed.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    fn read_locked<'a>(&'a self, raw: RawRead<'a>, at: &'static Location<'static>) -> RwLockReadGuard<'a, T> {
        self.clocks.read_locked(at);
        RwLockReadGuard {
            read: &self.clocks.read,
            raw: ManuallyDrop::new(raw),
            data: self.data.get(),
            at,
            _value: PhantomData,
        }
    }

    fn read_locked_owned(
        self: Arc<Self>,
        raw: RawRead<'static>,
        at: &'static Location<'static>,
    ) -> OwnedRwLockReadGuard<T> {
        self.clocks.read_locked(at);
        let data = self.data.get();
        OwnedRwLockReadGuard { raw: ManuallyDrop::new(raw), lock: self, data, at }
    }

    fn write_locked<'a>(&'a self, raw: RawWrite<'a>, at: &'static Location<'static>) -> RwLockWriteGuard<'a, T> {
        self.clocks.write_locked(at);
        let w = Write { clocks: &self.clocks, raw: ManuallyDrop::new(raw), data: self.data.get(), at };
        RwLockWriteGuard { w, _value: PhantomData }
    }

    fn write_locked_owned(
        self: Arc<Self>,
        raw: RawWrite<'static>,
        at: &'static Location<'static>,
    ) -> OwnedRwLockWriteGuard<T> {
        self.clocks.write_locked(at);
        let data = self.data.get();
        OwnedRwLockWriteGuard { w: OwnedWrite { raw: ManuallyDrop::new(raw), lock: self, data, at } }
    }

    /// Locks for reading, waiting (asynchronously) for the lock: as tokio's `read`.
    #[track_caller]
    pub fn read(&self) -> impl Future<Output = RwLockReadGuard<'_, T>> + '_ {
        let at = Location::caller();
        async move {
            let raw = self.raw.read().await;
            self.read_locked(raw, at)
        }
    }

    /// Locks for reading, blocking the thread: as tokio's `blocking_read`.
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        let at = Location::caller();
        let raw = self.raw.blocking_read();
        self.read_locked(raw, at)
    }

    /// Locks a lock in an `Arc` for reading: as tokio's `read_owned`.
    #[track_caller]
    pub fn read_owned(self: Arc<Self>) -> impl Future<Output = OwnedRwLockReadGuard<T>> {
        let at = Location::caller();
        async move {
            // SAFETY: the guard goes into an `OwnedRwLockReadGuard` beside the `Arc`.
            let raw = unsafe { erase_read(self.raw.read().await) };
            self.read_locked_owned(raw, at)
        }
    }

    /// Locks for reading if no writer holds or waits for the lock: as tokio's `try_read`.
    #[track_caller]
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        let at = Location::caller();
        let raw = self.raw.try_read()?;
        Ok(self.read_locked(raw, at))
    }

    /// As `try_read`, for a lock in an `Arc`: as tokio's `try_read_owned`.
    #[track_caller]
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        let at = Location::caller();
        // SAFETY: the guard goes into an `OwnedRwLockReadGuard` beside the `Arc`.
        let raw = unsafe { erase_read(self.raw.try_read()?) };
        Ok(self.read_locked_owned(raw, at))
    }

    /// Locks for writing, waiting (asynchronously) for the lock: as tokio's `write`.
    #[track_caller]
    pub fn write(&self) -> impl Future<Output = RwLockWriteGuard<'_, T>> + '_ {
        let at = Location::caller();
        async move {
            let raw = self.raw.write().await;
            self.write_locked(raw, at)
        }
    }

    /// Locks for writing, blocking the thread: as tokio's `blocking_write`.
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        let at = Location::caller();
        let raw = self.raw.blocking_write();
        self.write_locked(raw, at)
    }

    /// Locks a lock in an `Arc` for writing: as tokio's `write_owned`.
    #[track_caller]
    pub fn write_owned(self: Arc<Self>) -> impl Future<Output = OwnedRwLockWriteGuard<T>> {
        let at = Location::caller();
        async move {
            // SAFETY: the guard goes into an `OwnedRwLockWriteGuard` beside the `Arc`.
            let raw = unsafe { erase_write(self.raw.write().await) };
            self.write_locked_owned(raw, at)
        }
    }

    /// Locks for writing if the lock is free: as tokio's `try_write`.
    #[track_caller]
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        let at = Location::caller();
        let raw = self.raw.try_write()?;
        Ok(self.write_locked(raw, at))
    }

    /// As `try_write`, for a lock in an `Arc`: as tokio's `try_write_owned`.
    #[track_caller]
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        let at = Location::caller();
        // SAFETY: the guard goes into an `OwnedRwLockWriteGuard` beside the `Arc`.
        let raw = unsafe { erase_write(self.raw.try_write()?) };
        Ok(self.write_locked_owned(raw, at))
    }

    /// A mutable reference to the value: the borrow is exclusive, nothing is locked.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T> From<T> for RwLock<T> {
    #[track_caller]
    fn from(s: T) -> Self {
        Self::new(s)
    }
}

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(inner) => d.field("data", &&*inner),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

// === RwLockReadGuard ===

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    /// The same guard over `data`, its drop (the release) skipped.
    fn with_data<U: ?Sized>(this: Self, data: *const U) -> RwLockReadGuard<'a, U> {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        RwLockReadGuard { read: this.read, raw: ManuallyDrop::new(raw), data, at: this.at, _value: PhantomData }
    }

    /// A read guard of a part of the value: as tokio's `RwLockReadGuard::map`.
    #[inline]
    pub fn map<F, U: ?Sized>(this: Self, f: F) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        Self::with_data(this, data)
    }

    /// As `map`, if `f` gives a part: as tokio's `RwLockReadGuard::try_map`.
    #[inline]
    pub fn try_map<F, U: ?Sized>(this: Self, f: F) -> Result<RwLockReadGuard<'a, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let Some(data) = f(&*this).map(|d| d as *const U) else { return Err(this) };
        Ok(Self::with_data(this, data))
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.read.release("read-unlocking", self.at);
        // SAFETY: dropped once, here.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: (a part of) the value of a lock the guard holds for reading.
        unsafe { &*self.data }
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

// === write guards ===

impl<'a, T: ?Sized> Write<'a, T> {
    /// The same guard over `data`, this one's drop (the release) skipped.
    fn with_data<U: ?Sized>(self, data: *mut U) -> Write<'a, U> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        Write { clocks: this.clocks, raw: ManuallyDrop::new(raw), data, at: this.at }
    }

    /// A read guard over `data`: releases into `written` (readers may enter), then downgrades
    /// tokio's guard.
    fn downgrade<U: ?Sized>(self, data: *const U) -> RwLockReadGuard<'a, U> {
        let mut this = ManuallyDrop::new(self);
        this.clocks.written.release("write-unlocking", this.at);
        // SAFETY: `this` is never used or dropped again.
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) }.downgrade();
        RwLockReadGuard { read: &this.clocks.read, raw: ManuallyDrop::new(raw), data, at: this.at, _value: PhantomData }
    }
}

impl<T: ?Sized> Drop for Write<'_, T> {
    fn drop(&mut self) {
        self.clocks.written.release("write-unlocking", self.at);
        // SAFETY: dropped once, here.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// A write guard of a part of the value: as tokio's `RwLockWriteGuard::map`.
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        RwLockMappedWriteGuard { w: this.w.with_data(data), _value: PhantomData }
    }

    /// Downgrades to a read guard of a part of the value: as tokio's
    /// `RwLockWriteGuard::downgrade_map`.
    #[inline]
    pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        this.w.downgrade(data)
    }

    /// As `map`, if `f` gives a part: as tokio's `RwLockWriteGuard::try_map`.
    #[inline]
    pub fn try_map<F, U: ?Sized>(mut this: Self, f: F) -> Result<RwLockMappedWriteGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut U) else { return Err(this) };
        Ok(RwLockMappedWriteGuard { w: this.w.with_data(data), _value: PhantomData })
    }

    /// As `downgrade_map`, if `f` gives a part: as tokio's `RwLockWriteGuard::try_downgrade_map`.
    #[inline]
    pub fn try_downgrade_map<F, U: ?Sized>(this: Self, f: F) -> Result<RwLockReadGuard<'a, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let Some(data) = f(&*this).map(|d| d as *const U) else { return Err(this) };
        Ok(this.w.downgrade(data))
    }

    /// The same guard as a mapped one: as tokio's `RwLockWriteGuard::into_mapped`.
    #[inline]
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockMappedWriteGuard { w: this.w, _value: PhantomData }
    }

    /// Downgrades to a read guard, letting readers in: as tokio's `RwLockWriteGuard::downgrade`.
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let data = self.w.data as *const T;
        self.w.downgrade(data)
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    /// A write guard of a part of this part: as tokio's `RwLockMappedWriteGuard::map`.
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        RwLockMappedWriteGuard { w: this.w.with_data(data), _value: PhantomData }
    }

    /// As `map`, if `f` gives a part: as tokio's `RwLockMappedWriteGuard::try_map`.
    #[inline]
    pub fn try_map<F, U: ?Sized>(mut this: Self, f: F) -> Result<RwLockMappedWriteGuard<'a, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut U) else { return Err(this) };
        Ok(RwLockMappedWriteGuard { w: this.w.with_data(data), _value: PhantomData })
    }
}

macro_rules! write_guard_traits {
    ($($guard:ident),*) => {$(
        impl<T: ?Sized> Deref for $guard<'_, T> {
            type Target = T;
            fn deref(&self) -> &T {
                // SAFETY: (a part of) the value of a lock the guard holds for writing.
                unsafe { &*self.w.data }
            }
        }

        impl<T: ?Sized> DerefMut for $guard<'_, T> {
            fn deref_mut(&mut self) -> &mut T {
                // SAFETY: (a part of) the value of a lock the guard holds for writing.
                unsafe { &mut *self.w.data }
            }
        }

        impl<T: ?Sized + fmt::Debug> fmt::Debug for $guard<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ?Sized + fmt::Display> fmt::Display for $guard<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}

write_guard_traits!(RwLockWriteGuard, RwLockMappedWriteGuard);

// === OwnedRwLockReadGuard ===

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    /// The same guard over `data`, its drop (the release) skipped.
    fn with_data<V: ?Sized>(this: Self, data: *const V) -> OwnedRwLockReadGuard<T, V> {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again; each field is moved out once.
        let (raw, lock) = unsafe { (ManuallyDrop::take(&mut this.raw), std::ptr::read(&this.lock)) };
        OwnedRwLockReadGuard { raw: ManuallyDrop::new(raw), lock, data, at: this.at }
    }

    /// A read guard of a part of the value: as tokio's `OwnedRwLockReadGuard::map`.
    #[inline]
    pub fn map<F, V: ?Sized>(this: Self, f: F) -> OwnedRwLockReadGuard<T, V>
    where
        F: FnOnce(&U) -> &V,
    {
        let data = f(&*this) as *const V;
        Self::with_data(this, data)
    }

    /// As `map`, if `f` gives a part: as tokio's `OwnedRwLockReadGuard::try_map`.
    #[inline]
    pub fn try_map<F, V: ?Sized>(this: Self, f: F) -> Result<OwnedRwLockReadGuard<T, V>, Self>
    where
        F: FnOnce(&U) -> Option<&V>,
    {
        let Some(data) = f(&*this).map(|d| d as *const V) else { return Err(this) };
        Ok(Self::with_data(this, data))
    }

    /// The lock the guard holds.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockReadGuard<T, U> {
    fn drop(&mut self) {
        self.lock.clocks.read.release("read-unlocking", self.at);
        // SAFETY: dropped once, here, before the `Arc` that keeps the lock alive.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockReadGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: (a part of) the value of a lock the guard holds for reading.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockReadGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedRwLockReadGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

// === owned write guards ===

impl<T: ?Sized, U: ?Sized> OwnedWrite<T, U> {
    /// The guard's parts, its drop (the release) skipped.
    fn into_parts(self) -> (RawWrite<'static>, Arc<RwLock<T>>, &'static Location<'static>) {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; each field is moved out once.
        unsafe { (ManuallyDrop::take(&mut this.raw), std::ptr::read(&this.lock), this.at) }
    }

    fn with_data<V: ?Sized>(self, data: *mut V) -> OwnedWrite<T, V> {
        let (raw, lock, at) = self.into_parts();
        OwnedWrite { raw: ManuallyDrop::new(raw), lock, data, at }
    }

    /// An owned read guard over `data`: releases into `written`, then downgrades tokio's guard.
    fn downgrade<V: ?Sized>(self, data: *const V) -> OwnedRwLockReadGuard<T, V> {
        self.lock.clocks.written.release("write-unlocking", self.at);
        let (raw, lock, at) = self.into_parts();
        OwnedRwLockReadGuard { raw: ManuallyDrop::new(raw.downgrade()), lock, data, at }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedWrite<T, U> {
    fn drop(&mut self) {
        self.lock.clocks.written.release("write-unlocking", self.at);
        // SAFETY: dropped once, here, before the `Arc` that keeps the lock alive.
        unsafe { ManuallyDrop::drop(&mut self.raw) };
    }
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// A write guard of a part of the value: as tokio's `OwnedRwLockWriteGuard::map`.
    #[inline]
    pub fn map<F, U: ?Sized>(mut this: Self, f: F) -> OwnedRwLockMappedWriteGuard<T, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        let data = f(&mut *this) as *mut U;
        OwnedRwLockMappedWriteGuard { w: this.w.with_data(data) }
    }

    /// Downgrades to a read guard of a part of the value: as tokio's
    /// `OwnedRwLockWriteGuard::downgrade_map`.
    #[inline]
    pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> OwnedRwLockReadGuard<T, U>
    where
        F: FnOnce(&T) -> &U,
    {
        let data = f(&*this) as *const U;
        this.w.downgrade(data)
    }

    /// As `map`, if `f` gives a part: as tokio's `OwnedRwLockWriteGuard::try_map`.
    #[inline]
    pub fn try_map<F, U: ?Sized>(mut this: Self, f: F) -> Result<OwnedRwLockMappedWriteGuard<T, U>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut U) else { return Err(this) };
        Ok(OwnedRwLockMappedWriteGuard { w: this.w.with_data(data) })
    }

    /// As `downgrade_map`, if `f` gives a part: as tokio's
    /// `OwnedRwLockWriteGuard::try_downgrade_map`.
    #[inline]
    pub fn try_downgrade_map<F, U: ?Sized>(this: Self, f: F) -> Result<OwnedRwLockReadGuard<T, U>, Self>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let Some(data) = f(&*this).map(|d| d as *const U) else { return Err(this) };
        Ok(this.w.downgrade(data))
    }

    /// The same guard as a mapped one: as tokio's `OwnedRwLockWriteGuard::into_mapped`.
    #[inline]
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        OwnedRwLockMappedWriteGuard { w: this.w }
    }

    /// Downgrades to a read guard, letting readers in: as tokio's
    /// `OwnedRwLockWriteGuard::downgrade`.
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        let data = self.w.data as *const T;
        self.w.downgrade(data)
    }

    /// The lock the guard holds.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.w.lock
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// A write guard of a part of this part: as tokio's `OwnedRwLockMappedWriteGuard::map`.
    #[inline]
    pub fn map<F, V: ?Sized>(mut this: Self, f: F) -> OwnedRwLockMappedWriteGuard<T, V>
    where
        F: FnOnce(&mut U) -> &mut V,
    {
        let data = f(&mut *this) as *mut V;
        OwnedRwLockMappedWriteGuard { w: this.w.with_data(data) }
    }

    /// As `map`, if `f` gives a part: as tokio's `OwnedRwLockMappedWriteGuard::try_map`.
    #[inline]
    pub fn try_map<F, V: ?Sized>(mut this: Self, f: F) -> Result<OwnedRwLockMappedWriteGuard<T, V>, Self>
    where
        F: FnOnce(&mut U) -> Option<&mut V>,
    {
        let Some(data) = f(&mut *this).map(|d| d as *mut V) else { return Err(this) };
        Ok(OwnedRwLockMappedWriteGuard { w: this.w.with_data(data) })
    }

    /// The lock the guard holds.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.w.lock
    }
}

impl<T: ?Sized> Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the value of a lock the guard holds for writing.
        unsafe { &*self.w.data }
    }
}

impl<T: ?Sized> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the value of a lock the guard holds for writing.
        unsafe { &mut *self.w.data }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockWriteGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for OwnedRwLockWriteGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: a part of the value of a lock the guard holds for writing.
        unsafe { &*self.w.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: a part of the value of a lock the guard holds for writing.
        unsafe { &mut *self.w.data }
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockMappedWriteGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedRwLockMappedWriteGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
