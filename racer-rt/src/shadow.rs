//! Shadow memory: the detector's state for every `Shared` cell, and the access path that runs
//! the per-cell policy on it.
//!
//! Each cell carries its own state inline (no global table to look it up in, no entry to
//! allocate or remove); the state is guarded by one of a global array of shard locks, chosen
//! by the cell's address. A cell can only move while nothing borrows it, so every access that
//! can run concurrently with another picks the same shard. A new cell at a reused address
//! starts with empty state, and a moved cell takes its state along.

use std::cell::UnsafeCell;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::Mutex;
use smallvec::SmallVec;

use crate::algorithm::{AnyPolicy, Recorded};
use crate::clock::Segment;
use crate::report::{AccessKind, RaceKind};
use crate::stack::{self, StackId};
use crate::stats;
use crate::thread_ref::ThreadRef;
use crate::thread_state::{current_seen_key, with_current};

/// What the shadow memory keeps of one access besides its segment: its stack (tagged with the
/// access site and the last sync event, see `stack`) and its thread. 8 bytes, so a record is 16.
#[derive(Debug, Clone)]
pub struct AccessInfo {
    pub stack: StackId,
    pub thread: ThreadRef,
}

pub type Record = Recorded<AccessInfo>;

impl AccessInfo {
    /// The `#[track_caller]` site of the access.
    pub fn site(&self) -> &'static Location<'static> {
        stack::site(self.stack).expect("a recorded access's stack is tagged with its site")
    }

    /// The thread's last synchronisation before the access.
    pub fn after_sync(&self) -> Option<crate::sync_clock::SyncEventId> {
        stack::after_sync(self.stack)
    }
}

/// The per-cell state: `None` until the cell's first checked access, then the policy selected
/// at that time, for the rest of the cell's life.
pub type CellState = Option<AnyPolicy<AccessInfo>>;

/// Many more shards than cores: threads working on different cells rarely meet on one lock.
const SHARDS: usize = 128;

/// One shard's lock, alone on its cache line: two cores taking two shards never contend.
#[repr(align(64))]
struct ShardLock(Mutex<()>);

static SHARD_LOCKS: [ShardLock; SHARDS] = [const { ShardLock(parking_lot::const_mutex(())) }; SHARDS];

fn shard_lock(address: usize) -> &'static Mutex<()> {
    // Fibonacci hashing of the address: neighbouring cells land on different shards.
    let hash = (address as u64 >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    &SHARD_LOCKS[(hash >> 57) as usize % SHARDS].0
}

/// A seen-key with this bit set was written, not read.
const WRITE_BIT: u32 = 1 << 31;
const KEY_EPOCH_BITS: u32 = 24;
/// Slots with a key: 7 bits hold `slot + 1`.
const KEY_SLOTS: u64 = 127;

/// A segment's key in a cell's `seen` cache: `slot + 1` in bits 24..31, the epoch in bits 0..24;
/// 0 (no key) for a segment that does not fit, whose accesses always take the slow path.
pub fn seen_key(seg: Segment) -> u32 {
    if (seg.slot() as u64) < KEY_SLOTS && seg.epoch() < (1 << KEY_EPOCH_BITS) {
        ((seg.slot() + 1) << KEY_EPOCH_BITS) | seg.epoch() as u32
    } else {
        0
    }
}

const SEEN: usize = 4;

/// The entry of `seen` a key is looked up in first: one compare on the fast path. A key that
/// had to go elsewhere is still found, by the slow path's first step.
#[inline]
fn home(key: u32) -> usize {
    (key >> KEY_EPOCH_BITS) as usize % SEEN
}

/// The slot part of a key (`slot + 1`; 0 for an empty entry).
fn key_slot(key: u32) -> u32 {
    (key & !WRITE_BIT) >> KEY_EPOCH_BITS
}

