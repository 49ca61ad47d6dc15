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

use parking_lot::Mutex;
use smallvec::SmallVec;

use crate::algorithm::{AnyPolicy, Recorded};
use crate::report::{AccessKind, RaceKind};
use crate::seen::{self, SeenAccesses};
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

/// The detector's part of a `Shared` cell: 64 bytes, all of its shadow memory while it has at
/// most one read since its last write (more parallel reads spill to the heap).
///
/// Invariant: `state` is only touched under the cell's shard lock (or through `&mut self`);
/// `seen` is updated under that lock, after the access went through `state`.
#[derive(Debug)]
pub struct CellMeta {
    seen: SeenAccesses,
    state: UnsafeCell<CellState>,
}

// SAFETY: `state` is only reached under the cell's shard lock (see the invariant).
unsafe impl Sync for CellMeta {}

impl CellMeta {
    pub const fn new() -> CellMeta {
        CellMeta { seen: SeenAccesses::new(), state: UnsafeCell::new(None) }
    }

    /// Checks an access of the cell by the calling thread.
    #[inline]
    pub fn access(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        if !self.seen.contains(kind, current_seen_key()) {
            self.access_slow(kind, site, type_name, address);
        }
    }

    #[cold]
    #[inline(never)]
    fn access_slow(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        with_current(|t| {
            let cur = Recorded {
                segment: t.segment(),
                info: AccessInfo { stack: stack::capture_access(site, t.last_sync_id()), thread: t.thread_ref.clone() },
            };
            let mut found: SmallVec<[(RaceKind, Record); 2]> = SmallVec::new();
            let (before, after) = {
                let _shard = shard_lock(self as *const CellMeta as usize).lock();
                // SAFETY: under the cell's shard lock.
                let state = unsafe { &mut *self.state.get() };
                let before = state.as_ref().map(stats::Footprint::of);
                let cell = state.get_or_insert_with(AnyPolicy::selected);
                let mut race = |k: RaceKind, prev: &Record| found.push((k, prev.clone()));
                match kind {
                    AccessKind::Read => cell.read(&cur, &t.clock, &mut race),
                    AccessKind::Write => cell.write(&cur, &t.clock, &mut race),
                }
                self.seen.remember(kind, seen::key(cur.segment), cell.algorithm());
                (before, stats::Footprint::of(cell))
            };
            stats::cell_changed(before, after);
            for (race_kind, prev) in found {
                crate::sink::race_found(t, race_kind, &prev, &cur, type_name, address);
            }
        });
    }

    /// The cell's last access (its drop, or `into_inner`): a write checked against the cell's
    /// state, which is then freed. Nothing keeps this access, so its stack is captured only
    /// when it races.
    pub fn last_write(&mut self, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let Some(cell) = self.state.get_mut().take() else { return };
        stats::cell_forgotten(&cell);
        let key = current_seen_key();
        if self.seen.contains(AccessKind::Write, key) {
            return; // this segment wrote it last: nothing new to find
        }
        with_current(|t| {
            let mut found: SmallVec<[(RaceKind, Record); 2]> = SmallVec::new();
            cell.check_write(&t.clock, &mut |k, prev| found.push((k, prev.clone())));
            if found.is_empty() {
                return;
            }
            let info = AccessInfo { stack: stack::capture_access(site, t.last_sync_id()), thread: t.thread_ref.clone() };
            let cur = Recorded { segment: t.segment(), info };
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
}
