//! The feature-off build, all in one place: std's own items, and `Shared` as a transparent
//! inline newtype of `UnsafeCell`. No runtime, no globals, no start-up code.

use std::cell::UnsafeCell;
use std::fmt;

use crate::report::Report;

/// Whether this build checks for races (the `race-detect` feature).
pub const ENABLED: bool = false;

pub mod thread {
    pub use std::thread::{
        available_parallelism, current, panicking, park, park_timeout, scope, sleep, spawn, yield_now, Builder,
        JoinHandle, Result, Scope, ScopedJoinHandle, Thread, ThreadId,
    };
}

pub mod sync {
    pub use std::sync::{
        atomic, mpsc, Arc, Barrier, BarrierWaitResult, Condvar, LazyLock, LockResult, Mutex, MutexGuard, Once,
        OnceLock, OnceState, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError, TryLockResult,
        WaitTimeoutResult, Weak,
    };
}

/// Runs `f`; there is no detector in this build, so the report is always empty.
#[inline]
pub fn check<F: FnOnce()>(f: F) -> Report {
    f();
    Report::default()
}

/// `UnsafeCell<T>` with racer's method names; nothing is checked in this build.
#[repr(transparent)]
pub struct Shared<T: ?Sized> {
    value: UnsafeCell<T>,
}

unsafe impl<T: ?Sized + Send> Send for Shared<T> {}
unsafe impl<T: ?Sized + Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    #[inline(always)]
    pub const fn new(value: T) -> Shared<T> {
        Shared { value: UnsafeCell::new(value) }
    }

    #[inline(always)]
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }

    /// # Safety
    /// As for reading through `UnsafeCell::get`.
    #[inline(always)]
    pub unsafe fn get(&self) -> T
    where
        T: Copy,
    {
        *self.value.get()
    }

    /// # Safety
    /// As for writing through `UnsafeCell::get`.
    #[inline(always)]
    pub unsafe fn set(&self, value: T) {
        *self.value.get() = value;
    }
}

impl<T: ?Sized> Shared<T> {
    #[inline(always)]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.value.get())
    }

    #[inline(always)]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.value.get())
    }

    #[inline(always)]
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T: Default> Default for Shared<T> {
    #[inline(always)]
    fn default() -> Shared<T> {
        Shared::new(T::default())
    }
}

impl<T> From<T> for Shared<T> {
    #[inline(always)]
    fn from(value: T) -> Shared<T> {
        Shared::new(value)
    }
}

impl<T: ?Sized> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared").field("type", &std::any::type_name::<T>()).finish_non_exhaustive()
    }
}
