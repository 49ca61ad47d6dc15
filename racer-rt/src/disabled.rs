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

/// `racer::model` in the feature-off build: the settings are racer-core's, and `check` runs the
/// closure once (no scheduler, no detector).
pub mod model {
    pub use crate::explore_settings::{Builder, Strategy};

    /// The model iteration the calling thread runs in: never one in this build.
    pub fn current_iteration() -> Option<u64> {
        None
    }

    /// Whether the calling thread runs in a model's iteration: never in this build.
    #[inline]
    pub fn inside() -> bool {
        false
    }

    /// Runs `future` to its end on the calling thread, parking it while the future is pending
    /// (as futures' `block_on`); with the feature on, inside a model, the wait is the schedule's.
    pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
        struct Unpark(std::thread::Thread, std::sync::atomic::AtomicBool);
        impl std::task::Wake for Unpark {
            fn wake(self: std::sync::Arc<Self>) {
                self.wake_by_ref();
            }
            fn wake_by_ref(self: &std::sync::Arc<Self>) {
                self.1.store(true, std::sync::atomic::Ordering::Release);
                self.0.unpark();
            }
        }
        let signal = std::sync::Arc::new(Unpark(std::thread::current(), std::sync::atomic::AtomicBool::new(false)));
        let waker = std::task::Waker::from(signal.clone());
        let mut cx = std::task::Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            while !signal.1.swap(false, std::sync::atomic::Ordering::Acquire) {
                std::thread::park();
            }
        }
    }

    impl Builder {
        /// Runs `f` once: this build has no scheduler.
        pub fn check<F>(&self, f: F)
        where
            F: Fn() + Sync + Send + 'static,
        {
            f()
        }
    }
}

/// Runs `f` once, as `racer::model` does with the feature on under controlled schedules.
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    f()
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

    #[doc(hidden)]
    #[inline(always)]
    pub fn new_written(value: T) -> Shared<T> {
        Shared::new(value)
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

    #[doc(hidden)]
    #[inline(always)]
    pub fn forget_accesses(&mut self) {}
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

/// `racer::annotate` without a detector: every function is empty and inline, so annotated code
/// costs nothing. See the feature-on build's documentation (and README, "Synchronisation racer
/// cannot see") for what each one tells the detector.
pub mod annotate {
    pub use crate::address::Address;
    use crate::disabled::Shared;

    /// A value with its sender's clock; here, the value alone.
    #[repr(transparent)]
    pub struct Carry<T> {
        value: T,
    }

    impl<T> Carry<T> {
        /// `value`, with the calling thread's clock (here: the value alone).
        #[inline(always)]
        pub fn new(value: T) -> Carry<T> {
            Carry { value }
        }

        /// The value.
        #[inline(always)]
        pub fn into_inner(self) -> T {
            self.value
        }
    }

    impl<T: std::fmt::Debug> std::fmt::Debug for Carry<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_tuple("Carry").field(&self.value).finish()
        }
    }

    /// A release of `addr`: a happens-before edge to every later `acquire` of it.
    #[inline(always)]
    pub fn release(addr: impl Address) {
        let _ = addr;
    }

    /// An acquire of `addr`: ordered after every `release` of it so far.
    #[inline(always)]
    pub fn acquire(addr: impl Address) {
        let _ = addr;
    }

    /// Forgets the clock of `addr`.
    #[inline(always)]
    pub fn forget_sync(addr: impl Address) {
        let _ = addr;
    }

    /// Runs `f` with the thread's accesses unchecked (here: just runs `f`).
    #[inline(always)]
    pub fn ignore_accesses<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// Marks a cell's races benign.
    #[inline(always)]
    pub fn benign<T: ?Sized>(cell: &Shared<T>) {
        let _ = cell;
    }

    /// Marks races on `len` bytes at `addr` benign.
    #[inline(always)]
    pub fn benign_range(addr: impl Address, len: usize) {
        let _ = (addr, len);
    }

    /// A checked read of `len` bytes of raw memory at `addr`.
    #[inline(always)]
    pub fn read(addr: impl Address, len: usize) {
        let _ = (addr, len);
    }

    /// A checked write of `len` bytes of raw memory at `addr`.
    #[inline(always)]
    pub fn write(addr: impl Address, len: usize) {
        let _ = (addr, len);
    }

    /// Forgets the raw shadow and benign marks of `len` bytes at `addr`.
    #[inline(always)]
    pub fn forget(addr: impl Address, len: usize) {
        let _ = (addr, len);
    }
}

/// `racer::lock_api` without a detector: each adapter is the raw lock itself.
pub mod lock_api {
    /// With the feature on, `R` with racer's edges; here `R` itself.
    pub type RawMutex<R> = R;
    /// With the feature on, `R` with racer's edges; here `R` itself.
    pub type RawRwLock<R> = R;
}

/// `racer::parking_lot` without a detector: parking_lot's own items.
pub mod parking_lot {
    pub use parking_lot_crate::{
        const_fair_mutex, const_mutex, const_reentrant_mutex, const_rwlock, Condvar, FairMutex, FairMutexGuard,
        MappedFairMutexGuard, MappedMutexGuard, MappedReentrantMutexGuard, MappedRwLockReadGuard,
        MappedRwLockWriteGuard, Mutex, MutexGuard, Once, OnceState, RawFairMutex, RawMutex, RawRwLock, RawThreadId,
        ReentrantMutex, ReentrantMutexGuard, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard,
        WaitTimeoutResult,
    };
}
