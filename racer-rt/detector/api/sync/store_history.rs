//! An atomic's recent stores, inside models only: a load there returns one of the stores the
//! C/C++ memory model lets it read, stale ones included, as the model's seed chooses.
//!
//! Outside a model nothing here runs: a load returns the latest value, as the hardware most
//! often does, and no history is kept.
//!
//! Which stores a load may read (coherence, after CDSChecker and C11Tester, as loom and
//! tsan11 keep them): going from the newest store back, every store is a candidate until the
//! first that the load may not pass, which is the oldest candidate:
//! - a store that happens before the load (the thread's own earlier stores among them), or one
//!   that an earlier load read when that load happens before this one (read-read coherence);
//! - for a SeqCst load, the latest SeqCst store (a SeqCst load reads it or a later one, so
//!   that SeqCst operations have one total order);
//! - a store that happens before a `fence(SeqCst)` that precedes, in the fences' total order,
//!   a `fence(SeqCst)` of the loading thread (C++20's fence rule), and likewise a SeqCst store
//!   that precedes such a fence.
//!
//! Read-modify-writes always read the newest store. A load that read an older store acquires
//! that store's release clock, not the newest's.
//!
//! Liveness: a thread reads an older store of one atomic at most `STALE_STREAK` times in a row;
//! then it reads the newest, so a spin on a flag ends.

use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::model::clock::{Epoch, Slot, VectorClock};
use crate::schedule;

/// How many stores of one atomic a history keeps (loom keeps 7).
const KEPT: usize = 8;

/// How many loads of one atomic in a row, by one thread, may read an older store.
const STALE_STREAK: u32 = 2;

/// One store (or read-modify-write) of an atomic, as a later load may read it.
pub(crate) struct StoreRecord {
    /// The value written, as bits (see `Bits` in `atomic.rs`).
    pub(crate) bits: u64,
    /// The storing thread's slot and its epoch at the store: the store happens before a load
    /// whose clock holds that epoch.
    slot: Slot,
    epoch: Epoch,
    seq_cst: bool,
    /// The release clock a load that reads this store acquires, if the store released (or
    /// continued a release sequence).
    pub(crate) release: Option<VectorClock>,
    /// The loads that read it (slot, epoch): a load they happen before reads it or a later one.
    loaded_by: Vec<(Slot, Epoch)>,
    /// Where the store ran; `None` for the value the history began with (see `current`).
    pub(crate) site: Option<&'static Location<'static>>,
    pub(crate) order: Ordering,
}

/// The recent stores of one atomic, oldest first, in modification order, for one iteration.
///
/// Invariant: while `iteration` is the running iteration's and the newest record's bits are the
/// atomic's value, the records are the atomic's last stores of this iteration (at most `KEPT`),
/// in modification order. Otherwise the history is stale (a new iteration, or a write that
/// racer did not see: `as_ptr`, memory reused without a drop) and starts again from the value.
pub(crate) struct History {
    iteration: u64,
    stores: Vec<StoreRecord>,
}

/// What a load read: the store it chose, and whether that is an older one than the newest.
pub(crate) struct Read<'a> {
    pub(crate) store: &'a StoreRecord,
    pub(crate) stale: bool,
}

impl History {
    /// The history of an atomic whose value is `bits`, valid for the running iteration: the one
    /// kept, or a new one whose only store is the value, visible to every thread.
    pub(crate) fn current(slot: &mut Option<Box<History>>, bits: u64) -> &mut History {
        let iteration = schedule::current_iteration().unwrap_or(0);
        let valid =
            slot.as_ref().is_some_and(|h| h.iteration == iteration && h.stores.last().is_some_and(|s| s.bits == bits));
        if !valid {
            let initial = StoreRecord {
                bits,
                slot: 0,
                epoch: 0,
                seq_cst: true,
                release: None,
                loaded_by: Vec::new(),
                site: None,
                order: Ordering::Relaxed,
            };
            *slot = Some(Box::new(History { iteration, stores: vec![initial] }));
        }
        slot.as_mut().expect("made above")
    }

