//! What an atomic ordering means to the detector, shared by atomics and fences.

use std::sync::atomic::Ordering;

pub(crate) fn acquires(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

pub(crate) fn releases(order: Ordering) -> bool {
    matches!(order, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
}
