//! A one-slot handoff with a loom seam: under `cfg(loom)` its cell and atomic are loom's.

#[cfg(loom)]
use loom::{cell::UnsafeCell, sync::atomic::AtomicBool};
#[cfg(not(loom))]
use std::{cell::UnsafeCell, sync::atomic::AtomicBool};

use std::sync::atomic::Ordering;

/// One value, written once by one thread and read by another once `ready` says so.
pub struct Slot {
    ready: AtomicBool,
    value: UnsafeCell<u64>,
}

// SAFETY: `value` is written before `ready` is set and read only after it is seen set (with the
// orderings the caller chooses: Relaxed is the bug the tests plant).
unsafe impl Sync for Slot {}

impl Slot {
    /// An empty slot.
    pub fn new() -> Slot {
        Slot { ready: AtomicBool::new(false), value: UnsafeCell::new(0) }
    }

    /// Writes `v` and publishes it with `order`.
    pub fn put(&self, v: u64, order: Ordering) {
        #[cfg(loom)]
        self.value.with_mut(|p| unsafe { *p = v });
        #[cfg(not(loom))]
        unsafe {
            *self.value.get() = v
        };
        self.ready.store(true, order);
    }

    /// The value once published (observed with `order`), or `None` before.
    pub fn take(&self, order: Ordering) -> Option<u64> {
        if !self.ready.load(order) {
            return None;
        }
        #[cfg(loom)]
        return Some(self.value.with(|p| unsafe { *p }));
        #[cfg(not(loom))]
        Some(unsafe { *self.value.get() })
    }
}

impl Default for Slot {
    fn default() -> Slot {
        Slot::new()
    }
}

/// Uses `loom::skip_branch`, which racer's loom stand-in does not have (it explores nothing).
#[cfg(all(loom, feature = "uses-missing-item"))]
pub fn skipped() {
    loom::skip_branch();
}
