//! What a report needs to name a Relaxed hand-off between two threads: each thread's last few
//! loads of racer atomics that synchronised nothing (thread-local, read by the thread that finds
//! the race, which is always the loading one), and each thread's last few stores and RMWs made
//! under an atomic's lock (`StoreLog`, kept in the thread's `thread_ref` entry so that the thread
//! reporting a race can read the other thread's).
//!
//! Both are a few plain stores where the atomic already pays for more: a load notes itself only
//! when it is not the same load (atomic and site) as the thread's last noted one, which a spin
//! loop on one atomic always is; a store notes itself under the atomic's lock. The pairing is
//! done only when a race is reported (`pair`).

use std::cell::UnsafeCell;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::report::AtomicPair;

/// One load of a racer atomic that made no happens-before edge: it read a value no release
/// wrote (`released` false), or it was Relaxed.
#[derive(Debug, Clone, Copy)]
pub struct LoadNote {
    /// The atomic's detector part, by address (0: an empty note).
    pub atomic: usize,
    pub object: &'static str,
    pub created: &'static Location<'static>,
    pub site: &'static Location<'static>,
    pub order: Ordering,
    /// The value it read carried a release clock (a fence(Acquire) later would have joined it).
    pub released: bool,
}

const LOADS: usize = 4;

/// The calling thread's notes, a ring; `last` is the newest.
struct LoadRing {
    notes: [Option<LoadNote>; LOADS],
    last: usize,
}

thread_local! {
    /// Touched only by its thread, never re-entrantly (nothing runs inside its borrows), and
    /// with nothing to destroy, so reached without a borrow flag or registration.
    static RECENT_LOADS: UnsafeCell<LoadRing> = const { UnsafeCell::new(LoadRing { notes: [None; LOADS], last: 0 }) };
}

/// A load of the atomic at `atomic` (made at `created`) synchronised nothing. Costs a compare
/// when it repeats the thread's last noted load.
#[inline(always)]
pub fn note_load(
    atomic: usize,
    object: &'static str,
    created: &'static Location<'static>,
    site: &'static Location<'static>,
    order: Ordering,
    released: bool,
) {
    if !repeats_last_load(atomic, site) {
        push_load(LoadNote { atomic, object, created, site, order, released });
    }
}

/// Whether a load of the atomic at `atomic` at `site` repeats the calling thread's last noted
/// load, so that noting it changes nothing.
#[inline(always)]
pub fn repeats_last_load(atomic: usize, site: &'static Location<'static>) -> bool {
    RECENT_LOADS
        .try_with(|ring| {
            // SAFETY: see `RECENT_LOADS`.
            let ring = unsafe { &*ring.get() };
            ring.notes[ring.last].as_ref().is_some_and(|last| last.atomic == atomic && std::ptr::eq(last.site, site))
        })
        .unwrap_or(false)
}

#[cold]
#[inline(never)]
fn push_load(note: LoadNote) {
    let _ = RECENT_LOADS.try_with(|ring| {
        // SAFETY: see `RECENT_LOADS`.
        let ring = unsafe { &mut *ring.get() };
        // The same atomic loaded elsewhere before: that older note goes, so the ring keeps
        // different atomics.
        if let Some(i) = ring.notes.iter().position(|n| n.is_some_and(|n| n.atomic == note.atomic)) {
            ring.notes[i] = None;
        }
        ring.last = (ring.last + 1) % LOADS;
        ring.notes[ring.last] = Some(note);
    });
}

/// A fence(Acquire) of the calling thread joined the release clocks its Relaxed loads read:
/// those loads are no longer unsynchronised.
pub fn acquired_by_fence() {
    let _ = RECENT_LOADS.try_with(|ring| {
        // SAFETY: see `RECENT_LOADS`.
        let ring = unsafe { &mut *ring.get() };
        for n in &mut ring.notes {
            if n.is_some_and(|n| n.released) {
                *n = None;
            }
        }
    });
}

/// The calling thread's noted loads, newest first.
pub fn recent_loads() -> Vec<LoadNote> {
    RECENT_LOADS
        .try_with(|ring| {
            // SAFETY: see `RECENT_LOADS`.
            let ring = unsafe { &*ring.get() };
            (0..LOADS).filter_map(|i| ring.notes[(ring.last + LOADS - i) % LOADS]).collect()
        })
        .unwrap_or_default()
}

/// One store or RMW a thread made under an atomic's lock.
#[derive(Debug, Clone, Copy)]
pub struct StoreNote {
    pub atomic: usize,
    pub created: &'static Location<'static>,
    pub site: &'static Location<'static>,
    pub order: Ordering,
    /// An RMW, not a store.
    pub rmw: bool,
    /// It released the thread's clock (its ordering, or a fence(Release) before it).
    pub releases: bool,
}

const STORES: usize = 4;

/// A thread's last stores, one per atomic, written by that thread only (under each atomic's
/// lock) and read by whichever thread reports a race with it: each entry is written with its
/// address cleared first and set last, and read back the same way, so a torn entry is skipped.
pub struct StoreLog {
    entries: [[AtomicUsize; 4]; STORES],
    next: AtomicU64,
}

impl StoreLog {
    pub fn new() -> StoreLog {
        StoreLog { entries: Default::default(), next: AtomicU64::new(0) }
    }

    /// Forgets every entry: the log's thread entry is reused by a new thread.
    pub fn clear(&self) {
        for e in &self.entries {
            e[0].store(0, Ordering::Relaxed);
        }
    }

