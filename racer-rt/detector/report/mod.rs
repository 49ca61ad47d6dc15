//! **The report types**: the public `Report`, `Race`, `Access`, `Frame`, `Deadlock`...
//! and their text and JSON layouts. Compiled in both builds: racer-rt includes this folder by
//! `#[path]` when the feature is off, so its files refer to each other by `super::` only.
//!
//! Imports: none of racer-core's (see `racer-core/tests/layers.rs`). Invariant: what is reported, never how or where.

mod check_report;
mod deadlock;
mod frame;
mod race;

pub use check_report::Report;
#[allow(unused_imports)]
pub(crate) use deadlock::deadlock_json;
pub use deadlock::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
// The feature-off build includes this module without the model runner that uses it.
#[allow(unused_imports)]
pub(crate) use frame::json_string;
pub use frame::Frame;
// Used by the detector only, not by the feature-off build, which makes no report.
#[allow(unused_imports)]
pub(crate) use frame::{actor_label, hide_generated, runs_test, test_of};
#[allow(unused_imports)]
pub(crate) use race::race_json;
#[allow(unused_imports)]
pub(crate) use race::LastSync;
pub use race::{Access, AccessKind, Race, RaceKind};
// Named by the detector; the feature-off build only compiles them (methods of `Race` and
// `Access` return them).
#[allow(unused_imports)]
pub use race::{AtomicPair, CellBirth, HeldLock};
