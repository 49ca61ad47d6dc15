//! Shadow memory: the detector's state for every `Shared` cell, in a global sharded table keyed
//! by the cell's id, and the access path that runs the per-cell policy on it.
//!
//! Cells are keyed by an id the cell carries (assigned on its first checked access), not by
//! address: a moved cell keeps its state, and a new cell at a reused address starts empty.

use std::panic::Location;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
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

/// Many more shards than cores: threads reading different cells rarely meet on one shard lock.
const SHARDS: usize = 128;

static SHADOW: Lazy<DashMap<u64, CellState, FastBuild>> =
    Lazy::new(|| DashMap::with_capacity_and_hasher_and_shard_amount(0, FastBuild, SHARDS));

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
    /// Compact names of segments that read the cell since its last write (0 = empty), written
    /// under the cell's shard. A re-read by one of them may skip the table: that segment, or a
    /// later read ordered after it, is still in R, so a later parallel write still finds a
    /// race (with a read that it does not cover either), and W was already checked against it.
    readers: [AtomicU32; READERS],
}

const READERS: usize = 4;

/// A segment in 32 bits for `readers`: slot + 1 in the top 8 bits, epoch in the low 24; 0 when
/// it does not fit (such a segment is never mirrored).
#[inline]
fn compact(seg: u64) -> u32 {
    let slot = seg >> 47;
    let epoch = seg & ((1 << 47) - 1);
    if slot < 255 && epoch < (1 << 24) {
        (((slot + 1) << 24) | epoch) as u32
    } else {
        0
    }
}

impl CellMeta {
    pub const fn new() -> CellMeta {
        CellMeta {
            id: AtomicU64::new(0),
            fingerprint: AtomicU64::new(0),
            readers: [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)],
        }
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
        if kind == AccessKind::Read && seg != 0 {
            let c = compact(seg);
            if c != 0 && self.readers.iter().any(|r| r.load(Ordering::Relaxed) == c) {
                return;
            }
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
                let seg_bits = cur.segment.to_bits();
                match kind {
                    AccessKind::Write => self.readers.iter().for_each(|r| r.store(0, Ordering::Relaxed)),
                    // Algorithm 3 keeps only the last read: a re-read changes its state, so it
                    // must not be skipped.
                    AccessKind::Read if cell.algorithm() != 3 => {
                        let c = compact(seg_bits);
                        if c != 0 && !self.readers.iter().any(|r| r.load(Ordering::Relaxed) == c) {
                            let free = self.readers.iter().position(|r| r.load(Ordering::Relaxed) == 0);
                            self.readers[free.unwrap_or(c as usize % READERS)].store(c, Ordering::Relaxed);
                        }
                    }
                    AccessKind::Read => {}
                }
                let bits = seg_bits | if kind == AccessKind::Write { WRITE_BIT } else { 0 };
                self.fingerprint.store(bits, Ordering::Relaxed);
            }
            for (race_kind, prev) in found {
                crate::sink::race_found(t, race_kind, &prev, &cur, type_name, address);
            }
        });
    }

    /// The cell's last access (its drop, or `into_inner`): a write checked against the cell's
    /// state, which is then freed. Nothing keeps this access, so its stack is captured only
    /// when it races.
    pub fn last_write(&self, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let id = self.id.load(Ordering::Acquire);
        if id == 0 {
            return;
        }
        let seg = current_segment_bits();
        let Some((_, mut cell)) = SHADOW.remove(&id) else { return };
        stats::cell_forgotten(&cell);
        if seg != 0 && self.fingerprint.load(Ordering::Relaxed) == seg | WRITE_BIT {
            return; // this segment wrote it last: nothing new to find
        }
        with_current(|t| {
            let mut cur = Recorded {
                segment: t.segment(),
                info: AccessInfo { site, stack: StackId::UNCAPTURED, after_sync: t.last_sync_id(), thread: t.info.clone() },
            };
            let mut found: SmallVec<[(RaceKind, Record); 2]> = SmallVec::new();
            cell.write(&cur, &t.clock, &mut |k, prev| found.push((k, prev.clone())));
            if found.is_empty() {
                return;
            }
            cur.info.stack = stack::capture();
            for (race_kind, prev) in found {
                crate::sink::race_found(t, race_kind, &prev, &cur, type_name, address);
            }
        });
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
