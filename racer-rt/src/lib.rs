//! racer's runtime. With the `race-detect` feature it is the detector, `racer-core`, compiled
//! optimised by this crate's build script (see `build.rs`) and given what it needs from outside
//! std by `platform`. Without the feature every public item is std's own or a transparent inline
//! newtype (`disabled`), and nothing of `racer-core` is built.
//!
//! Users depend on the facade crate `racer`, which re-exports this crate's public items.

// The feature-off build: std's items, and the report types so that code naming them compiles.
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
mod disabled;
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
#[path = "../detector/report/mod.rs"]
mod report;
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
pub use report::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
#[path = "../detector/api/annotate/address.rs"]
mod address;
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
#[path = "../detector/api/explore/settings.rs"]
mod explore_settings;
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
pub use disabled::{annotate, check, lock_api, parking_lot, sync, thread, Shared, ENABLED};
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
pub use report::{Access, AccessKind, Frame, Race, RaceKind, Report};

pub mod task;

/// tokio, as `racer::tokio`: with `race-detect` off, tokio's own items.
#[cfg(all(feature = "tokio", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod tokio {
    pub use tokio_crate::*;
}
/// rayon, as `racer::rayon`: with `race-detect` off, rayon's own items.
#[cfg(all(feature = "rayon", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod rayon {
    pub use rayon_crate::*;
}

// The race-detect build: the detector, and its hooks.
// `extern crate racer_core_<hash> as racer_core;`: the detector build.rs compiled (see there).
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
include!(concat!(env!("OUT_DIR"), "/detector.rs"));
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
mod lock_adapter;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
pub mod parking_lot;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
mod platform;
#[cfg(all(feature = "race-detect", feature = "rayon", not(any(doc, rust_analyzer))))]
pub mod rayon;
#[cfg(all(feature = "race-detect", feature = "tokio", not(any(doc, rust_analyzer))))]
pub mod tokio;
/// Adapters that give any `lock_api` raw lock racer's happens-before edges:
/// `lock_api::Mutex<racer::lock_api::RawMutex<MySpinLock>, T>` orders like
/// `racer::sync::Mutex<T>`. With the feature off, `RawMutex<R>` is `R` itself.
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
pub mod lock_api {
    pub use crate::lock_adapter::{RawMutex, RawRwLock};
}
/// `racer::model::Builder`: a model's settings (iterations, time budget, strategy, depth,
/// seed, replay), as loom's `model::Builder`.
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
pub mod model {
    pub use racer_core::explore::{current_iteration, inside, Builder, Strategy};
}
#[cfg(any(not(feature = "race-detect"), doc, rust_analyzer))]
pub use disabled::model;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[doc(hidden)]
pub use racer_core::__in_check;
/// The paper tests' trace language and all-pairs oracle (`racer-rt/tests/paper_*.rs`): test
/// machinery, not API.
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[doc(hidden)]
pub use racer_core::__test;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
pub use racer_core::explore::model;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
pub use racer_core::{
    annotate, check, select_algorithm, slow_accesses_on_this_thread, stats, sync, thread, Access, AccessKind,
    AlgorithmStats, BlockedThread, Deadlock, DeadlockKind, Frame, LockEdge, LockMode, LockUse, Race, RaceKind, Report,
    Shared, Stats, ENABLED,
};
