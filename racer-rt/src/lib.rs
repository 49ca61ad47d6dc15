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
/// tokio-stream, as `racer::tokio_stream`: with `race-detect` off, tokio-stream's own items.
#[cfg(all(feature = "tokio-stream", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod tokio_stream {
    pub use tokio_stream_crate::*;
}
/// flume, as `racer::flume`: with `race-detect` off, flume's own items.
#[cfg(all(feature = "flume", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod flume {
    pub use flume_crate::*;
}
/// async-channel, as `racer::async_channel`: with `race-detect` off, async-channel's own items.
#[cfg(all(feature = "async-channel", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod async_channel {
    pub use async_channel_crate::*;
}
/// futures, as `racer::futures`: with `race-detect` off, futures' own items.
#[cfg(all(feature = "futures", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod futures {
    pub use futures_crate::*;
}
/// crossbeam-channel, as `racer::crossbeam_channel`: with `race-detect` off, the crate's own items.
#[cfg(all(feature = "crossbeam-channel", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod crossbeam_channel {
    pub use crossbeam_channel_crate::*;
}
/// crossbeam-queue, as `racer::crossbeam_queue`: with `race-detect` off, the crate's own items.
#[cfg(all(feature = "crossbeam-queue", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod crossbeam_queue {
    pub use crossbeam_queue_crate::*;
}
/// once_cell, as `racer::once_cell`: with `race-detect` off, once_cell's own items.
#[cfg(all(feature = "once_cell", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod once_cell {
    pub use once_cell_crate::*;
}
/// dashmap, as `racer::dashmap`: with `race-detect` off, dashmap's own items.
#[cfg(all(feature = "dashmap", any(not(feature = "race-detect"), doc, rust_analyzer)))]
pub mod dashmap {
    pub use dashmap_crate::*;
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
#[cfg(all(feature = "race-detect", feature = "async-channel", not(any(doc, rust_analyzer))))]
pub mod async_channel;
#[cfg(all(feature = "race-detect", feature = "crossbeam-channel", not(any(doc, rust_analyzer))))]
pub mod crossbeam_channel;
#[cfg(all(feature = "race-detect", feature = "crossbeam-queue", not(any(doc, rust_analyzer))))]
pub mod crossbeam_queue;
#[cfg(all(feature = "race-detect", feature = "dashmap", not(any(doc, rust_analyzer))))]
pub mod dashmap;
#[cfg(all(feature = "race-detect", feature = "flume", not(any(doc, rust_analyzer))))]
pub mod flume;
#[cfg(all(feature = "race-detect", feature = "futures", not(any(doc, rust_analyzer))))]
pub mod futures;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
mod lock_adapter;
#[cfg(all(feature = "race-detect", feature = "once_cell", not(any(doc, rust_analyzer))))]
pub mod once_cell;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
pub mod parking_lot;
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
mod platform;
#[cfg(all(feature = "race-detect", feature = "rayon", not(any(doc, rust_analyzer))))]
pub mod rayon;
#[cfg(all(feature = "race-detect", feature = "tokio", not(any(doc, rust_analyzer))))]
pub mod tokio;
#[cfg(all(feature = "race-detect", feature = "tokio-stream", not(any(doc, rust_analyzer))))]
pub mod tokio_stream;
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
    pub use racer_core::explore::{block_on, current_iteration, inside, Builder, Strategy};
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