/// The detector's part of a `Shared` cell: 64 bytes, all of its shadow memory while it has at
/// most one read since its last write (more parallel reads spill to the heap).
///
/// Invariant: `state` is only touched under the cell's shard lock (or through `&mut self`).
/// `seen` is written under that lock too, and caches accesses that would change nothing and
/// find nothing new: `key | WRITE_BIT` in `seen` when segment `key` made the last write, and a
/// plain `key` in `seen` when segment `key` read the cell since the last write (under
/// Algorithm 4 or 5). Such an access may skip the lock: the write is still `W`, and the read, or a
/// later read ordered after it, is still in `R`, so any later conflicting access that is
/// parallel to the skipped one is parallel to what is stored and still finds a race.
#[derive(Debug)]
pub struct CellMeta {
    seen: [AtomicU32; SEEN],
    state: UnsafeCell<CellState>,
}

// SAFETY: `state` is only reached under the cell's shard lock (see the invariant).
unsafe impl Sync for CellMeta {}

impl CellMeta {
    pub const fn new() -> CellMeta {
        CellMeta { seen: [const { AtomicU32::new(0) }; SEEN], state: UnsafeCell::new(None) }
    }

    /// Checks an access of the cell by the calling thread.
    #[inline]
    pub fn access(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let key = current_seen_key();
        if key != 0 && self.seen[home(key)].load(Ordering::Relaxed) == Self::entry(kind, key) {
            return;
        }
        self.access_slow(kind, site, type_name, address);
    }

    fn entry(kind: AccessKind, key: u32) -> u32 {
        match kind {
            AccessKind::Read => key,
            AccessKind::Write => key | WRITE_BIT,
        }
    }

    /// Whether `seen` holds this access's entry anywhere.
    fn seen(&self, kind: AccessKind, key: u32) -> bool {
        key != 0 && self.seen.iter().any(|s| s.load(Ordering::Relaxed) == Self::entry(kind, key))
    }

    #[cold]
    #[inline(never)]
    fn access_slow(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        if self.seen(kind, current_seen_key()) {
            return;
        }
        with_current(|t| {
            let cur = Recorded {
                segment: t.segment(),
                info: AccessInfo { stack: stack::capture_access(site, t.last_sync_id()), thread: t.thread_ref.clone() },
            };
            let mut found: SmallVec<[(RaceKind, Record); 2]> = SmallVec::new();
            {
                let _shard = shard_lock(self as *const CellMeta as usize).lock();
                // SAFETY: under the cell's shard lock.
                let state = unsafe { &mut *self.state.get() };
                let cell = state.get_or_insert_with(|| {
                    let fresh = AnyPolicy::selected();
                    stats::cell_tracked(&fresh);
                    fresh
                });
                let before = stats::Footprint::of(cell);
                let mut race = |k: RaceKind, prev: &Record| found.push((k, prev.clone()));
                match kind {
                    AccessKind::Read => cell.read(&cur, &t.clock, &mut race),
                    AccessKind::Write => cell.write(&cur, &t.clock, &mut race),
                }
                stats::cell_changed(cell, before);
                self.remember(kind, seen_key(cur.segment), cell.algorithm());
            }
            for (race_kind, prev) in found {
                crate::sink::race_found(t, race_kind, &prev, &cur, type_name, address);
            }
        });
    }

    /// Updates the `seen` cache after an access by segment `key` went through the state.
    fn remember(&self, kind: AccessKind, key: u32, algorithm: u8) {
        match kind {
            AccessKind::Write => {
                self.seen.iter().for_each(|s| s.store(0, Ordering::Relaxed));
                if key != 0 {
                    self.seen[home(key)].store(key | WRITE_BIT, Ordering::Relaxed);
                }
            }
            // Algorithm 3 keeps only the last read: a re-read changes its state, so it must
            // not be skipped.
            AccessKind::Read if key != 0 && algorithm != 3 => {
                if self.seen(kind, key) {
                    return;
                }
                // The key's home if that holds nothing worth keeping: nothing, the last write
                // (reads since it outnumber it), or an older segment of the same thread (whose
                // read this one replaced in R). Else a free entry, else the write's, else home.
                let at = |i: usize| self.seen[i].load(Ordering::Relaxed);
                let home = home(key);
                let stale = |e: u32| e == 0 || e & WRITE_BIT != 0 || key_slot(e) == key_slot(key);
                let entry = if stale(at(home)) {
                    home
                } else {
                    let free = (0..SEEN).find(|&i| at(i) == 0);
                    let write = || (0..SEEN).find(|&i| at(i) & WRITE_BIT != 0);
                    free.or_else(write).unwrap_or(home)
                };
                self.seen[entry].store(key, Ordering::Relaxed);
            }
            AccessKind::Read => {}
        }
    }

