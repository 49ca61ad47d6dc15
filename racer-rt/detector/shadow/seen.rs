//! The per-cell cache of accesses that need not be checked again: the fast path of every
//! `Shared` access.
//!
//! An access by a segment that made the cell's last write, or that read the cell since that
//! write, would find nothing new, and what it would change in the cell's state no later access
//! needs (the write is still W; the read, or a later read ordered after it, is still in R, so a
//! later conflicting access parallel to the skipped one is parallel to what is stored, and
//! still finds a race). A read by the segment that wrote last is covered by that write: every
//! access that would race with the read races with the write, which is W. The
//! cache remembers up to four such segments as 64-bit keys, so the common re-access costs one
//! thread-local read and four compares, and never touches the cell's lock.
//!
//! A key is the segment itself (`Segment`'s 64 bits: slot and epoch), so every segment of every
//! thread has one: the hit rate does not depend on how many threads the process has had or on
//! how many times a thread synchronised.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::report::AccessKind;
use crate::runtime::seen_key::KEY_SLOT_SHIFT;
pub use crate::runtime::seen_key::{key, NO_KEY};

/// A key with this bit set names a write, not a read.
const WRITE_BIT: u64 = 1 << 63;
const ENTRIES: usize = 4;

/// The entry a key is stored in when that entry holds nothing worth keeping: a thread's key
/// then stays in one place from segment to segment. (Lookups check every entry: two threads'
/// homes can be the same.)
#[inline(always)]
fn home(key: u64) -> usize {
    (key >> KEY_SLOT_SHIFT) as usize % ENTRIES
}

/// The slot part of a key.
fn key_slot(key: u64) -> u64 {
    (key & !WRITE_BIT) >> KEY_SLOT_SHIFT
}

/// The cache of one cell.
///
/// Invariant: an entry holds `key | WRITE_BIT` only if segment `key` made the cell's last
/// write, and a plain `key` only if segment `key` read the cell since its last write, under a
/// policy that keeps such a read in R (Algorithms 4 and 5).
///
/// The rule of the fast path: a segment's accesses after its first of each kind are all hits,
/// in any order (the write's entry covers its reads, and a read never displaces the entry of
/// its own segment's write), until another segment writes the cell or four other segments read
/// it. Entries are written only by
/// [`remember`](Self::remember), under the cell's lock, right after the access went through the
/// cell's state; they are read anywhere.
#[derive(Debug)]
pub struct SeenAccesses([AtomicU64; ENTRIES]);

impl SeenAccesses {
    pub const fn new() -> SeenAccesses {
        SeenAccesses([const { AtomicU64::new(0) }; ENTRIES])
    }

    fn at(&self, i: usize) -> u64 {
        self.0[i].load(Ordering::Relaxed)
    }

    /// Whether an entry holds this access (for a read, a read or the write of its segment):
    /// the fast path.
    #[inline]
    pub fn contains(&self, kind: AccessKind, key: u64) -> bool {
        // A read ignores the write bit of the entries; `NO_KEY`, with its write bit set, never
        // equals an entry so masked.
        let (e, mask) = match kind {
            AccessKind::Read => (key, !WRITE_BIT),
            AccessKind::Write => (key | WRITE_BIT, u64::MAX),
        };
        // The key's home entry first: where `remember` puts it unless another thread's key is
        // there.
        if self.0[home(key)].load(Ordering::Relaxed) & mask == e {
            return true;
        }
        // Written out, not `iter().any(..)`: this is inlined into the user's crate, whose test
        // builds do not optimise, and there an iterator and its closure are calls each.
        let [a, b, c, d] = &self.0;
        a.load(Ordering::Relaxed) & mask == e
            || b.load(Ordering::Relaxed) & mask == e
            || c.load(Ordering::Relaxed) & mask == e
            || d.load(Ordering::Relaxed) & mask == e
    }

    /// Records an access by segment `key` that just went through the cell's state under
    /// `algorithm`. Under the cell's lock only.
    pub fn remember(&self, kind: AccessKind, key: u64, algorithm: u8) {
        if kind == AccessKind::Read && self.contains(kind, key) {
            return;
        }
        self.remember_miss(kind, key, algorithm);
    }

