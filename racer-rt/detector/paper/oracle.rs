//! The reference for the trace tests, in the style of the paper's Algorithm 1: remember every
//! access with everything that happened before it, and compare all pairs.
//!
//! It shares nothing with the detector but the [`Event`] type: happens-before is computed on the
//! trace's event graph (program order, spawn → child, child → join, unlock → later lock of the
//! same lock, send → the receive of that message) as a set of earlier events per event, not
//! with vector clocks, segments or epochs, so a mistake there cannot hide itself.

use std::collections::{BTreeSet, HashMap, VecDeque};

use crate::paper::trace::{validate, Event, TraceError};

/// Two accesses of one cell, by event index (`first < second`), at least one a write, neither
/// happening before the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RacyPair {
    pub cell: usize,
    pub first: usize,
    pub second: usize,
}

/// A set of event indices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct EventSet(Vec<u64>);

impl EventSet {
    fn insert(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn union(&mut self, other: &EventSet) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
}

/// The oracle's verdict on one trace.
///
/// Invariant: `before[i]` holds exactly the events that happen before event `i` (and `i`).
#[derive(Debug, Clone)]
pub struct Oracle {
    trace: Vec<Event>,
    before: Vec<EventSet>,
    racy: Vec<RacyPair>,
}

impl Oracle {
    /// Analyses a trace; rejects one that could not have happened.
    pub fn new(trace: &[Event]) -> Result<Oracle, TraceError> {
        validate(trace)?;
        let mut before: Vec<EventSet> = Vec::with_capacity(trace.len());
        // The last event of each thread's program order (a child's starts at its spawn).
        let mut last: HashMap<usize, usize> = HashMap::new();
        let mut released: HashMap<usize, EventSet> = HashMap::new();
        let mut messages: HashMap<usize, VecDeque<EventSet>> = HashMap::new();
        for (i, e) in trace.iter().enumerate() {
            let mut set = last.get(&e.thread()).map(|&p| before[p].clone()).unwrap_or_default();
            set.insert(i);
            match *e {
                Event::Spawn { child, .. } => {
                    last.insert(child, i);
                }
                Event::Join { child, .. } => set.union(&before[last[&child]]),
                Event::Acquire { lock, .. } => {
                    if let Some(r) = released.get(&lock) {
                        set.union(r);
                    }
                }
                Event::Release { lock, .. } => released.entry(lock).or_default().union(&set),
                Event::Send { chan, .. } => messages.entry(chan).or_default().push_back(set.clone()),
                Event::Recv { chan, .. } => set
                    .union(&messages.get_mut(&chan).and_then(VecDeque::pop_front).expect("validated: a message waits")),
                Event::Read { .. } | Event::Write { .. } => {}
            }
            last.insert(e.thread(), i);
            before.push(set);
        }
        let mut racy = Vec::new();
        for (second, e) in trace.iter().enumerate() {
            let Some((cell, write)) = e.access() else { continue };
            for (first, d) in trace[..second].iter().enumerate() {
                if let Some((c, w)) = d.access() {
                    if c == cell && (w || write) && !before[second].contains(first) {
                        racy.push(RacyPair { cell, first, second });
                    }
                }
            }
        }
        Ok(Oracle { trace: trace.to_vec(), before, racy })
    }

    /// True iff event `a` happens before event `b` (or is `b`).
    pub fn happens_before(&self, a: usize, b: usize) -> bool {
        self.before[b].contains(a)
    }

    /// Every racy pair, ordered by second then first access.
    pub fn racy_pairs(&self) -> &[RacyPair] {
        &self.racy
    }

    /// True iff events `a` and `b` access the same cell, one writes, and neither happens before
    /// the other.
    pub fn is_racy(&self, a: usize, b: usize) -> bool {
        let (first, second) = (a.min(b), a.max(b));
        match (self.trace[first].access(), self.trace[second].access()) {
            (Some((c1, w1)), Some((c2, w2))) => {
                c1 == c2 && (w1 || w2) && first != second && !self.happens_before(first, second)
            }
            _ => false,
        }
    }

    /// Cells with at least one racy pair.
    pub fn racy_cells(&self) -> BTreeSet<usize> {
        self.racy.iter().map(|p| p.cell).collect()
    }

    /// The trace judged.
    pub fn trace(&self) -> &[Event] {
        &self.trace
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::trace::parse;

    #[test]
    fn read_read_write_has_one_racy_pair() {
        let trace =
            parse("t0 spawn t1; t0 spawn t2; t1 read x0; t2 read x0; t2 send c0; t0 recv c0; t0 write x0").unwrap();
        let oracle = Oracle::new(&trace).unwrap();
        assert_eq!(oracle.racy_pairs(), &[RacyPair { cell: 0, first: 2, second: 6 }]);
        assert!(oracle.happens_before(3, 6));
        assert!(!oracle.happens_before(2, 6));
    }

    #[test]
    fn join_and_locks_order_everything() {
        let trace = parse(
            "t0 spawn t1; t1 lock m0; t1 write x0; t1 unlock m0; t0 lock m0; t0 write x0; t0 unlock m0
             t0 spawn t2; t2 read x1; t0 join t2; t0 write x1",
        )
        .unwrap();
        let oracle = Oracle::new(&trace).unwrap();
        assert!(oracle.racy_pairs().is_empty(), "{:?}", oracle.racy_pairs());
        assert!(oracle.racy_cells().is_empty());
    }

    #[test]
    fn spawn_orders_only_what_came_before_it() {
        let trace = parse("t0 write x0; t0 spawn t1; t0 write x1; t1 read x0; t1 read x1").unwrap();
        let oracle = Oracle::new(&trace).unwrap();
        assert_eq!(oracle.racy_pairs(), &[RacyPair { cell: 1, first: 2, second: 4 }]);
        assert!(oracle.is_racy(4, 2));
        assert!(!oracle.is_racy(0, 3));
    }
}
