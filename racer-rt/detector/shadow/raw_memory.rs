//! Checked accesses of memory that is not a `Shared` cell (a `Box<[MaybeUninit<T>]>` ring, an
//! arena, a buffer filled by FFI): a shadow of its own, keyed by 8-byte granule, running the same
//! per-cell policy (`algorithm`) and reporting through the same delivery as `Shared` cells. Kept
//! apart from `cell.rs` so that the `Shared` fast path does not change.
//!
//! Two accesses conflict when they touch a common granule: elements of 8 bytes or more never
//! share one, smaller neighbours can (checked as one location, like a word-granular TSan).

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::LazyLock;

use crate::base::fast_hash::FastBuild;
use crate::base::lock::Mutex;
use crate::model::algorithm::{self, AnyPolicy, Recorded};
use crate::provenance::access::{AccessInfo, Record};
use crate::provenance::stack;
use crate::report::{AccessKind, RaceKind};
use crate::runtime::stats;
use crate::runtime::thread_state::with_current;

/// Bytes per shadow location.
pub const GRANULE: usize = 8;

/// What a raw-memory race names instead of the type in a `Shared<T>` (see `report/race.rs`).
pub const RAW_MEMORY: &str = "raw memory";

const SHARDS: usize = 64;

/// Bytes of shadow memory of each tracked granule, as `racer::stats()` counts them: its map
/// entry (the address and the state); what the state allocates on the heap comes on top.
const ENTRY_BYTES: usize = std::mem::size_of::<(usize, AnyPolicy<AccessInfo>)>();

/// One shard of the raw shadow: granule address -> the policy state of that granule.
///
/// Invariant: a granule's state is in the shard `shard_of` picks for its address, and is only
/// read or changed under that shard's lock.
#[repr(align(64))]
struct Shard(Mutex<HashMap<usize, AnyPolicy<AccessInfo>, FastBuild>>);

static SHADOW: LazyLock<Vec<Shard>> =
    LazyLock::new(|| (0..SHARDS).map(|_| Shard(Mutex::new(HashMap::with_hasher(FastBuild)))).collect());

fn shard_of(granule: usize) -> &'static Mutex<HashMap<usize, AnyPolicy<AccessInfo>, FastBuild>> {
    // Fibonacci hashing: neighbouring granules (the elements two
    // threads fill side by side) land on different shards.
    let hash = (granule as u64 / GRANULE as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    &SHADOW[(hash >> 58) as usize % SHARDS].0
}

/// The granules `[start, start + len)` touches, by address.
fn granules(start: usize, len: usize) -> impl Iterator<Item = usize> {
    let first = start & !(GRANULE - 1);
    let end = start.saturating_add(len);
    (first..end).step_by(GRANULE)
}

/// Checks an access of `len` bytes at `start` by the calling thread, granule by granule, and
/// reports each race found (once per earlier access: a long write racing with one earlier
/// write over many granules is one race).
pub fn access(kind: AccessKind, start: usize, len: usize, site: &'static Location<'static>) {
    if len == 0 || crate::runtime::ignore::ignoring() {
        return;
    }
    // Races are delivered after the thread state is released (reporting may use it).
    let races = with_current(|t| {
        let cur: Record = Recorded {
            segment: t.segment(),
            info: AccessInfo { stack: stack::capture_access(site, t.last_sync_id()), thread: t.thread_ref.clone() },
        };
        let mut found: Vec<(RaceKind, Record, usize)> = Vec::new();
        for granule in granules(start, len) {
            // The address a report names: the first byte of this access in the granule.
            let at = granule.max(start);
            let mut shard = shard_of(granule).lock();
            let (before, state) = match shard.entry(granule) {
                Entry::Occupied(e) => {
                    let state = e.into_mut();
                    (Some(stats::Footprint::of(state.policy(), state.algorithm())), state)
                }
                Entry::Vacant(e) => (None, e.insert(AnyPolicy::new(algorithm::selected()))),
            };
            let mut race = |k: RaceKind, prev: &Record| {
                if !found
                    .iter()
                    .any(|(fk, fp, _)| *fk == k && fp.segment == prev.segment && fp.info.stack == prev.info.stack)
                {
                    found.push((k, prev.clone(), at));
                }
            };
            match kind {
                AccessKind::Read => state.policy_mut().read(&cur, t.clock(), &mut race),
                AccessKind::Write => state.policy_mut().write(&cur, t.clock(), &mut race),
            }
            let after = stats::Footprint::of(state.policy(), state.algorithm());
            drop(shard);
            // A granule counts as a cell in the storage statistics.
            stats::cell_changed(before, after, ENTRY_BYTES);
        }
        (found, cur, t.scope.clone())
    });
    if let Some((found, cur, scope)) = races {
        for (race_kind, prev, at) in found {
            crate::reporting::deliver::race_found(scope.as_ref(), race_kind, &prev, &cur, RAW_MEMORY, at);
        }
    }
}

/// Drops the shadow of every granule `[start, start + len)` touches: the memory is being freed
/// (or reused for something unrelated), and its next access starts a new history.
pub fn forget(start: usize, len: usize) {
    for granule in granules(start, len) {
        let removed = shard_of(granule).lock().remove(&granule);
        if let Some(state) = removed {
            stats::cell_forgotten(&state, ENTRY_BYTES);
        }
    }
}

/// Granules with a shadow state now (for tests of `forget`).
pub fn tracked_granules() -> usize {
    SHADOW.iter().map(|s| s.0.lock().len()).sum()
}

#[cfg(test)]
mod tests {
    /// What `racer::stats()` counts per granule, as the README says.
    #[test]
    fn a_granule_entry_is_64_bytes() {
        assert_eq!(super::ENTRY_BYTES, 64);
    }
}