    /// `remember` of an access that missed this cache (`contains` was false for it): a cell's
    /// slow path, which only a miss takes. Only the accessing thread stores its own key, and
    /// its segment there is the one the miss was looked up for or a new one (a due segment
    /// starts in the slow path), so no entry holds it and the read needs no second look.
    pub fn remember_miss(&self, kind: AccessKind, key: u64, algorithm: u8) {
        match kind {
            AccessKind::Write => {
                self.0.iter().for_each(|e| e.store(0, Ordering::Relaxed));
                if key != NO_KEY {
                    self.0[home(key)].store(key | WRITE_BIT, Ordering::Relaxed);
                }
            }
            // Algorithm 3 keeps only the last read: a re-read changes its state, so it must
            // not be skipped.
            AccessKind::Read if key != NO_KEY && algorithm != 3 => {
                // The home entry if it holds nothing worth keeping: nothing, the last write
                // (the reads since it outnumber it), or an older segment of the same thread
                // (whose read this one replaced in R). Else a free entry, else the write's,
                // else home.
                let home = home(key);
                let stale = |e: u64| e == 0 || e & WRITE_BIT != 0 || key_slot(e) == key_slot(key);
                let at = if stale(self.at(home)) {
                    home
                } else {
                    let free = (0..ENTRIES).find(|&i| self.at(i) == 0);
                    let write = || (0..ENTRIES).find(|&i| self.at(i) & WRITE_BIT != 0);
                    free.or_else(write).unwrap_or(home)
                };
                self.0[at].store(key, Ordering::Relaxed);
            }
            AccessKind::Read => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::clock::Segment;
    use crate::runtime::seen_key::KEY_SLOTS;

    fn entries(seen: &SeenAccesses) -> Vec<u64> {
        (0..ENTRIES).map(|i| seen.at(i)).collect()
    }

    /// Four threads reading a cell written before them all keep their keys: the write's entry
    /// gives way to the fourth reader instead of the readers evicting each other forever.
    #[test]
    fn four_readers_after_a_write_all_stay_seen() {
        let seen = SeenAccesses::new();
        let k = |slot| key(Segment::new(slot, 1));
        seen.remember(AccessKind::Write, k(0), 4);
        assert!(seen.contains(AccessKind::Write, k(0)) && seen.contains(AccessKind::Read, k(0)));
        for round in 0..3 {
            for slot in 1..=4 {
                seen.remember(AccessKind::Read, k(slot), 4);
            }
            assert!(
                (1..=4).all(|slot| seen.contains(AccessKind::Read, k(slot))),
                "round {round}: {:x?}",
                entries(&seen)
            );
            assert!((1..=4).all(|slot| seen.at(home(k(slot))) == k(slot)), "each at home: {:x?}", entries(&seen));
        }
        seen.remember(AccessKind::Write, k(2), 4);
        assert_eq!(entries(&seen).iter().filter(|&&e| e != 0).count(), 1, "a write forgets the reads");
        assert!(seen.contains(AccessKind::Write, k(2)) && !seen.contains(AccessKind::Read, k(1)));
    }

    #[test]
    fn a_new_segment_of_a_thread_takes_the_place_of_its_old_one() {
        let seen = SeenAccesses::new();
        for epoch in 1..10 {
            seen.remember(AccessKind::Read, key(Segment::new(1, epoch)), 4);
            seen.remember(AccessKind::Read, key(Segment::new(2, epoch)), 4);
        }
        assert!(
            seen.contains(AccessKind::Read, key(Segment::new(1, 9)))
                && seen.contains(AccessKind::Read, key(Segment::new(2, 9)))
        );
        assert!(!seen.contains(AccessKind::Read, key(Segment::new(1, 8))));
    }

    #[test]
    fn readers_with_the_same_home_are_both_seen() {
        let seen = SeenAccesses::new();
        let (a, b) = (key(Segment::new(1, 7)), key(Segment::new(5, 3)));
        assert_eq!(home(a), home(b));
        seen.remember(AccessKind::Read, a, 4);
        seen.remember(AccessKind::Read, b, 4);
        assert!(seen.contains(AccessKind::Read, a) && seen.contains(AccessKind::Read, b));
    }

    /// Read-modify-write in one segment, either way round: after the first read and the first
    /// write, every access hits.
    #[test]
    fn a_segment_that_wrote_has_its_reads_covered() {
        let seen = SeenAccesses::new();
        let s = key(Segment::new(1, 5));
        seen.remember(AccessKind::Write, s, 4);
        assert!(seen.contains(AccessKind::Read, s), "the write covers the reads after it");
        let seen = SeenAccesses::new();
        seen.remember(AccessKind::Read, key(Segment::new(2, 1)), 4);
        seen.remember(AccessKind::Read, s, 4);
        seen.remember(AccessKind::Write, s, 4);
        assert!(seen.contains(AccessKind::Read, s) && seen.contains(AccessKind::Write, s));
        seen.remember(AccessKind::Read, s, 4);
        assert!(seen.contains(AccessKind::Write, s), "a read does not displace its segment's write");
        assert!(!seen.contains(AccessKind::Read, key(Segment::new(1, 6))), "a later segment is not covered");
        assert!(!seen.contains(AccessKind::Write, key(Segment::new(2, 1))), "a read does not cover a write");
    }

    #[test]
    fn algorithm_3_reads_are_never_skipped() {
        let seen = SeenAccesses::new();
        seen.remember(AccessKind::Read, key(Segment::new(1, 1)), 3);
        assert!(!seen.contains(AccessKind::Read, key(Segment::new(1, 1))));
    }

    /// Every segment a thread can have has a key of its own, however many threads came before
    /// it and however often it synchronised (the cache's old 32-bit keys ran out at slot 126
    /// and at epoch 2^24); only slots no process reaches do not.
    #[test]
    fn keys_name_a_segment_or_nothing() {
        assert_ne!(key(Segment::new(1, 1)), key(Segment::new(0, 1)));
        assert_ne!(key(Segment::new(0, 1)), 0, "no key is an empty entry");
        assert_ne!(key(Segment::new(200, 1)), NO_KEY, "slot 200 has keys");
        assert_ne!(key(Segment::new(3, 1 << 25)), NO_KEY, "epoch 2^25 has keys");
        assert_ne!(key(Segment::new(3, 1 << 25)), key(Segment::new(3, (1 << 25) + 1)));
        assert_eq!(key(Segment::new(KEY_SLOTS, 1)), NO_KEY, "slot too high");
        let highest = key(Segment::new(KEY_SLOTS - 1, (1 << crate::model::clock::EPOCH_BITS) - 1));
        assert_eq!(highest & WRITE_BIT, 0);
        let seen = SeenAccesses::new();
        seen.remember(AccessKind::Write, highest, 4);
        seen.remember(AccessKind::Read, key(Segment::new(KEY_SLOTS - 2, 7)), 4);
        for kind in [AccessKind::Read, AccessKind::Write] {
            assert!(!seen.contains(kind, NO_KEY), "no key is never seen");
        }
        seen.remember(AccessKind::Write, NO_KEY, 4);
        assert!(!seen.contains(AccessKind::Write, highest), "a write without a key still clears");
    }
}
