//! Out-of-line storage of the cells' policy states: one cache line per state, from per-thread
//! free lists.
//!
//! A `Shared` cell keeps only its seen-access cache and one tagged pointer to its state, so the
//! fast path reads one line per cell (a `Shared` is aligned to a line) and the state is
//! touched on the slow path only. A slot is owned by exactly one cell, like a `Box`, but costs no allocator
//! header: a cell's shadow state is 104 bytes (40 in the cell, 64 here).
//!
//! A slot is a whole cache line, of which Algorithm 4's state uses 56 bytes (two reads inline).
//! Slots used to be 40 bytes (one read inline), and such a state often straddled two lines or
//! shared one with its neighbour's: an extra transfer between cores whenever two threads
//! checked neighbouring cells (a ring's producer and consumer, readers sweeping one array).
//! For the same reason a new chunk hands out its slots five lines apart, so that cells
//! whose states are made one after another (neighbours, mostly) do not get neighbouring lines,
//! which processors fetch in pairs.
//!
//! Slots are made 64 at a time and never returned to the allocator; a freed slot goes on the
//! freeing thread's list (no lock), and a thread's list moves to a global one when it grows
//! long or the thread ends.

use std::cell::RefCell;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;

use crate::base::lock::Mutex;

use crate::model::algorithm::{match_algorithm, Alg3, Alg4, Alg5, AnyPolicy};
use crate::provenance::access::AccessInfo;

/// Storage for one state, whichever algorithm runs it; a free slot links to the next one.
///
/// Its fields size and align it for every state (all at offset 0, `repr(C)`); a state is
/// reached by a cast to its policy type in [`match_algorithm!`]. Aligned to a cache line (see
/// the module's doc), which also leaves a state's address three bits for the algorithm's number.
#[repr(C, align(64))]
#[allow(dead_code)]
union StateSlot {
    alg3: ManuallyDrop<Alg3<AccessInfo>>,
    alg4: ManuallyDrop<Alg4<AccessInfo>>,
    alg5: ManuallyDrop<Alg5<AccessInfo>>,
    next_free: Option<NonNull<StateSlot>>,
}

/// Bytes of one slot.
pub const SLOT_BYTES: usize = std::mem::size_of::<StateSlot>();

/// Where in a slot the cell's first access is kept (see `birth`): its last 8 bytes, after
/// every state.
const BIRTH_OFFSET: usize = SLOT_BYTES - std::mem::size_of::<Option<AccessInfo>>();
const _: () = {
    assert!(std::mem::size_of::<Alg3<AccessInfo>>() <= BIRTH_OFFSET);
    assert!(std::mem::size_of::<Alg4<AccessInfo>>() <= BIRTH_OFFSET);
    assert!(std::mem::size_of::<Alg5<AccessInfo>>() <= BIRTH_OFFSET);
    assert!(BIRTH_OFFSET.is_multiple_of(std::mem::align_of::<AccessInfo>()));
};

const SLOTS_PER_CHUNK: usize = 64;
/// The distance, in slots, between slots a new chunk hands out one after another; prime to
/// `SLOTS_PER_CHUNK`, so that every slot is handed out.
const CHUNK_STRIDE: usize = 5;
/// A thread's free list moves to the global one beyond this many slots.
const MAX_LOCAL_FREE: usize = 4096;

/// A cell's state: a slot pointer tagged with the algorithm's number in its low three bits (3, 4
/// or 5), or 0 for none.
///
/// Invariant: a non-zero `StateBits` points to a live slot holding a state of the tagged
/// algorithm, owned by exactly one cell; it is made by [`new_state`] and ended by
/// [`take_state`].
pub type StateBits = usize;

const TAG_MASK: usize = 0b111;

/// The algorithm of a state: 3, 4 or 5.
pub fn algorithm(bits: StateBits) -> u8 {
    (bits & TAG_MASK) as u8
}

fn slot(bits: StateBits) -> *mut StateSlot {
    (bits & !TAG_MASK) as *mut StateSlot
}

/// A free list of slots, linked through the slots themselves.
struct FreeList {
    head: Option<NonNull<StateSlot>>,
    tail: Option<NonNull<StateSlot>>,
    len: usize,
}

