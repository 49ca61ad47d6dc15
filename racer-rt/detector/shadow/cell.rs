//! Shadow memory: the detector's state for every `Shared` cell, and the access path that runs
//! the per-cell policy on it.
//!
//! Each cell carries its seen-access cache and a pointer to its own state in a slot of
//! `state_slots` (no global table to look it up in); the state is guarded by a lock bit in the
//! word that points to it. A new cell starts with no state, and a moved cell (moves need no
//! lock: nothing borrows the cell) takes its state along.

use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::model::algorithm::{match_algorithm, CellPolicy, Recorded};
use crate::provenance::access::{AccessInfo, Record};
use crate::provenance::stack;
use crate::report::{AccessKind, HeldLock, LockMode, RaceKind};
use crate::runtime::check_scope::CheckScope;
use crate::runtime::stats;
use crate::runtime::thread_state::{current_seen_key, with_current};
use crate::shadow::seen::{self, SeenAccesses};
use crate::shadow::state_slots::{self, StateBits};

thread_local! {
    /// Accesses of this thread that missed the cells' caches of seen accesses.
    static SLOW_ACCESSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// One held lock as `HELD_SET` compares it: (lock, mode, created, taken at).
type HeldKey = (u64, LockMode, usize, usize);

thread_local! {
    /// The locks this thread held at its last access that held any, as (lock, mode, created,
    /// taken at), and that set's id in `held_locks`: a thread mostly accesses its cells under
    /// the same locks taken at the same lines, and then looks nothing up.
    static HELD_SET: std::cell::RefCell<(Vec<HeldKey>, u32)> =
        const { std::cell::RefCell::new((Vec::new(), 0)) };
}

/// The id (in `held_locks`) of the set of racer locks the calling thread holds, 0 for none.
/// The test for none is inline: a lock-free program's every slow access makes it.
#[inline]
fn held_locks_id() -> u32 {
    if crate::deadlock::holds_none() {
        return 0;
    }
    held_locks_id_interned()
}

#[inline(never)]
fn held_locks_id_interned() -> u32 {
    crate::deadlock::with_held(|held| {
        if held.is_empty() {
            return 0;
        }
        let key = |a: &crate::deadlock::Acq| {
            (a.id, a.mode, a.created as *const Location<'static> as usize, a.site as *const Location<'static> as usize)
        };
        HELD_SET
            .try_with(|set| {
                let mut set = set.try_borrow_mut().ok()?;
                if set.0.len() != held.len() || !set.0.iter().zip(held).all(|(k, a)| *k == key(a)) {
                    let locks: Vec<HeldLock> = held
                        .iter()
                        .map(|a| HeldLock {
                            lock: a.id,
                            object: a.object,
                            mode: a.mode,
                            created: a.created,
                            acquired_at: a.site,
                        })
                        .collect();
                    set.1 = crate::provenance::held_locks::intern(&locks);
                    set.0 = held.iter().map(key).collect();
                }
                Some(set.1)
            })
            .ok()
            .flatten()
            .unwrap_or(0)
    })
}

/// How many of the calling thread's `Shared` accesses so far missed their cell's cache of seen
/// accesses and went through the cell's state: what tests of the fast path count.
pub fn slow_accesses_on_this_thread() -> u64 {
    SLOW_ACCESSES.try_with(std::cell::Cell::get).unwrap_or(0)
}

/// The lock bit of a cell's `state` word: bit 62, which no state's address has (user space
/// ends far below 2^62, and a 32-bit address fills only the low half of the word), so the low
/// bits stay free for the state's tag (see `state_slots`). Not the top bit: a test of that one
/// is a sign test, and the compiler then takes the lock with a load and a compare-exchange
/// loop instead of one bit-test-and-set.
const LOCKED: u64 = 1 << 62;

/// A cell's lock, held while an access goes through its state. Dropping it stores `bits` (the
/// state, possibly new) with the lock bit clear.
struct CellLock<'a> {
    state: &'a AtomicU64,
    bits: StateBits,
}

impl<'a> CellLock<'a> {
    /// The lock is a bit of the word that points to the state, on the cell's cache line: two
    /// threads checking different cells never meet, and the lock costs no line of its own.
    #[inline]
    fn take(state: &'a AtomicU64) -> CellLock<'a> {
        let bits = crate::base::lock::lock_bit(state, LOCKED) as StateBits;
        CellLock { state, bits }
    }
}

impl Drop for CellLock<'_> {
    #[inline]
    fn drop(&mut self) {
        self.state.store(self.bits as u64, Ordering::Release);
    }
}