    /// Called by the log's thread only.
    #[inline]
    pub fn note(&self, s: StoreNote) {
        let meta = order_index(s.order) | (s.rmw as usize) << 3 | (s.releases as usize) << 4;
        let (created, site) =
            (s.created as *const Location<'static> as usize, s.site as *const Location<'static> as usize);
        let found = self.entries.iter().position(|e| e[0].load(Ordering::Relaxed) == s.atomic);
        // The same store again (a loop storing at one site): nothing to write. Only this thread
        // writes its log, so its own relaxed loads see what it wrote.
        if let Some(e) = found.map(|i| &self.entries[i]) {
            if e[2].load(Ordering::Relaxed) == site
                && e[3].load(Ordering::Relaxed) == meta
                && e[1].load(Ordering::Relaxed) == created
            {
                return;
            }
        }
        let i = found.unwrap_or_else(|| {
            let n = self.next.load(Ordering::Relaxed);
            self.next.store(n + 1, Ordering::Relaxed);
            n as usize % STORES
        });
        let e = &self.entries[i];
        e[0].store(0, Ordering::Relaxed);
        std::sync::atomic::fence(Ordering::Release);
        e[1].store(created, Ordering::Relaxed);
        e[2].store(site, Ordering::Relaxed);
        e[3].store(meta, Ordering::Relaxed);
        e[0].store(s.atomic, Ordering::Release);
    }

    /// The entries, as far as they read whole.
    pub fn entries(&self) -> Vec<StoreNote> {
        let mut out = Vec::new();
        for e in &self.entries {
            let atomic = e[0].load(Ordering::Acquire);
            if atomic == 0 {
                continue;
            }
            let (created, site, meta) =
                (e[1].load(Ordering::Relaxed), e[2].load(Ordering::Relaxed), e[3].load(Ordering::Relaxed));
            std::sync::atomic::fence(Ordering::Acquire);
            if e[0].load(Ordering::Relaxed) != atomic || created == 0 || site == 0 {
                continue;
            }
            // SAFETY: non-zero words 1 and 2 were made from `&'static Location`s in `note`, and
            // the address check shows they belong to this entry's note.
            let (created, site) =
                unsafe { (&*(created as *const Location<'static>), &*(site as *const Location<'static>)) };
            out.push(StoreNote {
                atomic,
                created,
                site,
                order: ORDERS[meta & 7],
                rmw: meta & 8 != 0,
                releases: meta & 16 != 0,
            });
        }
        out
    }
}

impl Default for StoreLog {
    fn default() -> StoreLog {
        StoreLog::new()
    }
}

const ORDERS: [Ordering; 8] = [
    Ordering::Relaxed,
    Ordering::Release,
    Ordering::Acquire,
    Ordering::AcqRel,
    Ordering::SeqCst,
    Ordering::SeqCst,
    Ordering::SeqCst,
    Ordering::SeqCst,
];

fn order_index(order: Ordering) -> usize {
    ORDERS.iter().position(|&o| o == order).unwrap_or(4)
}

fn acquires(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

/// The hand-off through an atomic that failed to order a race: one of `loads` (the racing
/// thread's, newest first) of an atomic whose last store in `stores` (the other racing
/// thread's) made no happens-before edge with it. `storer` names the storing thread.
pub fn pair(loads: &[LoadNote], stores: &[StoreNote], storer: String) -> Option<AtomicPair> {
    loads.iter().find_map(|load| {
        let store = stores.iter().find(|s| s.atomic == load.atomic && std::ptr::eq(s.created, load.created))?;
        // A releasing store read by an acquiring load that synchronised nothing: the load read
        // an older value than that store's, so this store is not what failed.
        if store.releases && acquires(load.order) {
            return None;
        }
        Some(AtomicPair {
            object: load.object,
            store_site: store.site,
            store_order: store.order,
            store_is_rmw: store.rmw,
            store_releases: store.releases,
            storer: storer.clone(),
            load_site: load.site,
            load_order: load.order,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_load_is_noted_once_and_the_ring_keeps_different_atomics() {
        std::thread::spawn(|| {
            let (a, b) = (Location::caller(), Location::caller());
            for _ in 0..3 {
                note_load(16, "AtomicBool", a, a, Ordering::Relaxed, false);
            }
            note_load(32, "AtomicUsize", b, b, Ordering::Acquire, true);
            note_load(16, "AtomicBool", a, b, Ordering::Relaxed, false);
            let atomics: Vec<usize> = recent_loads().iter().map(|n| n.atomic).collect();
            assert_eq!(atomics, [16, 32]);
            acquired_by_fence();
            let atomics: Vec<usize> = recent_loads().iter().map(|n| n.atomic).collect();
            assert_eq!(atomics, [16]);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_store_log_keeps_one_entry_per_atomic() {
        let log = StoreLog::new();
        let at = Location::caller();
        let store = |atomic, order| StoreNote { atomic, created: at, site: at, order, rmw: false, releases: false };
        log.note(store(8, Ordering::Relaxed));
        log.note(store(8, Ordering::SeqCst));
        log.note(store(24, Ordering::Release));
        let e = log.entries();
        assert_eq!(
            e.iter().map(|s| (s.atomic, s.order)).collect::<Vec<_>>(),
            [(8, Ordering::SeqCst), (24, Ordering::Release)]
        );
        log.clear();
        assert!(log.entries().is_empty());
    }
}
