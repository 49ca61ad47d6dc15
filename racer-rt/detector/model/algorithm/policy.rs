//! What every per-cell policy is: the interface the shadow memory runs (`CellPolicy`) and the
//! access it remembers (`Recorded`).

use crate::model::clock::{Segment, VectorClock};
use crate::report::RaceKind;

/// One access remembered in a cell: the segment that made it and what to report about it.
#[derive(Debug, PartialEq, Eq)]
pub struct Recorded<I> {
    pub segment: Segment,
    pub info: I,
}

impl<I: Clone> Clone for Recorded<I> {
    #[inline]
    fn clone(&self) -> Self {
        Recorded { segment: self.segment, info: self.info.clone() }
    }

    /// Field by field, so that an info that names the same thread keeps its handle (see
    /// `AccessInfo::clone_from`): a thread's write over its own last write changes no count.
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        self.segment = source.segment;
        self.info.clone_from(&source.info);
    }
}

/// A per-cell detection policy.
///
/// Contract: `read`/`write` are called with the accessing thread's current segment in `cur` and
/// its vector clock in `now` (so `now.covers(cur.segment)`); they call `race(kind, previous)` for
/// every remembered access that conflicts with `cur` and is parallel to it, then update the state.
pub trait CellPolicy<I: Clone> {
    fn read(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>));
    fn write(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        self.check_write(now, race);
        self.record_write(cur);
    }
    /// The check half of `write`: reports what a write by the owner of `now` races with.
    fn check_write(&self, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>));
    /// The update half of `write`: remembers `cur` as the last write.
    fn record_write(&mut self, cur: &Recorded<I>);
    /// Number of segments remembered now (the paper's storage measure).
    fn segments(&self) -> usize;
    /// Bytes the state holds on the heap, outside its own `size_of`.
    fn heap_bytes(&self) -> usize;
    /// `(segments(), heap_bytes())` in one call: taken around every slow-path access.
    #[inline]
    fn footprint(&self) -> (usize, usize) {
        (self.segments(), self.heap_bytes())
    }
}
