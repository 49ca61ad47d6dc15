//! Shadow memory: the detector's state for every `Shared` cell, in a global sharded table keyed
//! by the cell's id, and the access path that runs the per-cell policy on it.
//!
//! Cells are keyed by an id the cell carries (assigned on its first checked access), not by
//! address: a moved cell keeps its state, and a new cell at a reused address starts empty.

use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use dashmap::DashMap;
use once_cell::sync::Lazy;
use smallvec::SmallVec;

use crate::algorithm::{AnyPolicy, Recorded};
use crate::fast_hash::FastBuild;
use crate::report::{AccessKind, RaceKind};
use crate::stack::{self, StackId};
use crate::stats;
use crate::sync_clock::SyncEventId;
use crate::thread_state::{current_segment_bits, with_current, ThreadInfo};

/// What the shadow memory keeps of one access besides its segment.
#[derive(Debug, Clone)]
pub struct AccessInfo {
    pub site: &'static Location<'static>,
    pub stack: StackId,
    pub after_sync: Option<SyncEventId>,
    pub thread: Arc<ThreadInfo>,
}

pub type Record = Recorded<AccessInfo>;

/// The per-cell state stored in the table: the policy selected when the cell was first tracked.
pub type CellState = AnyPolicy<AccessInfo>;

static SHADOW: Lazy<DashMap<u64, CellState, FastBuild>> = Lazy::new(|| DashMap::with_hasher(FastBuild));

static NEXT_CELL_ID: AtomicU64 = AtomicU64::new(1);

/// The top bit of a fingerprint tells a write from a read (segments never use it).
const WRITE_BIT: u64 = 1 << 63;

/// The detector's part of a `Shared` cell.
///
/// Invariant: `fingerprint` is the (segment, kind) of the last access that went through the
/// table, written while holding the cell's shard; when it equals the current access's, that
/// access would change nothing and find nothing new, so it may skip the table.
#[derive(Debug)]
pub struct CellMeta {
    id: AtomicU64,
    fingerprint: AtomicU64,
}

impl CellMeta {
    pub const fn new() -> CellMeta {
        CellMeta { id: AtomicU64::new(0), fingerprint: AtomicU64::new(0) }
    }

    fn id(&self) -> u64 {
        let id = self.id.load(Ordering::Acquire);
        if id != 0 {
            return id;
        }
        let fresh = NEXT_CELL_ID.fetch_add(1, Ordering::Relaxed);
        match self.id.compare_exchange(0, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => fresh,
            Err(won) => won,
        }
    }

    /// Checks an access of the cell by the calling thread.
    #[inline]
    pub fn access(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let seg = current_segment_bits();
        let fingerprint = match kind {
            AccessKind::Read => seg,
            AccessKind::Write => seg | WRITE_BIT,
        };
        if seg != 0 && self.fingerprint.load(Ordering::Relaxed) == fingerprint {
            return;
        }
        self.access_slow(kind, site, type_name, address);
    }

    #[cold]
    #[inline(never)]
    fn access_slow(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        with_current(|t| {
            let cur = Recorded {
                segment: t.segment(),
                info: AccessInfo { site, stack: stack::capture(), after_sync: t.last_sync_id(), thread: t.info.clone() },
            };
            let mut found: SmallVec<[(RaceKind, Record); 2]> = SmallVec::new();
            {
                let mut cell = SHADOW.entry(self.id()).or_insert_with(|| {
                    let fresh = CellState::selected();
                    stats::cell_tracked(&fresh);
                    fresh
                });
                let before = stats::Footprint::of(&cell);
                let mut race = |k: RaceKind, prev: &Record| found.push((k, prev.clone()));
                match kind {
                    AccessKind::Read => cell.read(&cur, &t.clock, &mut race),
                    AccessKind::Write => cell.write(&cur, &t.clock, &mut race),
                }
                stats::cell_changed(&cell, before);
                let bits = cur.segment.to_bits() | if kind == AccessKind::Write { WRITE_BIT } else { 0 };
                self.fingerprint.store(bits, Ordering::Relaxed);
            }
            for (race_kind, prev) in found {
                crate::sink::race_found(t, race_kind, &prev, &cur, type_name, address);
            }
        });
    }

    /// The cell is gone (after its final write was checked): frees its shadow state.
    pub fn forget(&self) {
        let id = self.id.load(Ordering::Acquire);
        if id != 0 {
            if let Some((_, state)) = SHADOW.remove(&id) {
                stats::cell_forgotten(&state);
            }
        }
    }

    /// True once the cell has been accessed through the detector.
    pub fn is_tracked(&self) -> bool {
        self.id.load(Ordering::Acquire) != 0
    }
}

/// Number of cells with shadow state.
pub fn cells_tracked() -> usize {
    SHADOW.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::Alg4;

    /// Offering Algorithms 3 and 5 must not make the default's cells bigger.
    #[test]
    fn a_cell_state_is_no_larger_than_algorithm_4s() {
        assert_eq!(std::mem::size_of::<CellState>(), std::mem::size_of::<Alg4<AccessInfo>>());
    }
}
