//! `racer::parking_lot`: parking_lot's lock types under their own names, over racer's
//! `lock_api` adapters (`lock_adapter.rs`), so code that uses parking_lot's locks is checked by
//! switching `parking_lot::` to `racer::parking_lot::` (with the feature off they are
//! parking_lot's own). Not here: `Condvar` (it takes parking_lot's own guard type) and `Once`
//! (racer would not see its edge); use `racer::sync`'s.

use lock_api_crate as la;
use parking_lot_crate as pl;

use crate::lock_adapter;

/// parking_lot's raw mutex with racer's edges.
pub type RawMutex = lock_adapter::RawMutex<pl::RawMutex>;
/// parking_lot's raw fair mutex with racer's edges.
pub type RawFairMutex = lock_adapter::RawMutex<pl::RawFairMutex>;
/// parking_lot's raw reader-writer lock with racer's edges.
pub type RawRwLock = lock_adapter::RawRwLock<pl::RawRwLock>;
pub use pl::RawThreadId;

pub type Mutex<T> = la::Mutex<RawMutex, T>;
pub type MutexGuard<'a, T> = la::MutexGuard<'a, RawMutex, T>;
pub type MappedMutexGuard<'a, T> = la::MappedMutexGuard<'a, RawMutex, T>;

/// A `Mutex` in a `const` or `static`, as `parking_lot::const_mutex`.
pub const fn const_mutex<T>(val: T) -> Mutex<T> {
    Mutex::const_new(<RawMutex as la::RawMutex>::INIT, val)
}

pub type FairMutex<T> = la::Mutex<RawFairMutex, T>;
pub type FairMutexGuard<'a, T> = la::MutexGuard<'a, RawFairMutex, T>;
pub type MappedFairMutexGuard<'a, T> = la::MappedMutexGuard<'a, RawFairMutex, T>;

/// A `FairMutex` in a `const` or `static`, as `parking_lot::const_fair_mutex`.
pub const fn const_fair_mutex<T>(val: T) -> FairMutex<T> {
    FairMutex::const_new(<RawFairMutex as la::RawMutex>::INIT, val)
}

pub type RwLock<T> = la::RwLock<RawRwLock, T>;
pub type RwLockReadGuard<'a, T> = la::RwLockReadGuard<'a, RawRwLock, T>;
pub type RwLockWriteGuard<'a, T> = la::RwLockWriteGuard<'a, RawRwLock, T>;
pub type RwLockUpgradableReadGuard<'a, T> = la::RwLockUpgradableReadGuard<'a, RawRwLock, T>;
pub type MappedRwLockReadGuard<'a, T> = la::MappedRwLockReadGuard<'a, RawRwLock, T>;
pub type MappedRwLockWriteGuard<'a, T> = la::MappedRwLockWriteGuard<'a, RawRwLock, T>;

/// An `RwLock` in a `const` or `static`, as `parking_lot::const_rwlock`.
pub const fn const_rwlock<T>(val: T) -> RwLock<T> {
    RwLock::const_new(<RawRwLock as la::RawRwLock>::INIT, val)
}

pub type ReentrantMutex<T> = la::ReentrantMutex<RawMutex, RawThreadId, T>;
pub type ReentrantMutexGuard<'a, T> = la::ReentrantMutexGuard<'a, RawMutex, RawThreadId, T>;
pub type MappedReentrantMutexGuard<'a, T> = la::MappedReentrantMutexGuard<'a, RawMutex, RawThreadId, T>;

/// A `ReentrantMutex` in a `const` or `static`, as `parking_lot::const_reentrant_mutex`.
pub const fn const_reentrant_mutex<T>(val: T) -> ReentrantMutex<T> {
    ReentrantMutex::const_new(<RawMutex as la::RawMutex>::INIT, <RawThreadId as la::GetThreadId>::INIT, val)
}
