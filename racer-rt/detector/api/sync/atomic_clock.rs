//! The release clock of an atomic's value, kept so that a load can read it without a lock.
//!
//! A spinning `load(Acquire)` of a value another thread just released must join that value's
//! clock. Under a lock, the reader and the writer take turns on the lock's cache line at every
//! hand-off, which on lock-free code (a ring's head and tail) cost more than the rest of the
//! check. Here the first `WORDS` components are atomic words: a load copies them between two
//! reads of its atomic's version (a seqlock, see `AtomicSync` in `atomic.rs`) and joins the copy
//! only when the version did not change. Wider clocks (more than `WORDS` thread slots) keep the
//! rest in a vector that only the lock holder touches, and their loads take the lock.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::model::clock::{Epoch, Slot, VectorClock};

/// How many components a load can read without the lock: what is left of one cache line after
/// the atomic's version (see `AtomicSync`).
pub(crate) const WORDS: usize = 7;

/// A vector clock readable without the lock of its owner up to `WORDS` components.
///
/// Invariant: component `i < WORDS` is `words[i]`, component `WORDS + j` is `rest[j]`; `words`
/// are written, and `rest` read or written, only by the holder of the owning atomic's lock.
#[repr(C)]
pub(crate) struct AtomicClock {
    words: [AtomicU64; WORDS],
    rest: UnsafeCell<Vec<Epoch>>,
}

// SAFETY: `rest` is reached only through the `unsafe` methods, whose callers hold the owner's
// lock; `words` are atomics.
unsafe impl Sync for AtomicClock {}

impl AtomicClock {
    pub(crate) const fn new() -> AtomicClock {
        AtomicClock { words: [const { AtomicU64::new(0) }; WORDS], rest: UnsafeCell::new(Vec::new()) }
    }

    /// The first `WORDS` components as they are now, which may be torn by a writer: valid only
    /// if the owner's version shows no write began or ended meanwhile.
    #[inline]
    pub(crate) fn snapshot(&self) -> [Epoch; WORDS] {
        std::array::from_fn(|i| self.words[i].load(Relaxed))
    }

    /// Whether a component beyond `WORDS` is set, so that `snapshot` is not the whole clock.
    ///
    /// # Safety
    /// The caller holds the owner's lock.
    pub(crate) unsafe fn is_wide(&self) -> bool {
        (*self.rest.get()).iter().any(|&e| e != 0)
    }

    /// `dst` joins this clock.
    ///
    /// # Safety
    /// The caller holds the owner's lock.
    pub(crate) unsafe fn join_into(&self, dst: &mut VectorClock) {
        dst.join_epochs(&self.snapshot());
        for (i, &epoch) in (*self.rest.get()).iter().enumerate() {
            let slot = (WORDS + i) as Slot;
            if epoch > dst.get(slot) {
                dst.set(slot, epoch);
            }
        }
    }

    /// This clock as a `VectorClock` (no allocation up to `WORDS` components).
    ///
    /// # Safety
    /// The caller holds the owner's lock.
    pub(crate) unsafe fn to_vector(&self) -> VectorClock {
        let mut clock = VectorClock::new();
        self.join_into(&mut clock);
        clock
    }

    /// This clock becomes `src` (`join`: the join of itself and `src`).
    ///
    /// # Safety
    /// The caller holds the owner's lock.
    #[inline]
    pub(crate) unsafe fn store(&self, src: &VectorClock, join: bool) {
        let epochs = src.epochs();
        for (i, word) in self.words.iter().enumerate() {
            let theirs = epochs.get(i).copied().unwrap_or(0);
            if !join || theirs > word.load(Relaxed) {
                word.store(theirs, Relaxed);
            }
        }
        // A narrow clock, and nothing beyond `WORDS` to keep or clear: most stores.
        if epochs.len() > WORDS || !join && !(*self.rest.get()).is_empty() {
            self.store_rest(epochs.get(WORDS..).unwrap_or(&[]), join);
        }
    }

    /// The components beyond `WORDS` of a store (see `store`).
    ///
    /// # Safety
    /// The caller holds the owner's lock.
    #[inline(never)]
    unsafe fn store_rest(&self, theirs: &[Epoch], join: bool) {
        let rest = &mut *self.rest.get();
        if !join {
            rest.clear();
        }
        if theirs.len() > rest.len() {
            rest.resize(theirs.len(), 0);
        }
        for (mine, &theirs) in rest.iter_mut().zip(theirs) {
            if theirs > *mine || !join {
                *mine = theirs;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_joins_and_reads_back_narrow_and_wide_clocks() {
        let c = AtomicClock::new();
        let mut a = VectorClock::new();
        a.set(1, 3);
        a.set(9, 4);
        let mut b = VectorClock::new();
        b.set(0, 2);
        b.set(1, 1);
        unsafe {
            c.store(&a, false);
            assert!(c.is_wide());
            c.store(&b, true);
            assert_eq!(c.to_vector().epochs(), &[2, 3, 0, 0, 0, 0, 0, 0, 0, 4]);
            const { assert!(WORDS < 9, "slot 9 is beyond the words") };
            c.store(&b, false);
            assert!(!c.is_wide());
            assert_eq!(c.to_vector().epochs(), &[2, 1]);
        }
        assert_eq!(c.snapshot()[..3], [2, 1, 0]);
    }
}
