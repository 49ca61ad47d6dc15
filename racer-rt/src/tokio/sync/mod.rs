//! `racer::tokio::sync`: tokio's synchronisation primitives, with the same names and signatures,
//! each telling the detector of the happens-before edges it makes between tasks (and threads).
//! Each wrapper keeps tokio's own primitive for the waiting and a `HandOff` clock
//! (`racer_core::task::HandOff`) beside it: a release posts what the calling task did so far
//! into the clock, an acquire joins it, as Go's race detector and `racer::sync` do.
//!
//! - `Mutex`, `RwLock` (and their guards, owned and mapped): a guard's drop releases while the
//!   lock is still held; each acquisition acquires once tokio's lock is taken. `RwLock` keeps two
//!   clocks: writers release into one, readers into the other; a writer acquires both, a reader
//!   the writers' only (readers do not order each other).
//! - `Semaphore`: giving permits back (a permit's drop, `add_permits`) releases, taking them
//!   acquires; `forget` and `forget_permits` release nothing.
//! - `Notify`: `notify_one`, `notify_last` and `notify_waiters` release; a `Notified` (or
//!   `OwnedNotified`) that completes acquires.
//! - `Barrier`: `wait` releases on arrival and acquires once through, with a clock per
//!   generation of waiters.
//! - `OnceCell`, `SetOnce`: the value carries its own clock, released by whoever stored it
//!   (`set`, the `init` of `get_or_init`) before storing; whatever reads the value (`get`
//!   returning `Some`, `get_or_init`, `wait`, ...) acquires it. A `set` that lost orders
//!   nothing.
//! - `mpsc`, `oneshot`, `broadcast`: each message carries its own clock, released by its send and
//!   acquired by its receive (never the clock of a message the receiver has not taken).
//! - `watch`: one clock per channel, released under tokio's lock of the value by each send that
//!   stores (so that a receiver seeing a value has the release of that value's send), acquired
//!   by `borrow`, `borrow_and_update`, `wait_for`, `changed` and a `has_changed` saying `true`.
//!
//! Every primitive of tokio 1.54's `sync` is wrapped, with each of its methods (which is why the
//! wrappers need tokio 1.54: `Semaphore::blocking_acquire`, `broadcast::WeakSender`, ...). Left
//! as tokio's own: the error types (`TryLockError`, `AcquireError`, `SetError`, the modules
//! `mpsc::error` and the like, which is what the wrappers return, values given back included),
//! `BarrierWaitResult` and `watch::Ref`, which order nothing themselves. A wrapped channel's ends
//! are not tokio's types, so they do not fit APIs written for tokio's; tokio-stream's wrappers
//! over them are in `racer::tokio_stream::wrappers` (feature `tokio-stream`).

pub use tokio_crate::sync::*;

mod barrier;
mod message;
mod mutex;
mod notify;
mod once_cell;
mod rwlock;
mod semaphore;
mod set_once;

pub mod broadcast;
pub mod mpsc;
pub mod oneshot;
pub mod watch;

/// `Notify`'s futures, as `tokio::sync::futures`.
pub mod futures {
    pub use super::notify::{Notified, OwnedNotified};
}

pub use barrier::Barrier;
pub use mutex::{MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard};
pub use notify::Notify;
pub use once_cell::OnceCell;
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, RwLockMappedWriteGuard,
    RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};
pub use set_once::SetOnce;
