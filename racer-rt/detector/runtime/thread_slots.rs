//! Thread slots: the index of a thread's component in every vector clock.
//!
//! Slots are handed out by a global table and reused after a thread is gone, so clocks stay as
//! wide as the number of threads alive, not the number ever spawned. A reused slot continues
//! the epochs of its previous owner, and a new thread receives a slot only when its spawner's
//! clock already covers the previous owner's last posted epoch: then every segment of the old
//! owner really happened before the new thread, and no other thread's clock can mistake a
//! segment of one owner for a segment of the other.

use std::sync::LazyLock as Lazy;

use crate::base::lock::Mutex;
use crate::model::clock::{Epoch, Slot, VectorClock};

/// A slot given back by a finished thread.
#[derive(Debug, Clone, Copy)]
struct FreeSlot {
    slot: Slot,
    /// The epoch its owner posted at exit: a spawner whose clock has it may reuse the slot.
    exit_epoch: Epoch,
    /// The owner's epoch when it was gone; the next owner starts after it.
    last_epoch: Epoch,
}

struct SlotTable {
    next: Slot,
    free: Vec<FreeSlot>,
    live: usize,
}

static SLOTS: Lazy<Mutex<SlotTable>> = Lazy::new(|| Mutex::new(SlotTable { next: 0, free: Vec::new(), live: 0 }));

/// How many of the newest free slots a spawn looks at before taking a new one.
const REUSE_SCAN: usize = 8;

/// How many of the oldest free slots it looks at after those.
const OLDEST_SCAN: usize = 64;

/// How many slots a segment can name (`clock::Segment` keeps 16 bits for the slot).
const MAX_SLOTS: Slot = 1 << 16;

/// Slots made before a finished thread's slot is reused even by a thread not ordered after its
/// end (see `take_slot`).
const SLOT_PRESSURE: Slot = 4096;

/// Takes a slot for a new thread; returns it with the first epoch the new thread may use, or
/// `None` when every slot is held by a live thread (the thread then goes unchecked, with a
/// warning).
///
/// A finished thread's slot goes first to a thread ordered after its end (the spawner's clock
/// covers its exit post): the new owner's epochs continue the old owner's, and exactly the
/// right segments are ordered. Threads that end without anyone ordered after them (detached
/// threads never joined) would otherwise hold their slots for good; once `SLOT_PRESSURE` slots
/// exist, such a slot is reused anyway. A thread ordered after the new owner then also
/// counts as ordered after the old owner's segments: a race between a detached thread that
/// ended long ago and code ordered after a thread started since can be missed. That is the
/// price of checking every thread of a long run, however many it spawns; a limit remains only
/// for threads alive at once.
pub fn take_slot(spawner: Option<&VectorClock>) -> Option<(Slot, Epoch)> {
    let mut table = SLOTS.lock();
    if table.next >= SLOT_PRESSURE && !table.free.is_empty() {
        let covered = spawner.and_then(|clock| table.free.iter().rposition(|f| f.exit_epoch <= clock.get(f.slot)));
        let free = table.free.swap_remove(covered.unwrap_or(0));
        table.live += 1;
        return Some((free.slot, free.last_epoch + 1));
    }
    if let Some(clock) = spawner {
        let len = table.free.len();
        let covered = |f: &FreeSlot| f.exit_epoch <= clock.get(f.slot);
        // The newest first (a thread joined just now), then the oldest: the newest may all be
        // of threads (tasks) that ended while the spawner was still spawning and not joined yet.
        let newest = len.saturating_sub(REUSE_SCAN);
        let reusable = match table.free[newest..].iter().rposition(covered) {
            Some(i) => Some(table.free.swap_remove(newest + i)),
            // `remove`, not `swap_remove`: the oldest stay first.
            None => table.free[..newest.min(OLDEST_SCAN)].iter().position(covered).map(|i| table.free.remove(i)),
        };
        if let Some(free) = reusable {
            table.live += 1;
            return Some((free.slot, free.last_epoch + 1));
        }
    }
    if table.next >= MAX_SLOTS {
        drop(table);
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            eprintln!(
                "racer: warning: {MAX_SLOTS} thread slots are in use (threads alive, or finished without a \
                 racer join); threads started from now on are not checked"
            )
        });
        return None;
    }
    let slot = table.next;
    table.next += 1;
    table.live += 1;
    Some((slot, 1))
}

/// Number of threads holding a slot, and the number of slots ever made (the widest a clock can
/// be).
pub fn slot_counts() -> (usize, usize) {
    let table = SLOTS.lock();
    (table.live, table.next as usize)
}

/// Gives back the slot of a thread that is gone, to be reused by a thread whose clock covers
/// the owner's exit. A racer thread that was never joined leaves an exit no later thread
/// covers: its slot is not reused.
pub fn release_slot(slot: Slot, exit_epoch: Option<Epoch>, last_epoch: Epoch) {
    let mut table = SLOTS.lock();
    table.live -= 1;
    if let Some(exit_epoch) = exit_epoch {
        table.free.push(FreeSlot { slot, exit_epoch, last_epoch });
    }
}
