//! racer's runtime. With the `race-detect` feature it is the detector: vector clocks per thread,
//! wrappers that turn synchronisation into happens-before edges, and a global shadow memory
//! running Algorithm 4 of "A Theory of Data Race Detection" on every `Shared` access. Without
//! the feature every public item is std's own or a transparent inline newtype (`disabled`).
//!
//! Users depend on the facade crate `racer`, which re-exports this crate's public items.

mod report;

pub use report::{Access, AccessKind, Frame, Race, RaceKind, Report};

#[cfg(not(feature = "race-detect"))]
mod disabled;
#[cfg(not(feature = "race-detect"))]
pub use disabled::{check, sync, thread, Shared, ENABLED};

#[cfg(feature = "race-detect")]
mod algorithm;
#[cfg(all(feature = "race-detect", target_os = "linux", target_arch = "x86_64"))]
mod cfi_walk;
#[cfg(feature = "race-detect")]
mod clock;
#[cfg(feature = "race-detect")]
mod exit;
#[cfg(feature = "race-detect")]
mod fast_hash;
#[cfg(feature = "race-detect")]
mod options;
#[cfg(feature = "race-detect")]
mod output;
#[cfg(feature = "race-detect")]
mod seen;
#[cfg(feature = "race-detect")]
mod shadow;
#[cfg(feature = "race-detect")]
mod shared;
#[cfg(feature = "race-detect")]
mod sink;
#[cfg(feature = "race-detect")]
mod stack;
#[cfg(feature = "race-detect")]
mod state_slots;
#[cfg(feature = "race-detect")]
mod stats;
#[cfg(feature = "race-detect")]
mod suppressions;
#[cfg(feature = "race-detect")]
mod sync_clock;
#[cfg(feature = "race-detect")]
mod thread_ref;
#[cfg(feature = "race-detect")]
mod thread_state;

#[cfg(feature = "race-detect")]
pub mod sync;
/// The trace language and the all-pairs oracle of the paper tests (not a stable API).
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub mod oracle;
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub mod trace;
#[cfg(feature = "race-detect")]
pub mod thread;

#[cfg(feature = "race-detect")]
pub use shared::Shared;
#[cfg(feature = "race-detect")]
pub use sink::check;
#[cfg(feature = "race-detect")]
pub use stats::{stats, AlgorithmStats, Stats};

/// Selects the detection algorithm (3, 4 or 5) for cells first tracked from now on, as the
/// option `algorithm` does at start-up; for tests and the paper comparison, which run several
/// algorithms in one process. Cells already tracked keep theirs.
///
/// # Panics
/// On any other number.
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub fn select_algorithm(algorithm: u8) {
    algorithm::select(algorithm);
}

/// How many of the calling thread's `Shared` accesses went through the slow path (missed the
/// cell's cache of seen accesses): for tests of the fast path (not a stable API).
#[cfg(feature = "race-detect")]
#[doc(hidden)]
pub use shadow::slow_accesses_on_this_thread;

/// Whether this build checks for races (the `race-detect` feature).
#[cfg(feature = "race-detect")]
pub const ENABLED: bool = true;
