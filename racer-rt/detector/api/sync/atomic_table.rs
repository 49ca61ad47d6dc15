//! Where the detector keeps its part of each racer atomic: a table beside the program's memory,
//! keyed by the atomic's address, as ThreadSanitizer keeps its sync objects.
//!
//! racer's atomics are std's size and alignment (a user's `size_of`/`align_of` assertions and
//! hand-computed field offsets hold, and so do those of dependencies built on the loom
//! stand-in), so nothing of the detector fits inside them. An atomic's first operation finds
//! (or makes) its entry here; the entry lives as long as the process, and the next atomic at
//! the same address gets it back, reset by the old atomic's drop (see `forget`).
//!
//! The table is a radix tree over the address: a static first level (bits 30..48), second
//! levels of 2^18 leaves each (bits 12..30), and leaves of 512 lists, one per 8 bytes of the
//! program's memory (bits 3..12); each list holds the entries of the atomics in those 8 bytes
//! (almost always one; two `AtomicU32`s side by side make two). Lookup is four dependent loads
//! of lines that, once made, are only read, so every core keeps its own copy; nothing is ever
//! unlinked, so a lookup needs no lock. Bits above 48 are not in the index: entries there share
//! lists with those below, and the full address tells them apart. Since an address keeps its
//! entry for good, each thread also remembers the entries it looked up last (`RECENT`), and
//! most operations find theirs with one load and a compare.

use std::cell::Cell;
use std::panic::Location;
use std::sync::atomic::{AtomicPtr, Ordering};

use super::atomic::AtomicSync;

const LEAF_BITS: u32 = 9;
const MIDDLE_BITS: u32 = 18;
const TOP_BITS: u32 = 18;
const LEAF_SHIFT: u32 = 3;
const MIDDLE_SHIFT: u32 = LEAF_SHIFT + LEAF_BITS;
const TOP_SHIFT: u32 = MIDDLE_SHIFT + MIDDLE_BITS;

type Leaf = [AtomicPtr<AtomicSync>; 1 << LEAF_BITS];
type Middle = [AtomicPtr<Leaf>; 1 << MIDDLE_BITS];

/// The first level: 2 MiB of zeroes, of which the system backs only the pages a lookup touches.
static TOP: [AtomicPtr<Middle>; 1 << TOP_BITS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 1 << TOP_BITS];

fn index(addr: usize, shift: u32, bits: u32) -> usize {
    (addr >> shift) & ((1 << bits) - 1)
}

/// How many entries a thread remembers (see `RECENT`).
const RECENT_LEN: usize = 256;

thread_local! {
    /// The entries this thread looked up last, direct-mapped by address: `(addr, entry)`, or
    /// `(0, null)`. Valid for good: an address's entry is never unlinked or replaced.
    static RECENT: [Cell<(usize, *const AtomicSync)>; RECENT_LEN] =
        const { [const { Cell::new((0, std::ptr::null())) }; RECENT_LEN] };
}

/// The entry of the atomic at `addr`, made on its first operation (`at`, which a report names
/// as where the atomic was first used).
#[inline]
pub(crate) fn entry(addr: usize, at: &'static Location<'static>) -> &'static AtomicSync {
    if let Some(sync) = recent(addr) {
        return sync;
    }
    let sync = match find(addr) {
        Some(sync) => sync,
        None => insert(addr, at),
    };
    let _ = RECENT.try_with(|recent| recent[place(addr)].set((addr, sync)));
    sync
}

/// `addr`'s place in `RECENT`: neighbouring atomics (a ring's slots) fall in neighbouring places.
#[inline(always)]
fn place(addr: usize) -> usize {
    (addr >> 3) % RECENT_LEN
}

/// The entry of the atomic at `addr` if the calling thread looked it up last at its place in
/// `RECENT`: one load and a compare, and no call (see `AtomicSync::load_quickly`).
#[inline(always)]
pub(crate) fn recent(addr: usize) -> Option<&'static AtomicSync> {
    let recent = RECENT.try_with(|recent| recent[place(addr)].get()).ok()?;
    // An empty place's address is 0, which no atomic has. SAFETY: a table entry, never freed.
    (recent.0 == addr).then(|| unsafe { &*recent.1 })
}

