//! A segment as a key of the cells' caches of seen accesses (`shadow::seen`): what each thread
//! publishes as its current segment (`thread_state`'s `SEEN_KEY`) and the fast path compares.
//! It lives here, not in `shadow/seen.rs`, because `thread_state` publishes it at each segment
//! change and `shadow` imports `runtime` (`racer-core/tests/layers.rs` has no edge back).

use crate::model::clock::Segment;

/// Where a key's slot starts (`Segment`'s layout: the epoch below, the slot above).
pub const KEY_SLOT_SHIFT: u32 = crate::model::clock::EPOCH_BITS;
/// Slots with a key: the slot bits below the top bit (a cache entry's write bit) never all ones (see `NO_KEY`).
pub const KEY_SLOTS: u32 = (1 << (63 - KEY_SLOT_SHIFT)) - 1;

/// The key of a segment that has none (a slot of 32 767 or more): no entry ever holds it (an
/// entry's slot bits are never all ones, and an empty entry is 0), so the fast path needs no
/// test for it.
pub const NO_KEY: u64 = u64::MAX;

/// A segment's key: the segment's 64 bits (never 0: epochs start at 1), or `NO_KEY` for a
/// slot past `KEY_SLOTS`, whose accesses always take the slow path.
pub fn key(seg: Segment) -> u64 {
    if seg.slot() < KEY_SLOTS {
        seg.to_bits()
    } else {
        NO_KEY
    }
}