// SAFETY: the slots of a free list are owned by the list alone.
unsafe impl Send for FreeList {}

impl FreeList {
    const fn new() -> FreeList {
        FreeList { head: None, tail: None, len: 0 }
    }

    fn push(&mut self, slot: NonNull<StateSlot>) {
        // SAFETY: a slot being freed is owned by the caller and holds no state.
        unsafe { (*slot.as_ptr()).next_free = self.head };
        if self.head.is_none() {
            self.tail = Some(slot);
        }
        self.head = Some(slot);
        self.len += 1;
    }

    fn pop(&mut self) -> Option<NonNull<StateSlot>> {
        let slot = self.head?;
        // SAFETY: every slot on the list is free, so `next_free` is its live field.
        self.head = unsafe { (*slot.as_ptr()).next_free };
        if self.head.is_none() {
            self.tail = None;
        }
        self.len -= 1;
        Some(slot)
    }

    /// Moves all of `other`'s slots onto this list.
    fn append(&mut self, other: &mut FreeList) {
        let (Some(head), Some(tail)) = (other.head, other.tail) else { return };
        // SAFETY: `tail` is a free slot of `other`.
        unsafe { (*tail.as_ptr()).next_free = self.head };
        if self.head.is_none() {
            self.tail = Some(tail);
        }
        self.head = Some(head);
        self.len += other.len;
        *other = FreeList::new();
    }
}

/// Slots freed by threads whose lists grew long or that ended.
static SHARED_FREE: Mutex<FreeList> = Mutex::new(FreeList::new());

/// The calling thread's free slots; given to `SHARED_FREE` when the thread ends.
struct LocalFree(FreeList);

impl Drop for LocalFree {
    fn drop(&mut self) {
        SHARED_FREE.lock().append(&mut self.0);
    }
}

thread_local! {
    static LOCAL_FREE: RefCell<LocalFree> = const { RefCell::new(LocalFree(FreeList::new())) };
}

fn alloc_slot() -> NonNull<StateSlot> {
    let local = LOCAL_FREE.try_with(|l| l.try_borrow_mut().ok().and_then(|mut l| l.0.pop()));
    if let Ok(Some(slot)) = local {
        return slot;
    }
    let mut shared = SHARED_FREE.lock();
    if let Some(slot) = shared.pop() {
        return slot;
    }
    // A new chunk, never freed: its slots only ever move between free lists and cells.
    let chunk: &'static mut [MaybeUninit<StateSlot>] =
        Box::leak((0..SLOTS_PER_CHUNK).map(|_| MaybeUninit::uninit()).collect());
    // Pushed in reverse, so popped in `handout_order`.
    for i in handout_order().skip(1).rev() {
        shared.push(NonNull::from(&mut chunk[i]).cast());
    }
    NonNull::from(&mut chunk[0]).cast()
}

/// The order in which a new chunk hands out its slots: 0, 5, 10, ... (see `CHUNK_STRIDE`).
fn handout_order() -> impl DoubleEndedIterator<Item = usize> + ExactSizeIterator {
    (0..SLOTS_PER_CHUNK).map(|i| i * CHUNK_STRIDE % SLOTS_PER_CHUNK)
}

fn free_slot(slot: NonNull<StateSlot>) {
    let pushed = LOCAL_FREE.try_with(|l| {
        let Ok(mut l) = l.try_borrow_mut() else { return false };
        l.0.push(slot);
        if l.0.len > MAX_LOCAL_FREE {
            SHARED_FREE.lock().append(&mut l.0);
        }
        true
    });
    if pushed != Ok(true) {
        SHARED_FREE.lock().push(slot);
    }
}

/// A new, empty state of `algorithm` (3, 4 or 5; anything else is 4).
pub fn new_state(algorithm: u8) -> StateBits {
    let slot = alloc_slot().as_ptr();
    // SAFETY: the slot is free, so ours to initialise, and fits every state.
    let tag = match_algorithm!(algorithm, |number, Policy, _Variant| {
        unsafe { slot.cast::<Policy<AccessInfo>>().write(Policy::default()) };
        number
    });
    // SAFETY: as above; the birth's bytes are past every state's (see `BIRTH_OFFSET`).
    unsafe { birth_ptr(slot).write(None) };
    slot as usize | tag as usize
}

