use super::policy::{CellPolicy, Recorded};
use crate::model::clock::{Slot, VectorClock};
use crate::report::RaceKind;

/// Algorithm 5 ("current conflicts"): for every thread slot that touched the cell, its last
/// read segment and its last write segment.
///
/// Invariant: `slots` holds at most one entry per slot, sorted by slot, and each entry has the
/// most recent read and write of that slot (at least one of them), so at most `2t` segments are
/// stored for `t` slots. A race of the current access with an earlier access `a` of slot `u` is
/// never lost: `u`'s remembered access of the same kind is `a` or later in `u`'s program order,
/// and a later one cannot be ordered before the current access without `a` being so too.
///
/// The entries live on the heap, not inline: a cell's state is as large as the largest policy's,
/// and an inline array here would double the size of every Algorithm 4 cell.
#[derive(Debug, Clone)]
pub struct Alg5<I> {
    slots: Vec<LastOfSlot<I>>,
}

/// The last read and last write of one slot on the cell.
#[derive(Debug, Clone)]
struct LastOfSlot<I> {
    slot: Slot,
    read: Option<Recorded<I>>,
    write: Option<Recorded<I>>,
}

impl<I> Default for Alg5<I> {
    fn default() -> Self {
        Alg5 { slots: Vec::new() }
    }
}

impl<I: Clone> Alg5<I> {
    fn entry(&mut self, slot: Slot) -> &mut LastOfSlot<I> {
        let i = match self.slots.binary_search_by_key(&slot, |e| e.slot) {
            Ok(i) => i,
            Err(i) => {
                self.slots.insert(i, LastOfSlot { slot, read: None, write: None });
                i
            }
        };
        &mut self.slots[i]
    }
}

impl<I: Clone> CellPolicy<I> for Alg5<I> {
    fn read(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        for w in self.slots.iter().filter_map(|e| e.write.as_ref()) {
            if !now.covers(w.segment) {
                race(RaceKind::Flow, w);
            }
        }
        self.entry(cur.segment.slot()).read = Some(cur.clone());
    }

    fn check_write(&self, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        for w in self.slots.iter().filter_map(|e| e.write.as_ref()) {
            if !now.covers(w.segment) {
                race(RaceKind::Output, w);
            }
        }
        for r in self.slots.iter().filter_map(|e| e.read.as_ref()) {
            if !now.covers(r.segment) {
                race(RaceKind::Anti, r);
            }
        }
    }

    fn record_write(&mut self, cur: &Recorded<I>) {
        self.entry(cur.segment.slot()).write = Some(cur.clone());
    }

    fn segments(&self) -> usize {
        self.slots.iter().map(|e| e.read.is_some() as usize + e.write.is_some() as usize).sum()
    }

    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<LastOfSlot<I>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::algorithm::test_support::{clock, run};
    use crate::model::clock::Segment;

    #[test]
    fn read_read_write_finds_the_unordered_reader() {
        let mut cell = Alg5::default();
        assert!(run(&mut cell, false, Segment::new(0, 1), &clock(&[(0, 1)]), "r0").is_empty());
        assert!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(1, 1)]), "r1").is_empty());
        let found = run(&mut cell, true, Segment::new(2, 1), &clock(&[(1, 1), (2, 1)]), "w2");
        assert_eq!(found, vec![(RaceKind::Anti, "r0")]);
        assert_eq!(cell.segments(), 3, "the reads of slots 0 and 1 and the write of slot 2");
    }

    #[test]
    fn keeps_last_read_and_write_of_every_slot() {
        // Every slot writes, then reads, in order: nothing races, 2 segments per slot stay.
        let mut cell = Alg5::default();
        let mut now = VectorClock::new();
        for slot in 0..4 {
            now.set(slot, 1);
            assert!(run(&mut cell, true, Segment::new(slot, 1), &now, "w").is_empty());
            assert!(run(&mut cell, false, Segment::new(slot, 1), &now, "r").is_empty());
        }
        assert_eq!(cell.segments(), 8);
        // A later segment of slot 1 replaces its entries instead of adding to them.
        now.set(1, 2);
        assert!(run(&mut cell, false, Segment::new(1, 2), &now, "r").is_empty());
        assert_eq!(cell.segments(), 8);
    }

    #[test]
    fn flow_and_output_against_every_parallel_writer() {
        let mut cell = Alg5::default();
        run(&mut cell, true, Segment::new(0, 1), &clock(&[(0, 1)]), "w0");
        run(&mut cell, true, Segment::new(1, 1), &clock(&[(0, 1), (1, 1)]), "w1");
        assert_eq!(
            run(&mut cell, false, Segment::new(2, 1), &clock(&[(2, 1)]), "r2"),
            vec![(RaceKind::Flow, "w0"), (RaceKind::Flow, "w1")]
        );
        let found = run(&mut cell, true, Segment::new(3, 1), &clock(&[(0, 1), (3, 1)]), "w3");
        assert_eq!(found, vec![(RaceKind::Output, "w1"), (RaceKind::Anti, "r2")]);
    }
}
