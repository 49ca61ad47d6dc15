//! `racer::sync`: std's synchronisation primitives with their happens-before edges made
//! visible to the detector. One file per primitive.

mod condvar;
mod mutex;

pub use condvar::{Condvar, WaitTimeoutResult};
pub use mutex::{LockResult, Mutex, MutexGuard, PoisonError, TryLockError, TryLockResult};

// Not yet instrumented: synchronisation through these is invisible to the detector.
pub use std::sync::{
    atomic, mpsc, Arc, Barrier, BarrierWaitResult, LazyLock, Once, OnceLock, RwLock, RwLockReadGuard,
    RwLockWriteGuard, Weak,
};