fn birth_ptr(slot: *mut StateSlot) -> *mut Option<AccessInfo> {
    slot.cast::<u8>().wrapping_add(BIRTH_OFFSET).cast()
}

/// The first access of the cell whose state `bits` names (`None` until the caller sets it):
/// what a report names as the cell's birth. Kept in the 8 bytes of the slot no state uses.
///
/// # Safety
/// As for [`state_mut`].
#[inline]
pub unsafe fn birth<'a>(bits: StateBits) -> &'a mut Option<AccessInfo> {
    &mut *birth_ptr(slot(bits))
}

/// The state `bits` names, as its policy type `P`.
///
/// # Safety
/// `bits` is a live state (see [`StateBits`]) of the algorithm whose policy type is `P` (as
/// [`match_algorithm!`] gives it for `algorithm(bits)`), and the caller has exclusive access
/// to it (the cell's lock, or `&mut` to the cell) for `'a`.
#[inline]
pub unsafe fn state_mut<'a, P>(bits: StateBits) -> &'a mut P {
    &mut *slot(bits).cast::<P>()
}

/// Starts bringing the slot `bits` points to for writing (a hint: `bits` may be stale).
#[inline(always)]
pub fn prefetch_for_write(bits: StateBits) {
    crate::base::lock::prefetch_for_write(slot(bits));
}

/// Moves the state `bits` names out of its slot and frees the slot.
///
/// # Safety
/// As for [`state_mut`]; `bits` names no state after this.
pub unsafe fn take_state(bits: StateBits) -> AnyPolicy<AccessInfo> {
    let slot = slot(bits);
    let state =
        match_algorithm!(algorithm(bits), |_number, Policy, Variant| Variant(slot.cast::<Policy<AccessInfo>>().read()));
    drop(birth_ptr(slot).read());
    free_slot(NonNull::new_unchecked(slot));
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::algorithm::CellPolicy;

    #[test]
    fn a_slot_is_one_cache_line_and_leaves_three_tag_bits() {
        assert_eq!(SLOT_BYTES, 64);
        assert_eq!(std::mem::align_of::<StateSlot>(), 64);
        assert!(std::mem::align_of::<StateSlot>() > TAG_MASK);
    }

    #[test]
    fn a_chunk_hands_out_every_slot_once_and_never_two_neighbours_in_a_row() {
        let order: Vec<usize> = handout_order().collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..SLOTS_PER_CHUNK).collect::<Vec<_>>());
        assert!(order.windows(2).all(|w| w[0].abs_diff(w[1]) > 1), "{order:?}");
    }

    #[test]
    fn states_keep_their_algorithm_and_slots_are_reused() {
        let bits: Vec<StateBits> = [3, 4, 5].into_iter().map(new_state).collect();
        for (&b, algo) in bits.iter().zip([3, 4, 5]) {
            assert_eq!(algorithm(b), algo);
            // SAFETY: `b` is live, of the policy matched on its tag, and only this test sees it.
            let segments = match_algorithm!(algorithm(b), |_number, Policy, _Variant| unsafe {
                state_mut::<Policy<AccessInfo>>(b)
            }
            .segments());
            assert_eq!(segments, 0);
        }
        let mut freed: Vec<usize> = bits.iter().map(|b| b & !TAG_MASK).collect();
        for b in bits {
            // SAFETY: as above; each is taken once.
            assert_eq!(unsafe { take_state(b) }.algorithm(), algorithm(b));
        }
        let again: Vec<StateBits> = (0..3).map(|_| new_state(4)).collect();
        let mut reused: Vec<usize> = again.iter().map(|b| b & !TAG_MASK).collect();
        freed.sort();
        reused.sort();
        assert_eq!(freed, reused, "this thread's freed slots come back first");
        for b in again {
            // SAFETY: live, taken once.
            unsafe { take_state(b) };
        }
    }
}
