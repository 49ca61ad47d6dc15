//! racer's runtime. With the `race-detect` feature it is the detector, `racer-core`, compiled
//! optimised by this crate's build script (see `build.rs`) and given what it needs from outside
//! std by `platform`. Without the feature every public item is std's own or a transparent inline
//! newtype (`disabled`), and nothing of `racer-core` is built.
//!
//! Users depend on the facade crate `racer`, which re-exports this crate's public items.

// The feature-off build: std's items, and the report types so that code naming them compiles.
#[cfg(not(feature = "race-detect"))]
mod disabled;
#[cfg(not(feature = "race-detect"))]
#[path = "../../racer-core/src/report/mod.rs"]
mod report;
#[cfg(not(feature = "race-detect"))]
pub use report::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
#[cfg(not(feature = "race-detect"))]
#[path = "../../racer-core/src/api/annotate/address.rs"]
mod address;
#[cfg(not(feature = "race-detect"))]
#[path = "../../racer-core/src/api/explore/settings.rs"]
mod explore_settings;
#[cfg(not(feature = "race-detect"))]
pub use disabled::{annotate, check, lock_api, parking_lot, sync, thread, Shared, ENABLED};
#[cfg(not(feature = "race-detect"))]
pub use report::{Access, AccessKind, Frame, Race, RaceKind, Report};

// The race-detect build: the detector, and its hooks.
#[cfg(feature = "race-detect")]
extern crate racer_core;
#[cfg(feature = "race-detect")]
mod lock_adapter;
#[cfg(feature = "race-detect")]
pub mod parking_lot;
#[cfg(feature = "race-detect")]
mod platform;
/// Adapters that give any `lock_api` raw lock racer's happens-before edges:
/// `lock_api::Mutex<racer::lock_api::RawMutex<MySpinLock>, T>` orders like
/// `racer::sync::Mutex<T>`. With the feature off, `RawMutex<R>` is `R` itself.
#[cfg(feature = "race-detect")]
pub mod lock_api {
    pub use crate::lock_adapter::{RawMutex, RawRwLock};
}
/// `racer::model::Builder`: a model's settings (iterations, time budget, strategy, depth,
/// seed, replay), as loom's `model::Builder`.
#[cfg(feature = "race-detect")]
pub mod model {
    pub use racer_core::explore::{current_iteration, Builder, Strategy};
}
#[cfg(not(feature = "race-detect"))]
pub use disabled::model;
#[cfg(feature = "race-detect")]
pub use racer_core::explore::model;
#[cfg(feature = "race-detect")]
pub use racer_core::{
    annotate, check, oracle, select_algorithm, slow_accesses_on_this_thread, stats, sync, thread, trace, Access,
    AccessKind, AlgorithmStats, BlockedThread, Deadlock, DeadlockKind, Frame, LockEdge, LockMode, LockUse, Race,
    RaceKind, Report, Shared, Stats, ENABLED,
};
