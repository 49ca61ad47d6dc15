//! A lock as deadlock detection knows it: its identity (`LockMeta`, embedded in each of racer's
//! locks), one acquisition of it (`Acq`), and whether two modes of acquisition keep each other
//! out (`conflict`).
//!
//! Invariant: a lock's id is never reused (see `LockMeta`), and an `Acq` points at its lock's
//! `LockMeta` only while that lock is held or being taken. `LockMeta`'s `Drop`, which takes the
//! lock out of the lock-order graph, is in `order_graph.rs`, beside the graph (which imports
//! this file, not the reverse).

use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::report::LockMode;

pub(super) const IN_GRAPH: u64 = 1 << 63;
static NEXT_LOCK: AtomicU64 = AtomicU64::new(1);

/// A lock's identity for deadlock detection, embedded in racer's `Mutex` and `RwLock`.
///
/// Invariant: `id` is 0 until the lock is first taken, then a number no other lock ever had;
/// the bit `IN_GRAPH` is set before the lock's first edge enters `GRAPH`, so a lock without it
/// has nothing there to forget when dropped.
#[derive(Debug, Default)]
pub struct LockMeta {
    pub(super) id: AtomicU64,
}

impl LockMeta {
    pub const fn new() -> LockMeta {
        LockMeta { id: AtomicU64::new(0) }
    }

    #[inline]
    pub fn id(&self) -> u64 {
        let v = self.id.load(Ordering::Relaxed);
        if v != 0 {
            return v & !IN_GRAPH;
        }
        self.assign()
    }

    #[cold]
    fn assign(&self) -> u64 {
        let new = NEXT_LOCK.fetch_add(1, Ordering::Relaxed);
        match self.id.compare_exchange(0, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => new,
            Err(v) => v & !IN_GRAPH,
        }
    }

    pub(super) fn mark_in_graph(&self) {
        self.id.fetch_or(IN_GRAPH, Ordering::Relaxed);
    }
}

/// One acquisition of a lock, as the thread holding it remembers it.
#[derive(Debug, Clone, Copy)]
pub struct Acq {
    /// The lock's `LockMeta`, valid while the lock is held or being taken (its guard borrows it).
    meta: usize,
    pub id: u64,
    pub mode: LockMode,
    pub object: &'static str,
    pub created: &'static Location<'static>,
    pub site: &'static Location<'static>,
}

impl Acq {
    #[inline]
    pub fn new(
        meta: &LockMeta,
        mode: LockMode,
        object: &'static str,
        created: &'static Location<'static>,
        site: &'static Location<'static>,
    ) -> Acq {
        Acq { meta: meta as *const LockMeta as usize, id: meta.id(), mode, object, created, site }
    }

    /// # Safety
    /// The lock must be held or being taken by the calling thread.
    pub(super) unsafe fn meta(&self) -> &LockMeta {
        unsafe { &*(self.meta as *const LockMeta) }
    }
}

/// Whether a lock held in mode `a` keeps out an acquisition in mode `b`.
pub(super) fn conflict(a: LockMode, b: LockMode) -> bool {
    !(a == LockMode::Shared && b == LockMode::Shared)
}