/// Bytes of shadow memory of each cell: its part of the cell and its state's slot; what the
/// state allocates on the heap comes on top.
const ENTRY_BYTES: usize = std::mem::size_of::<CellMeta>() + state_slots::SLOT_BYTES;

/// The detector's part of a `Shared` cell: 40 bytes, plus its state's slot in `state_slots`
/// (one 64-byte cache line, of which Algorithm 4 uses 56) once the cell is first checked. That
/// is all of its shadow memory while it has at most two reads since its last write (more
/// parallel reads spill to the heap).
///
/// Invariant: `state` is 0 until the cell's first checked access, then owns the cell's state
/// (see `StateBits`) until the cell's last write frees it; its `LOCKED` bit is the cell's lock.
/// It is set, and the state reached, only under that lock (or through `&mut self`); `seen` is
/// updated under that lock, after the access went through the state.
#[derive(Debug)]
pub struct CellMeta {
    seen: SeenAccesses,
    state: AtomicU64,
}

impl CellMeta {
    pub const fn new() -> CellMeta {
        CellMeta { seen: SeenAccesses::new(), state: AtomicU64::new(0) }
    }

    /// Checks an access of the cell by the calling thread.
    #[inline]
    pub fn access(&self, kind: AccessKind, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        if !self.seen.contains(kind, current_seen_key()) {
            self.access_slow(kind, site, type_name, address, false);
        }
    }

    /// The cell's creation, checked as a write by the calling thread (see
    /// `Shared::new_written`): a report names it as where the cell was created.
    pub fn create(&self, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        self.access_slow(AccessKind::Write, site, type_name, address, true);
    }

    #[cold]
    #[inline(never)]
    fn access_slow(
        &self,
        kind: AccessKind,
        site: &'static Location<'static>,
        type_name: &'static str,
        address: usize,
        creation: bool,
    ) {
        // Inside `annotate::ignore_accesses`: neither checked nor remembered (nor cached).
        if crate::runtime::ignore::ignoring() {
            return;
        }
        let _ = SLOW_ACCESSES.try_with(|n| n.set(n.get() + 1));
        self.prefetch();
        let held = held_locks_id() | if creation { stack::CREATION } else { 0 };
        let races = with_current(|t| {
            // Never dropped: its handle is uncounted (the state keeps counted clones of it).
            let cur = std::mem::ManuallyDrop::new(Recorded {
                segment: t.segment(),
                info: AccessInfo {
                    stack: stack::capture_access_holding(site, t.last_sync_id(), held),
                    // SAFETY: inside a `ManuallyDrop` that lives only in this closure, while
                    // `t.thread_ref` lives on.
                    thread: unsafe { t.thread_ref.uncounted() },
                },
            });
            let cur = &*cur;
            let mut found: Vec<(RaceKind, Record)> = Vec::new();
            let mut birth = None;
            let (before, after) = {
                let mut lock = CellLock::take(&self.state);
                let is_new = lock.bits == 0;
                if is_new {
                    lock.bits = state_slots::new_state(crate::model::algorithm::selected());
                    // SAFETY: the cell's new state, and we hold its lock.
                    unsafe { *state_slots::birth(lock.bits) = Some(cur.info.clone()) };
                }
                let bits = lock.bits;
                // One copy of the check per policy, each with its policy's calls inlined.
                let counts = match_algorithm!(state_slots::algorithm(bits), |number, Policy, _Variant| {
                    // SAFETY: `bits` is the cell's live state, of the policy matched on its
                    // tag, and we hold the cell's lock.
                    let cell = unsafe { state_slots::state_mut::<Policy<AccessInfo>>(bits) };
                    let before = (!is_new).then(|| stats::Footprint::of(cell, number));
                    let mut race = |k: RaceKind, prev: &Record| found.push((k, prev.clone()));
                    match kind {
                        AccessKind::Read => cell.read(cur, t.clock(), &mut race),
                        AccessKind::Write => cell.write(cur, t.clock(), &mut race),
                    }
                    self.seen.remember_miss(kind, seen::key(cur.segment), number);
                    (before, stats::Footprint::of(cell, number))
                });
                if !found.is_empty() {
                    // SAFETY: the cell's live state, and we hold its lock.
                    birth = unsafe { state_slots::birth(bits).clone() };
                }
                counts
            };
            stats::cell_changed(before, after, ENTRY_BYTES);
            if found.is_empty() {
                // Nothing to free (it never allocated), and the out-of-line drop costs a call.
                std::mem::forget(found);
                return None;
            }
            // A counted copy of the access, to report it once the thread state is released.
            Some(Races { found, cur: cur.clone(), scope: t.scope.clone(), birth })
        });
        if let Some(Some(races)) = races {
            races.deliver(type_name, address);
        }
    }

