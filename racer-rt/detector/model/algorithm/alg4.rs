use super::policy::{CellPolicy, Recorded};
use crate::model::clock::VectorClock;
use crate::report::RaceKind;

/// Algorithm 4: the last write segment `W` and the set `R` of read segments since that write.
///
/// Invariant: the segments in `R` are mutually parallel (a read drops every member of `R` that
/// precedes it before joining), so `R` holds at most one segment per thread and `1 + |R|`
/// segments are stored. This is what lets a write find a race with *any* earlier unordered
/// read, where keeping only the last read (Algorithm 3) can miss one.
#[derive(Debug, Clone)]
pub struct Alg4<I> {
    write: Option<Recorded<I>>,
    reads: ReadSet<I>,
}

/// `R`: up to two reads inline (no allocation), more on the heap. Two fit the state's slot,
/// which is a whole cache line (see `state_slots`), so a cell read by two threads at once, the
/// common case of sharing, needs no allocation.
///
/// Invariant: the inline reads are packed (the second is `None` if the first is); once `Many`,
/// it stays `Many` (its allocation is reused by later reads).
#[derive(Debug, Clone)]
enum ReadSet<I> {
    Inline([Option<Recorded<I>>; 2]),
    Many(Vec<Recorded<I>>),
}

impl<I> ReadSet<I> {
    /// Calls `f` on every read in the set.
    #[inline]
    fn for_each(&self, f: impl FnMut(&Recorded<I>)) {
        match self {
            ReadSet::Inline(reads) => reads.iter().flatten().for_each(f),
            ReadSet::Many(v) => v.iter().for_each(f),
        }
    }

    #[inline]
    fn len(&self) -> usize {
        match self {
            ReadSet::Inline(reads) => reads.iter().filter(|r| r.is_some()).count(),
            ReadSet::Many(v) => v.len(),
        }
    }

    #[inline]
    fn retain(&mut self, keep: impl Fn(&Recorded<I>) -> bool) {
        match self {
            // Decided before anything is written: a read of a whole entry right after a store
            // to part of it (the `None` tag) waits for the store to leave the store buffer.
            ReadSet::Inline([first, second]) => {
                match (first.as_ref().is_some_and(&keep), second.as_ref().is_some_and(&keep)) {
                    (true, true) => {}
                    (true, false) => *second = None,
                    (false, true) => *first = second.take(), // packed again
                    (false, false) => (*first, *second) = (None, None),
                }
            }
            ReadSet::Many(v) => v.retain(keep),
        }
    }

    /// `retain(|r| !now.covers(r.segment))`, then `push` of a copy of `cur`; inline, into the
    /// slot of a dropped read where there is one (`clone_from`: a read of the thread whose
    /// older read it replaces, the common case, keeps that read's handle and changes no count).
    #[inline]
    fn replace_covered(&mut self, cur: &Recorded<I>, now: &VectorClock)
    where
        I: Clone,
    {
        let ReadSet::Inline([first, second]) = self else {
            self.retain(|r| !now.covers(r.segment));
            return self.push(cur.clone());
        };
        let parallel = |r: &Option<Recorded<I>>| r.as_ref().is_some_and(|r| !now.covers(r.segment));
        // Decided before anything is written, as in `retain`.
        let into = match (parallel(first), parallel(second)) {
            (true, true) => return self.push(cur.clone()),
            (true, false) => second,
            (false, true) => {
                std::mem::swap(first, second); // packed again, the dropped read second
                second
            }
            (false, false) => {
                *second = None;
                first
            }
        };
        match into {
            Some(read) => read.clone_from(cur),
            empty => *empty = Some(cur.clone()),
        }
    }

    #[inline]
    fn push(&mut self, read: Recorded<I>) {
        match self {
            ReadSet::Inline([first @ None, _]) => *first = Some(read),
            ReadSet::Inline([_, second @ None]) => *second = Some(read),
            ReadSet::Inline([first, second]) => {
                // One more parallel read than fits moves R to the heap: with room for a few
                // more at once, rather than a reallocation per reader.
                let mut v = Vec::with_capacity(SPILLED_READS);
                v.extend(first.take());
                v.extend(second.take());
                v.push(read);
                *self = ReadSet::Many(v);
            }
            ReadSet::Many(v) => v.push(read),
        }
    }

    #[inline]
    fn clear(&mut self) {
        match self {
            ReadSet::Inline(reads) => *reads = [None, None],
            ReadSet::Many(v) => v.clear(),
        }
    }

    #[inline]
    fn heap_capacity(&self) -> usize {
        match self {
            ReadSet::Inline(_) => 0,
            ReadSet::Many(v) => v.capacity(),
        }
    }
}

/// The capacity R gets when it first spills to the heap.
const SPILLED_READS: usize = 4;

impl<I> Default for Alg4<I> {
    fn default() -> Self {
        Alg4 { write: None, reads: ReadSet::Inline([None, None]) }
    }
}

impl<I: Clone> CellPolicy<I> for Alg4<I> {
    fn read(&mut self, cur: &Recorded<I>, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        if let Some(w) = &self.write {
            if !now.covers(w.segment) {
                race(RaceKind::Flow, w);
            }
        }
        self.reads.replace_covered(cur, now);
    }

    fn check_write(&self, now: &VectorClock, race: &mut dyn FnMut(RaceKind, &Recorded<I>)) {
        if let Some(w) = &self.write {
            if !now.covers(w.segment) {
                race(RaceKind::Output, w);
            }
        }
        self.reads.for_each(|r| {
            if !now.covers(r.segment) {
                race(RaceKind::Anti, r);
            }
        });
    }

