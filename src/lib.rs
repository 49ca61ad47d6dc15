//! racer: a data race detector for Rust programs, on stable Rust, at near-native speed, on real
//! threads.
//!
//! Swap `std::{thread, sync}` for `racer::{thread, sync}` and `UnsafeCell` for
//! [`racer::Shared`](Shared) in test builds, then run `cargo test --features race-detect`. Every
//! access to a `Shared` cell is then checked against the happens-before order the wrappers
//! see; without the feature every item is std's own or a transparent inline newtype.
//!
//! This crate only re-exports: the runtime is `racer-rt`, the macros `racer-macros`.

pub use racer_macros::test;
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub use racer_rt::__in_check;
#[cfg(feature = "async-channel")]
pub use racer_rt::async_channel;
#[cfg(feature = "crossbeam-channel")]
pub use racer_rt::crossbeam_channel;
#[cfg(feature = "crossbeam-queue")]
pub use racer_rt::crossbeam_queue;
#[cfg(feature = "dashmap")]
pub use racer_rt::dashmap;
#[cfg(feature = "flume")]
pub use racer_rt::flume;
#[cfg(feature = "futures")]
pub use racer_rt::futures;
#[cfg(feature = "once_cell")]
pub use racer_rt::once_cell;
#[cfg(feature = "rayon")]
pub use racer_rt::rayon;
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub use racer_rt::select_algorithm as __select_algorithm;
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub use racer_rt::slow_accesses_on_this_thread as __slow_accesses_on_this_thread;
#[cfg(feature = "tokio")]
pub use racer_rt::tokio;
#[cfg(feature = "tokio-stream")]
pub use racer_rt::tokio_stream;
pub use racer_rt::{
    annotate, check, lock_api, model, parking_lot, sync, task, thread, Access, AccessKind, Frame, Race, RaceKind,
    Report, Shared, ENABLED,
};
#[cfg(feature = "race-detect")]
pub use racer_rt::{stats, AlgorithmStats, Stats};
pub use racer_rt::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
