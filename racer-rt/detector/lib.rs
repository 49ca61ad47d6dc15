//! racer's detector: vector clocks per thread, wrappers that turn synchronisation into
//! happens-before edges, and a global shadow memory running Algorithm 4 of "A Theory of Data
//! Race Detection" on every `Shared` access.
//!
//! This crate uses the standard library only, so that `racer-rt`'s build script can compile it
//! with `rustc -C opt-level=3` in every build of the user's (their `cargo test` builds
//! dependencies unoptimised, which made each check about ten times slower). What needs other
//! crates (unwind tables, symbols, start-up hooks) reaches it through [`platform`], which
//! `racer-rt` fills in before `main`.
//!
//! Users depend on the facade crate `racer`, which re-exports `racer-rt`'s public items, which
//! are this crate's.

mod api;
mod base;
mod config;
mod deadlock;
mod model;
mod paper;
mod provenance;
mod report;
mod reporting;
mod runtime;
mod schedule;
mod shadow;

pub use api::annotate;
pub use api::explore;
#[doc(hidden)]
pub use api::foreign_lock;
pub use api::sync;
#[doc(hidden)]
pub use api::task;
pub use api::thread;
#[doc(hidden)]
pub use base::platform;
#[doc(hidden)]
pub use base::small_vec;
/// The trace language and the all-pairs oracle of the paper tests: test machinery, not API.
#[doc(hidden)]
pub mod __test {
    pub use crate::paper::{oracle, trace};
}
#[doc(hidden)]
pub use provenance::stack;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[doc(hidden)]
pub use provenance::stack::cfi_walk;

pub use api::check::check;
#[doc(hidden)]
pub use api::check::in_check as __in_check;
pub use api::shared::Shared;
pub use report::{Access, AccessKind, Frame, Race, RaceKind, Report};
pub use report::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
pub use runtime::stats::{stats, AlgorithmStats, Stats};

/// Reads `RACER_OPTIONS` and registers the end-of-process summary: called by `racer-rt`'s
/// start-up hook after it installed the platform, so a bad option stops the program before
/// `main`.
#[doc(hidden)]
pub fn start_up() {
    config::options::get();
    reporting::exit::register();
}

/// Selects the detection algorithm (3, 4 or 5) for cells first tracked from now on, as the
/// option `algorithm` does at start-up; for tests and the paper comparison, which run several
/// algorithms in one process. Cells already tracked keep theirs.
///
/// # Panics
/// On any other number.
#[doc(hidden)]
pub fn select_algorithm(algorithm: u8) {
    model::algorithm::select(algorithm);
}

/// How many of the calling thread's `Shared` accesses went through the slow path (missed the
/// cell's cache of seen accesses): for tests of the fast path (not a stable API).
#[doc(hidden)]
pub use shadow::cell::slow_accesses_on_this_thread;

/// Whether this build checks for races (the `race-detect` feature).
pub const ENABLED: bool = true;
