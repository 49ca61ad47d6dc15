//! What an atomic ordering means to the detector, shared by atomics and fences.

use std::sync::atomic::Ordering;

use crate::model::clock::{Slot, VectorClock};

pub(crate) fn acquires(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

pub(crate) fn releases(order: Ordering) -> bool {
    matches!(order, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
}

/// `dst = src`, reusing `dst`'s allocation.
pub(crate) fn assign(dst: &mut VectorClock, src: &VectorClock) {
    for slot in 0..dst.width().max(src.width()) {
        dst.set(slot as Slot, src.get(slot as Slot));
    }
}