    /// The cell's last access (its drop, or `into_inner`): a write checked against the cell's
    /// state, which is then freed. Nothing keeps this access, so its stack is captured only
    /// when it races.
    pub fn last_write(&mut self, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let Some(mut cell) = self.state.get_mut().take() else { return };
        stats::cell_forgotten(&cell);
        let key = current_seen_key();
        if self.seen(AccessKind::Write, key) {
            return; // this segment wrote it last: nothing new to find
        }
        with_current(|t| {
            let mut cur = Recorded {
                segment: t.segment(),
                info: AccessInfo { stack: StackId::UNCAPTURED, thread: t.thread_ref.clone() },
            };
            let mut found: SmallVec<[(RaceKind, Record); 2]> = SmallVec::new();
            cell.write(&cur, &t.clock, &mut |k, prev| found.push((k, prev.clone())));
            if found.is_empty() {
                return;
            }
            cur.info.stack = stack::capture_access(site, t.last_sync_id());
            for (race_kind, prev) in found {
                crate::sink::race_found(t, race_kind, &prev, &cur, type_name, address);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::Alg4;

    /// Offering Algorithms 3 and 5 must not make the default's cells bigger.
    #[test]
    fn a_cell_state_is_no_larger_than_algorithm_4s_plus_its_tag() {
        assert_eq!(std::mem::size_of::<Record>(), 16);
        assert!(std::mem::size_of::<CellState>() <= std::mem::size_of::<Alg4<AccessInfo>>() + 8);
        assert_eq!(std::mem::size_of::<CellMeta>(), 64);
    }

    /// Four threads reading a cell written before them all keep their keys: the write's entry
    /// gives way to the fourth reader instead of the readers evicting each other forever.
    #[test]
    fn four_readers_after_a_write_all_stay_seen() {
        let meta = CellMeta::new();
        let key = |slot| seen_key(Segment::new(slot, 1));
        meta.remember(AccessKind::Write, key(0), 4);
        for round in 0..3 {
            for slot in 1..=4 {
                meta.remember(AccessKind::Read, key(slot), 4);
            }
            let seen: Vec<u32> = meta.seen.iter().map(|s| s.load(Ordering::Relaxed)).collect();
            assert!((1..=4).all(|slot| seen.contains(&key(slot))), "round {round}: {seen:x?}");
        }
        assert!((1..=4).all(|slot| meta.seen[home(key(slot))].load(Ordering::Relaxed) == key(slot)), "each at home");
        meta.remember(AccessKind::Write, key(2), 4);
        let seen: Vec<u32> = meta.seen.iter().map(|s| s.load(Ordering::Relaxed)).collect();
        assert_eq!(seen.iter().filter(|&&e| e != 0).count(), 1, "a write forgets the reads");
        assert!(meta.seen(AccessKind::Write, key(2)) && !meta.seen(AccessKind::Read, key(2)));
    }

    #[test]
    fn seen_keys_name_a_segment_or_nothing() {
        assert_eq!(seen_key(Segment::new(0, 1)), (1 << 24) | 1);
        assert_ne!(seen_key(Segment::new(1, 1)), seen_key(Segment::new(0, 1)));
        assert_eq!(seen_key(Segment::new(127, 1)), 0, "slot too high");
        assert_eq!(seen_key(Segment::new(3, 1 << 24)), 0, "epoch too high");
        assert_eq!(seen_key(Segment::new(126, (1 << 24) - 1)) & WRITE_BIT, 0);
    }
}