    fn record_write(&mut self, cur: &Recorded<I>) {
        match &mut self.write {
            Some(last) => last.clone_from(cur),
            none => *none = Some(cur.clone()),
        }
        self.reads.clear();
    }

    fn segments(&self) -> usize {
        self.write.is_some() as usize + self.reads.len()
    }

    fn heap_bytes(&self) -> usize {
        self.reads.heap_capacity() * std::mem::size_of::<Recorded<I>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::algorithm::test_support::{clock, run};
    use crate::model::clock::Segment;

    #[test]
    fn read_read_write_finds_the_unordered_reader() {
        // Thread 0 reads, thread 1 reads, then thread 2 (ordered after thread 1 only) writes.
        let mut cell = Alg4::default();
        assert!(run(&mut cell, false, Segment::new(0, 1), &clock(&[(0, 1)]), "r0").is_empty());
        assert!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(1, 1)]), "r1").is_empty());
        assert_eq!(cell.segments(), 2);
        let found = run(&mut cell, true, Segment::new(2, 1), &clock(&[(1, 1), (2, 1)]), "w2");
        assert_eq!(found, vec![(RaceKind::Anti, "r0")]);
        assert_eq!(cell.segments(), 1);
    }

    #[test]
    fn ordered_accesses_are_silent_and_prune_reads() {
        let mut cell = Alg4::default();
        assert!(run(&mut cell, true, Segment::new(0, 1), &clock(&[(0, 1)]), "w0").is_empty());
        assert!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(0, 1), (1, 1)]), "r1").is_empty());
        assert!(run(&mut cell, false, Segment::new(2, 1), &clock(&[(0, 1), (1, 1), (2, 1)]), "r2").is_empty());
        assert_eq!(cell.segments(), 2, "r1 precedes r2, so only r2 stays in R");
    }

    /// Each way a new read can prune the two inline reads keeps exactly the reads parallel to
    /// it, packed: a later write finds those, and only those.
    #[test]
    fn a_read_prunes_either_inline_read_or_both() {
        // (first kept, second pruned), (first pruned, second kept), (both pruned)
        let cases = [
            (vec![(2, 1), (3, 1)], vec!["r1", "r3"]),
            (vec![(1, 1), (3, 1)], vec!["r2", "r3"]),
            (vec![(1, 1), (2, 1), (3, 1)], vec!["r3"]),
        ];
        for (after, left) in &cases {
            let mut cell = Alg4::default();
            run(&mut cell, false, Segment::new(1, 1), &clock(&[(1, 1)]), "r1");
            run(&mut cell, false, Segment::new(2, 1), &clock(&[(2, 1)]), "r2");
            assert!(run(&mut cell, false, Segment::new(3, 1), &clock(after), "r3").is_empty());
            assert_eq!((cell.segments(), cell.heap_bytes()), (left.len(), 0), "pruned after {after:?}");
            let mut found: Vec<_> = run(&mut cell, true, Segment::new(4, 1), &clock(&[(4, 1)]), "w4")
                .into_iter()
                .map(|(kind, name)| {
                    assert_eq!(kind, RaceKind::Anti);
                    name
                })
                .collect();
            found.sort();
            assert_eq!(&found, left, "after {after:?}");
        }
    }

    #[test]
    fn two_parallel_reads_stay_in_the_slot_and_a_third_spills_with_all_three_kept() {
        let mut cell = Alg4::default();
        run(&mut cell, true, Segment::new(0, 1), &clock(&[(0, 1)]), "w0");
        for (thread, name) in [(1, "r1"), (2, "r2")] {
            assert!(run(&mut cell, false, Segment::new(thread, 1), &clock(&[(0, 1), (thread, 1)]), name).is_empty());
        }
        assert_eq!((cell.segments(), cell.heap_bytes()), (3, 0));
        // A read ordered after r1 (not r2) replaces r1 and keeps r2: still inline.
        assert!(run(&mut cell, false, Segment::new(3, 1), &clock(&[(0, 1), (1, 1), (3, 1)]), "r3").is_empty());
        assert_eq!((cell.segments(), cell.heap_bytes()), (3, 0));
        assert!(run(&mut cell, false, Segment::new(4, 1), &clock(&[(0, 1), (4, 1)]), "r4").is_empty());
        assert_eq!(cell.segments(), 4);
        assert!(cell.heap_bytes() > 0, "the third parallel read spills");
        let mut found = run(&mut cell, true, Segment::new(5, 1), &clock(&[(0, 1), (5, 1)]), "w5");
        found.sort_by_key(|&(_, name)| name);
        assert_eq!(found, vec![(RaceKind::Anti, "r2"), (RaceKind::Anti, "r3"), (RaceKind::Anti, "r4")]);
        assert_eq!(cell.segments(), 1, "the write replaces every read");
    }

    #[test]
    fn flow_and_output() {
        let mut cell = Alg4::default();
        run(&mut cell, true, Segment::new(0, 1), &clock(&[(0, 1)]), "w0");
        assert_eq!(run(&mut cell, false, Segment::new(1, 1), &clock(&[(1, 1)]), "r1"), vec![(RaceKind::Flow, "w0")]);
        let found = run(&mut cell, true, Segment::new(2, 1), &clock(&[(2, 1)]), "w2");
        assert_eq!(found, vec![(RaceKind::Output, "w0"), (RaceKind::Anti, "r1")]);
    }
}