/// The entry of the atomic at `addr`, if it has one.
#[inline]
fn find(addr: usize) -> Option<&'static AtomicSync> {
    let middle = TOP[index(addr, TOP_SHIFT, TOP_BITS)].load(Ordering::Acquire);
    // SAFETY (all three): levels and entries, once published, are never freed or moved.
    let middle = unsafe { middle.as_ref() }?;
    let leaf = unsafe { middle[index(addr, MIDDLE_SHIFT, MIDDLE_BITS)].load(Ordering::Acquire).as_ref() }?;
    let mut next = leaf[index(addr, LEAF_SHIFT, LEAF_BITS)].load(Ordering::Acquire);
    while let Some(sync) = unsafe { next.as_ref() } {
        if sync.addr == addr {
            return Some(sync);
        }
        next = sync.next.load(Ordering::Acquire);
    }
    None
}

/// The level in `slot`, made (zeroed) if there is none yet; of two threads making it at once,
/// one's is kept.
fn level<T>(slot: &AtomicPtr<T>) -> &'static T {
    let present = slot.load(Ordering::Acquire);
    if !present.is_null() {
        // SAFETY: published levels are never freed.
        return unsafe { &*present };
    }
    let layout = std::alloc::Layout::new::<T>();
    // SAFETY: `T` is an array of atomic pointers, for which all zeroes is null everywhere; a
    // large zeroed allocation is backed by the system page by page as it is touched.
    let made = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if made.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    match slot.compare_exchange(std::ptr::null_mut(), made, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: just published, never freed.
        Ok(_) => unsafe { &*made },
        Err(theirs) => {
            // SAFETY: ours was never published; theirs is never freed.
            unsafe { std::alloc::dealloc(made as *mut u8, layout) };
            unsafe { &*theirs }
        }
    }
}

/// Makes the entry of the atomic at `addr`, unless another thread's first operation on it made
/// it meanwhile.
#[cold]
#[inline(never)]
fn insert(addr: usize, at: &'static Location<'static>) -> &'static AtomicSync {
    let middle = level(&TOP[index(addr, TOP_SHIFT, TOP_BITS)]);
    let leaf = level(&middle[index(addr, MIDDLE_SHIFT, MIDDLE_BITS)]);
    let list = &leaf[index(addr, LEAF_SHIFT, LEAF_BITS)];
    let made: &'static AtomicSync = Box::leak(Box::new(AtomicSync::new(addr, at)));
    let mut head = list.load(Ordering::Acquire);
    loop {
        if let Some(theirs) = find(addr) {
            // SAFETY: `made` was never published; it came from `Box::leak` above.
            drop(unsafe { Box::from_raw(made as *const AtomicSync as *mut AtomicSync) });
            return theirs;
        }
        made.next.store(head, Ordering::Relaxed);
        match list.compare_exchange(head, made as *const _ as *mut _, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return made,
            Err(now) => head = now,
        }
    }
}

/// The atomic at `addr` is gone (dropped) or was written through `&mut` (`get_mut`): its entry,
/// if any, forgets the release state, so that the next atomic at that address, or the value
/// written, starts with none. The caller has the atomic exclusively.
#[inline]
pub(crate) fn forget(addr: usize) {
    if let Some(sync) = find(addr) {
        sync.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_has_one_entry_and_neighbours_in_one_word_have_their_own() {
        let words = [0u64; 2];
        let base = words.as_ptr() as usize;
        let at = Location::caller();
        let a = entry(base, at);
        let b = entry(base + 4, at);
        let c = entry(base + 8, at);
        assert!(std::ptr::eq(a, entry(base, at)));
        assert!(!std::ptr::eq(a, b) && !std::ptr::eq(b, c));
        assert!(std::ptr::eq(b, find(base + 4).unwrap()));
        assert!(find(base + 2).is_none());
    }

    #[test]
    fn threads_making_one_entry_at_once_get_the_same_one() {
        let word = Box::new(0u64);
        let addr = &*word as *const u64 as usize;
        let got: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(move || entry(addr, Location::caller()) as *const AtomicSync as usize))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(got.iter().all(|&p| p == got[0]));
    }
}
