//! Shadow memory: the detector's state for every `Shared` cell, and the access path that runs
//! the per-cell policy on it.
//!
//! Each cell carries its seen-access cache and a pointer to its own state in a slot of
//! `state_slots` (no global table to look it up in); the state is guarded by one of a global
//! array of shard locks, chosen by the cell's address. A cell can only move while nothing
//! borrows it, so every access that can run concurrently with another picks the same shard. A
//! new cell starts with no state, and a moved cell takes its state along.

use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::base::lock::Mutex;

use crate::model::algorithm::Recorded;
use crate::provenance::access::{AccessInfo, Record};
use crate::report::{AccessKind, RaceKind};
use crate::shadow::seen::{self, SeenAccesses};
use crate::provenance::stack;
use crate::shadow::state_slots::{self, StateBits};
use crate::runtime::check_scope::CheckScope;
use crate::runtime::stats;
use crate::runtime::thread_state::{current_seen_key, with_current};

thread_local! {
    /// Accesses of this thread that missed the cells' caches of seen accesses.
    static SLOW_ACCESSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many of the calling thread's `Shared` accesses so far missed their cell's cache of seen
/// accesses and went through the cell's state: what tests of the fast path count.
pub fn slow_accesses_on_this_thread() -> u64 {
    SLOW_ACCESSES.try_with(std::cell::Cell::get).unwrap_or(0)
}

/// Many more shards than cores: threads working on different cells rarely meet on one lock.
const SHARDS: usize = 128;

/// One shard's lock, alone on its cache line: two cores taking two shards never contend.
#[repr(align(64))]
struct ShardLock(Mutex<()>);

static SHARD_LOCKS: [ShardLock; SHARDS] = [const { ShardLock(Mutex::new(())) }; SHARDS];

fn shard_lock(address: usize) -> &'static Mutex<()> {
    // Fibonacci hashing of the address: neighbouring cells land on different shards.
    let hash = (address as u64 >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    &SHARD_LOCKS[(hash >> 57) as usize % SHARDS].0
}

/// Bytes of shadow memory of each cell: its part of the cell and its state's slot; what the
/// state allocates on the heap comes on top.
const ENTRY_BYTES: usize = std::mem::size_of::<CellMeta>() + state_slots::SLOT_BYTES;

/// The detector's part of a `Shared` cell: 40 bytes, plus its state's 40-byte slot in
/// `state_slots` once the cell is first checked. That is all of its shadow memory while it has
/// at most one read since its last write (more parallel reads spill to the heap).
///
/// Invariant: `state` is 0 until the cell's first checked access, then owns the cell's state
/// (see `StateBits`) until the cell's last write frees it. It is set, and the state reached,
/// only under the cell's shard lock (or through `&mut self`); `seen` is updated under that
/// lock, after the access went through the state.
#[derive(Debug)]
pub struct CellMeta {
    seen: SeenAccesses,
    state: AtomicUsize,
}

impl CellMeta {
    pub const fn new() -> CellMeta {
        CellMeta { seen: SeenAccesses::new(), state: AtomicUsize::new(0) }
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
        let _ = SLOW_ACCESSES.try_with(|n| n.set(n.get() + 1));
        let races = with_current(|t| {
            // Never dropped: its handle is uncounted (the state keeps counted clones of it).
            let cur = std::mem::ManuallyDrop::new(Recorded {
                segment: t.segment(),
                info: AccessInfo {
                    stack: stack::capture_access(site, t.last_sync_id()),
                    // SAFETY: inside a `ManuallyDrop` that lives only in this closure, while
                    // `t.thread_ref` lives on.
                    thread: unsafe { t.thread_ref.uncounted() },
                },
            });
            let cur = &*cur;
            let mut found: Vec<(RaceKind, Record)> = Vec::new();
            let (before, after) = {
                let _shard = shard_lock(self as *const CellMeta as usize).lock();
                let mut bits: StateBits = self.state.load(Ordering::Relaxed);
                let is_new = bits == 0;
                if is_new {
                    bits = state_slots::new_state(crate::model::algorithm::selected());
                    self.state.store(bits, Ordering::Relaxed);
                }
                let algorithm = state_slots::algorithm(bits);
                // SAFETY: `bits` is the cell's live state, and we hold the cell's shard lock.
                let cell = unsafe { state_slots::state_mut(bits) };
                let before = (!is_new).then(|| stats::Footprint::of(cell, algorithm));
                let mut race = |k: RaceKind, prev: &Record| found.push((k, prev.clone()));
                match kind {
                    AccessKind::Read => cell.read(&cur, &t.clock, &mut race),
                    AccessKind::Write => cell.write(&cur, &t.clock, &mut race),
                }
                self.seen.remember(kind, seen::key(cur.segment), algorithm);
                (before, stats::Footprint::of(cell, algorithm))
            };
            stats::cell_changed(before, after, ENTRY_BYTES);
            if found.is_empty() {
                return None;
            }
            // A counted copy of the access, to report it once the thread state is released.
            Some(Races { found, cur: cur.clone(), scope: t.scope.clone() })
        });
        if let Some(Some(races)) = races {
            races.deliver(type_name, address);
        }
    }

    /// The cell's last access (its drop, or `into_inner`): a write checked against the cell's
    /// state, which is then freed. Nothing keeps this access, so its stack is captured only
    /// when it races.
    pub fn last_write(&mut self, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let bits = std::mem::take(self.state.get_mut());
        if bits == 0 {
            return;
        }
        // SAFETY: the cell's live state, reached through `&mut self`, and never again.
        let cell = unsafe { state_slots::take_state(bits) };
        stats::cell_forgotten(&cell, ENTRY_BYTES);
        let key = current_seen_key();
        if self.seen.contains(AccessKind::Write, key) {
            return; // this segment wrote it last: nothing new to find
        }
        let races = with_current(|t| {
            let mut found: Vec<(RaceKind, Record)> = Vec::new();
            cell.policy().check_write(&t.clock, &mut |k, prev| found.push((k, prev.clone())));
            if found.is_empty() {
                return None;
            }
            let info = AccessInfo { stack: stack::capture_access(site, t.last_sync_id()), thread: t.thread_ref.clone() };
            Some(Races { found, cur: Recorded { segment: t.segment(), info }, scope: t.scope.clone() })
        });
        if let Some(Some(races)) = races {
            races.deliver(type_name, address);
        }
    }
}

/// The races one access found, collected while the thread state is borrowed and delivered
/// after it was released: reporting may then use the thread state itself.
struct Races {
    found: Vec<(RaceKind, Record)>,
    cur: Record,
    scope: Option<Arc<CheckScope>>,
}

impl Races {
    #[cold]
    fn deliver(self, type_name: &'static str, address: usize) {
        for (race_kind, prev) in &self.found {
            crate::reporting::deliver::race_found(self.scope.as_ref(), *race_kind, prev, &self.cur, type_name, address);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::algorithm::Alg4;

    /// A single-reader cell's shadow state is 80 bytes: 40 in the cell (four 64-bit keys and
    /// the state's address), a 40-byte slot of 16-byte records. Offering Algorithms 3 and 5
    /// must not make the default's slot bigger.
    #[test]
    fn a_single_reader_cell_has_80_bytes_of_shadow_state() {
        assert_eq!(std::mem::size_of::<Record>(), 16);
        assert_eq!(std::mem::size_of::<CellMeta>(), 40);
        assert_eq!(state_slots::SLOT_BYTES, std::mem::size_of::<Alg4<AccessInfo>>());
        assert_eq!(std::mem::size_of::<CellMeta>() + state_slots::SLOT_BYTES, 80);
        assert_eq!(std::mem::size_of::<crate::Shared<u64>>(), 48);
    }
}