    /// Starts bringing the cell's line and its state's slot for writing, while the stack is
    /// captured: another core's access to the same cell most likely holds both.
    #[inline(always)]
    fn prefetch(&self) {
        crate::base::lock::prefetch_for_write(&self.state);
        let bits = self.state.load(Ordering::Relaxed) as StateBits & !(LOCKED as StateBits);
        if bits != 0 {
            state_slots::prefetch_for_write(bits);
        }
    }

    /// The cell's last access (its drop, or `into_inner`): a write checked against the cell's
    /// state, which is then freed. Nothing keeps this access, so its stack is captured only
    /// when it races. Inside the last drop of a `std::sync::Arc` it races with nothing: see
    /// `stack::inside_last_std_arc_drop`.
    pub fn last_write(&mut self, site: &'static Location<'static>, type_name: &'static str, address: usize) {
        let bits = std::mem::take(self.state.get_mut()) as StateBits;
        if bits == 0 {
            return;
        }
        // SAFETY (both): the cell's live state, reached through `&mut self`, and never again.
        let birth = unsafe { state_slots::birth(bits).take() };
        let cell = unsafe { state_slots::take_state(bits) };
        stats::cell_forgotten(&cell, ENTRY_BYTES);
        let key = current_seen_key();
        if self.seen.contains(AccessKind::Write, key) || crate::runtime::ignore::ignoring() {
            return; // this segment wrote it last, or ignores its accesses: nothing to find
        }
        let races = with_current(|t| {
            let mut found: Vec<(RaceKind, Record)> = Vec::new();
            cell.policy().check_write(t.clock(), &mut |k, prev| found.push((k, prev.clone())));
            if found.is_empty() {
                return None;
            }
            let stack = stack::capture_access_holding(site, t.last_sync_id(), held_locks_id());
            let info = AccessInfo { stack, thread: t.thread_ref.clone() };
            Some(Races { found, cur: Recorded { segment: t.segment(), info }, scope: t.scope.clone(), birth })
        });
        if let Some(Some(races)) = races {
            // A cell dropped by the last drop of the `std::sync::Arc` that owns it: std's Arc orders
            // every access through a clone before it (its frames say so; looked at only here).
            if stack::inside_last_std_arc_drop(races.cur.info.stack) {
                return;
            }
            races.deliver(type_name, address);
        }
    }
}

/// The races one access found, collected while the thread state is borrowed and delivered
/// after it was released: reporting may then use the thread state itself.
struct Races {
    found: Vec<(RaceKind, Record)>,
    cur: Record,
    scope: Option<Arc<CheckScope>>,
    /// The cell's first access (its creation, for `Shared::new_written`).
    birth: Option<AccessInfo>,
}

impl Races {
    #[cold]
    fn deliver(self, type_name: &'static str, address: usize) {
        for (race_kind, prev) in &self.found {
            crate::reporting::deliver::race_found_in_cell(
                self.scope.as_ref(),
                *race_kind,
                prev,
                &self.cur,
                type_name,
                address,
                self.birth.as_ref(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::algorithm::Alg4;

    /// A cell with at most two reads since its last write has 104 bytes of shadow state: 40 in
    /// the cell (four 64-bit keys and the state's address) and a slot of one cache line, of
    /// which Algorithm 4 uses 56 (three 16-byte records, W and two reads, and the tag of its read
    /// set). Every state fits the line. A `Shared` is a line of its own (see `api/shared.rs`):
    /// a `Shared<u64>` is its 40 bytes, the value and 16 bytes of padding.
    #[test]
    fn a_cell_with_up_to_two_readers_has_104_bytes_of_shadow_state() {
        assert_eq!(std::mem::size_of::<Record>(), 16);
        assert_eq!(std::mem::size_of::<CellMeta>(), 40);
        assert_eq!(std::mem::size_of::<Alg4<AccessInfo>>(), 56);
        assert_eq!(state_slots::SLOT_BYTES, 64);
        assert_eq!(std::mem::size_of::<CellMeta>() + state_slots::SLOT_BYTES, 104);
        assert_eq!(std::mem::size_of::<crate::Shared<u64>>(), 64);
        assert_eq!(std::mem::align_of::<crate::Shared<u8>>(), 64);
        assert_eq!(std::mem::size_of::<crate::Shared<[u8; 25]>>(), 128);
    }
}
