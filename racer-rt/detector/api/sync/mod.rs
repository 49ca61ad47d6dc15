//! `racer::sync`: std's synchronisation primitives with their happens-before edges made
//! visible to the detector. One file per primitive.

mod arc;
pub mod atomic;
mod atomic_clock;
mod atomic_table;
mod barrier;
mod condvar;
mod fence;
mod lazy_lock;
pub mod mpsc;
mod mutex;
mod once;
mod once_lock;
mod rwlock;
mod store_history;

pub use arc::{Arc, Weak};
pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};
pub(crate) use fence::{swap_fences, FenceState};
pub use lazy_lock::LazyLock;
pub use mutex::{LockResult, Mutex, MutexGuard, PoisonError, TryLockError, TryLockResult};
pub use once::{Once, OnceState};
pub use once_lock::OnceLock;
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
