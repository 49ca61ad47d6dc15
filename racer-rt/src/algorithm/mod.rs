//! The per-cell detection policies of the seed paper ("A Theory of Data Race Detection",
//! Banerjee, Bliss, Ma, Petersen). The shadow memory keeps one policy state per cell and feeds
//! it every access that is not a same-segment re-access; only what is remembered per cell
//! differs between the algorithms.
//!
//! The policies know nothing of threads, stacks or reports: an access is a [`Recorded`] segment
//! plus an opaque payload `I` (the runtime stores stack and thread there, trace tests an event
//! index), and the accessing thread's present is its vector clock.

mod alg4;

pub use alg4::Alg4;

use crate::clock::{Segment, VectorClock};
pub use crate::report::RaceKind;

/// One access remembered in a cell: the segment that made it and what to report about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded<I> {
    pub segment: Segment,
    pub info: I,
}

/// A per-cell detection policy.
///
/// Contract: `read`/`write` are called with the accessing thread's current segment in `cur` and
/// its vector clock in `now` (so `now.covers(cur.segment)`); they call `race(kind, previous)` for
/// every remembered access that conflicts with `cur` and is parallel to it, then update the state.
pub trait CellPolicy<I: Clone>: Default {
    fn read(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>));
    fn write(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>));
    /// Number of segments remembered now (the paper's storage measure).
    fn segments(&self) -> usize;
}

static SELECTED: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(4);

/// Chooses the per-cell policy for cells tracked from now on (option `algorithm`, 3, 4 or 5).
/// Called once at start-up, before any access.
pub fn select(algorithm: u8) {
    SELECTED.store(algorithm, std::sync::atomic::Ordering::Relaxed);
}

/// The policy chosen by [`select`] (4 unless told otherwise).
pub fn selected() -> u8 {
    SELECTED.load(std::sync::atomic::Ordering::Relaxed)
}