    /// A store (or RMW) by the thread in `slot` at `epoch` wrote `bits`; `release` is the
    /// atomic's release clock after it.
    pub(crate) fn stored(
        &mut self,
        bits: u64,
        slot: Slot,
        epoch: Epoch,
        order: Ordering,
        release: Option<VectorClock>,
        site: &'static Location<'static>,
    ) {
        if self.stores.len() == KEPT {
            self.stores.remove(0);
        }
        self.stores.push(StoreRecord {
            bits,
            slot,
            epoch,
            seq_cst: order == Ordering::SeqCst,
            release,
            loaded_by: Vec::new(),
            site: Some(site),
            order,
        });
    }

    /// The newest store, read by a read-modify-write (or a failed compare-exchange) of the thread
    /// in `slot` at `epoch`.
    pub(crate) fn read_newest(&mut self, slot: Slot, epoch: Epoch) {
        let newest = self.stores.last_mut().expect("a history has a store");
        note_loader(newest, slot, epoch);
    }

    /// The index of the oldest store a load of `order` by a thread with clock `clock` and
    /// SeqCst-fence view `sc_view` may read: the newest store it may not pass (see the module's
    /// rules), or the oldest kept.
    fn oldest_candidate(&self, order: Ordering, clock: &VectorClock, sc_view: &VectorClock) -> usize {
        let passes_not = |store: &StoreRecord| {
            clock.get(store.slot) >= store.epoch
                || sc_view.get(store.slot) >= store.epoch
                || store.loaded_by.iter().any(|&(s, e)| clock.get(s) >= e)
                || (order == Ordering::SeqCst && store.seq_cst)
        };
        self.stores.iter().rposition(passes_not).unwrap_or(0)
    }

    /// A load of `order` by the thread in `slot` at `epoch` with clock `clock` and SeqCst-fence
    /// view `sc_view` (see `fence`): chooses the store it reads among those it may, the newest
    /// unless the model's choice (and the thread's `streak` of older reads) says otherwise.
    pub(crate) fn load(
        &mut self,
        order: Ordering,
        slot: Slot,
        epoch: Epoch,
        clock: &VectorClock,
        sc_view: &VectorClock,
        streak: &mut u32,
    ) -> Read<'_> {
        let newest = self.stores.len() - 1;
        let oldest = self.oldest_candidate(order, clock, sc_view);
        let candidates = newest - oldest + 1;
        let back = if candidates > 1 && *streak < STALE_STREAK {
            schedule::choose_value(candidates as u64).unwrap_or(0) as usize
        } else {
            0
        };
        *streak = if back > 0 { *streak + 1 } else { 0 };
        let chosen = &mut self.stores[newest - back];
        note_loader(chosen, slot, epoch);
        Read { store: &self.stores[newest - back], stale: back > 0 }
    }
}

