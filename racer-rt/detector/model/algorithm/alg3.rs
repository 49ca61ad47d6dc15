use super::policy::{CellPolicy, Recorded};
use crate::model::clock::VectorClock;
use crate::report::RaceKind;

/// Algorithm 3 (the Intel Thread Checker policy): the last read segment and the last write
/// segment of the cell, whoever made them.
///
/// Invariant: `read` is the most recent read checked and `write` the most recent write, so at
/// most 2 segments are stored. Every race reported is real (both remembered accesses happened
/// and conflict with the current one), but a race with an *older* parallel read is lost once a
/// later read that is ordered before the writer replaced it: reads by A and B, then a write
/// ordered after B only, races with A unseen.
#[derive(Debug, Clone)]
pub struct Alg3<I> {
    read: Option<Recorded<I>>,
    write: Option<Recorded<I>>,
}

impl<I> Default for Alg3<I> {
    fn default() -> Self {
        Alg3 { read: None, write: None }
    }
}

impl<I: Clone> CellPolicy<I> for Alg3<I> {
    fn read(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        if let Some(w) = &self.write {
            if !now.covers(w.segment) {
                race(RaceKind::Flow, w);
            }
        }
        self.read = Some(cur.clone());
    }

    fn check_write(&self, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        if let Some(w) = &self.write {
            if !now.covers(w.segment) {
                race(RaceKind::Output, w);
            }
        }
        if let Some(r) = &self.read {
            if !now.covers(r.segment) {
                race(RaceKind::Anti, r);
            }
        }
    }

    fn record_write(&mut self, cur: &Recorded<I>) {
        self.write = Some(cur.clone());
    }

    fn segments(&self) -> usize {
        self.read.is_some() as usize + self.write.is_some() as usize
    }

    fn heap_bytes(&self) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::algorithm::test_support::{clock, run};
    use crate::model::clock::Segment;

    #[test]
    fn read_read_write_misses_the_unordered_reader() {
        // The paper's case: thread 0 reads, thread 1 reads, then thread 2 (ordered after
        // thread 1 only) writes. Only the read of thread 1 is remembered, and it is ordered.
        let mut cell = Alg3::default();
        assert!(run(&mut cell, false, Segment::new(0, 1), &clock(&[(0, 1)]), "r0").is_empty());
        assert!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(1, 1)]), "r1").is_empty());
        assert_eq!(cell.segments(), 1);
        let found = run(&mut cell, true, Segment::new(2, 1), &clock(&[(1, 1), (2, 1)]), "w2");
        assert_eq!(found, vec![]);
        assert_eq!(cell.segments(), 2);
    }

    #[test]
    fn last_read_and_last_write_race_with_a_parallel_access() {
        let mut cell = Alg3::default();
        run(&mut cell, true, Segment::new(0, 1), &clock(&[(0, 1)]), "w0");
        assert_eq!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(1, 1)]), "r1"), vec![(RaceKind::Flow, "w0")]);
        let found = run(&mut cell, true, Segment::new(2, 1), &clock(&[(2, 1)]), "w2");
        assert_eq!(found, vec![(RaceKind::Output, "w0"), (RaceKind::Anti, "r1")]);
        assert_eq!(cell.segments(), 2);
    }

    #[test]
    fn ordered_accesses_are_silent() {
        let mut cell = Alg3::default();
        run(&mut cell, true, Segment::new(0, 1), &clock(&[(0, 1)]), "w0");
        assert!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(0, 1), (1, 1)]), "r1").is_empty());
        assert!(run(&mut cell, true, Segment::new(2, 1), &clock(&[(0, 1), (1, 1), (2, 1)]), "w2").is_empty());
    }
}
