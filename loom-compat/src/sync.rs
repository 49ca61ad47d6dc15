//! `loom::sync`: racer's synchronisation primitives, whose every acquire/release is a
//! happens-before edge for the detector; std's signatures (loom's are the same).

pub use racer::sync::{
    mpsc, Arc, Barrier, BarrierWaitResult, Condvar, LockResult, Mutex, MutexGuard, Once, OnceState, PoisonError,
    RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError, TryLockResult, WaitTimeoutResult, Weak,
};

pub mod atomic;
#[path = "notify.rs"]
mod notify;
pub use notify::Notify;