thread_local! {
    /// The calling thread's loads in a row that read an older store, per atomic (its entry's
    /// address): a few, kept in the order last used.
    static STALE_STREAKS: std::cell::RefCell<Vec<(usize, u32)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on the calling thread's streak of older reads of the atomic `key`.
pub(crate) fn with_stale_streak<R>(key: usize, f: impl FnOnce(&mut u32) -> R) -> R {
    let mut f = Some(f);
    let out = STALE_STREAKS.try_with(|streaks| {
        let mut streaks = streaks.try_borrow_mut().ok()?;
        let i = match streaks.iter().position(|&(k, _)| k == key) {
            Some(i) => i,
            None => {
                if streaks.len() == 16 {
                    streaks.remove(0);
                }
                streaks.push((key, 0));
                streaks.len() - 1
            }
        };
        Some((f.take().unwrap())(&mut streaks[i].1))
    });
    match out {
        Ok(Some(r)) => r,
        _ => (f.take().unwrap())(&mut { STALE_STREAK }),
    }
}

/// Notes that the thread in `slot` at `epoch` read `store`; one entry per thread, its earliest
/// such load: a load that any of them happens before also has that one before it.
fn note_loader(store: &mut StoreRecord, slot: Slot, epoch: Epoch) {
    match store.loaded_by.iter_mut().find(|(s, _)| *s == slot) {
        Some(entry) => entry.1 = entry.1.min(epoch),
        None => store.loaded_by.push((slot, epoch)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(epochs: &[(Slot, Epoch)]) -> VectorClock {
        let mut c = VectorClock::new();
        for &(s, e) in epochs {
            c.set(s, e);
        }
        c
    }

    fn history(stores: &[(u64, Slot, Epoch, Ordering)]) -> History {
        let mut h = History { iteration: 0, stores: Vec::new() };
        for &(bits, slot, epoch, order) in stores {
            h.stored(bits, slot, epoch, order, None, Location::caller());
        }
        h
    }

    fn oldest_candidate(h: &History, order: Ordering, clock: &VectorClock, sc_view: &VectorClock) -> u64 {
        h.stores[h.oldest_candidate(order, clock, sc_view)].bits
    }

    #[test]
    fn a_load_may_not_pass_a_store_that_happens_before_it() {
        let h = history(&[(0, 0, 0, Ordering::Relaxed), (1, 1, 3, Ordering::Relaxed), (2, 1, 4, Ordering::Relaxed)]);
        let none = VectorClock::new();
        assert_eq!(oldest_candidate(&h, Ordering::Relaxed, &clock(&[(2, 1)]), &none), 0);
        assert_eq!(oldest_candidate(&h, Ordering::Relaxed, &clock(&[(1, 3)]), &none), 1);
        assert_eq!(oldest_candidate(&h, Ordering::Relaxed, &clock(&[(1, 4)]), &none), 2);
        // A fence view counts as seen.
        assert_eq!(oldest_candidate(&h, Ordering::Relaxed, &none, &clock(&[(1, 3)])), 1);
    }

    #[test]
    fn a_seq_cst_load_reads_the_latest_seq_cst_store_or_a_later_one() {
        let h = history(&[(0, 0, 0, Ordering::Relaxed), (1, 1, 3, Ordering::SeqCst), (2, 1, 4, Ordering::Relaxed)]);
        let none = VectorClock::new();
        assert_eq!(oldest_candidate(&h, Ordering::SeqCst, &clock(&[(2, 1)]), &none), 1);
        assert_eq!(oldest_candidate(&h, Ordering::Acquire, &clock(&[(2, 1)]), &none), 0);
    }

    #[test]
    fn a_load_does_not_read_older_than_a_load_that_happens_before_it() {
        let mut h =
            history(&[(0, 0, 0, Ordering::Relaxed), (1, 1, 3, Ordering::Relaxed), (2, 1, 4, Ordering::Relaxed)]);
        let none = VectorClock::new();
        note_loader(&mut h.stores[1], 2, 5);
        assert_eq!(oldest_candidate(&h, Ordering::Relaxed, &clock(&[(2, 5)]), &none), 1);
        assert_eq!(oldest_candidate(&h, Ordering::Relaxed, &clock(&[(2, 4)]), &none), 0);
    }

    #[test]
    fn a_history_keeps_the_last_stores_and_restarts_on_a_value_it_did_not_see() {
        let mut slot = None;
        let h = History::current(&mut slot, 5);
        for v in 0..20 {
            h.stored(v, 1, v + 1, Ordering::Relaxed, None, Location::caller());
        }
        assert_eq!(h.stores.len(), KEPT);
        assert_eq!(h.stores[0].bits, 20 - KEPT as u64);
        assert_eq!(History::current(&mut slot, 19).stores.len(), KEPT);
        assert_eq!(History::current(&mut slot, 7).stores.len(), 1);
    }
}
