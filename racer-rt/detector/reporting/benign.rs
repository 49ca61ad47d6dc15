//! Addresses whose races are known and accepted (TSan's `AnnotateBenignRaceSized`): consulted
//! only when a race has been found, so no access pays for them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::base::lock::RwLock;

/// Start -> end (exclusive) of each range marked benign.
///
/// Invariant: `ANY` is true once a range was ever added (it is never cleared, so a stale
/// `true` only costs the lookup).
static RANGES: RwLock<BTreeMap<usize, usize>> = RwLock::new(BTreeMap::new());
static ANY: AtomicBool = AtomicBool::new(false);

/// Marks `[start, start + len)` benign (at least one byte, so a cell's start is covered).
pub fn add(start: usize, len: usize) {
    let end = start.saturating_add(len.max(1));
    let mut ranges = RANGES.write();
    let e = ranges.entry(start).or_insert(end);
    *e = (*e).max(end);
    ANY.store(true, Ordering::Release);
}

/// Forgets the marks of ranges that start inside `[start, start + len)`.
pub fn remove(start: usize, len: usize) {
    if !ANY.load(Ordering::Acquire) {
        return;
    }
    let end = start.saturating_add(len.max(1));
    RANGES.write().retain(|&s, _| s < start || s >= end);
}

/// Whether a race at `address` is to be dropped.
pub fn covers(address: usize) -> bool {
    if !ANY.load(Ordering::Acquire) {
        return false;
    }
    RANGES.read().range(..=address).any(|(_, &end)| end > address)
}
