//! The walk last made at each access site after each sync event, per thread: an access site
//! is mostly reached by one call path at one stack depth, and then the next capture there only
//! has to find every stack word that walk read unchanged (independent loads, no unwind rules)
//! to know that a walk would give the same stack again.

use std::cell::UnsafeCell;

use crate::provenance::stack::cfi_walk::{Reads, Start};
use crate::provenance::stack::depot::{StackId, TAG_WORDS};

/// Entries, picked by the site's address bits xor the sync event's word: a loop that
/// alternates between two last sync events before one access (an acquire that joined
/// something new, or not) keeps both walks.
const ENTRIES: usize = 16;

/// Words compared per step of the confirmation, without a branch between them.
const CHUNK: usize = 2;

/// Chunks of stack words an entry holds: a walk that read more than `CHUNKS * CHUNK` words is
/// not remembered (its site walks every time, which is slower, never wrong).
const CHUNKS: usize = 24;

/// What decides a walk's outcome besides the stack words it reads: with all of it alike and
/// those words unchanged, the walk and the stack it gives are the same.
#[derive(Clone, Copy)]
pub struct Walk {
    pub tag: [usize; TAG_WORDS],
    pub start: Start,
    pub high: usize,
    pub limit: usize,
}

/// One remembered walk, flattened at `remember` time into what the confirmation compares:
/// the tag words, the start's `pc` and `sp`, its `bp` under `bp_mask` (all ones when the walk
/// used it, else 0: in code built without frame pointers `bp` is any register's value), the
/// stack's upper bound, the frame limit, and the first `chunks` of `words` (address, value),
/// the stack words the walk read, padded to whole chunks by repeating the last one.
///
/// Invariant: an entry whose `pc` is 0 is empty (no walk starts at address 0), so the
/// all-zero table matches nothing, not even the empty tag of `capture`.
#[derive(Clone, Copy)]
struct LastWalk {
    site: usize,
    sync: usize,
    pc: usize,
    sp: usize,
    bp: usize,
    bp_mask: usize,
    high: usize,
    limit: usize,
    id: StackId,
    chunks: u32,
    words: [[(usize, usize); CHUNK]; CHUNKS],
}

const EMPTY: LastWalk = LastWalk {
    site: 0,
    sync: 0,
    pc: 0,
    sp: 0,
    bp: 0,
    bp_mask: 0,
    high: 0,
    limit: 0,
    id: StackId(0),
    chunks: 0,
    words: [[(0, 0); CHUNK]; CHUNKS],
};

/// The calling thread's table of last walks.
///
/// Single owner: only `unchanged` and `remember` touch it, on the thread that owns it, and
/// neither calls anything that could come back here (no allocation, no lock, no user code)
/// while it holds its reference, so a `&mut` from `remember` never overlaps a `&` from
/// `unchanged`. No `RefCell` flag to set and clear, and no destructor (the entries are plain
/// words), so reaching it is one thread-pointer-relative address.
struct Table(UnsafeCell<[LastWalk; ENTRIES]>);

thread_local! {
    static LAST: Table = const { Table(UnsafeCell::new([EMPTY; ENTRIES])) };
}

/// The entry of a tag: `Location`s are 8-aligned and 24 bytes apart, so the site's bits from
/// the fourth up tell sites apart; the sync word's low bits (the event's id) are mixed in.
#[inline(always)]
fn entry(site: usize, sync: usize) -> usize {
    ((site >> 3) ^ sync) % ENTRIES
}

/// The id of the stack of the last walk at this site after this sync event, if walking from
/// `start` within a stack whose upper bound is `high`, to `limit` words, would give it again.
/// `high` is 0 while the thread's bounds are not yet known, which matches no entry.
#[inline(always)]
pub fn unchanged(site: usize, sync: usize, start: &Start, high: usize, limit: usize) -> Option<StackId> {
    LAST.try_with(|last| {
        // SAFETY: see `Table`: no `&mut` to the table is live while this runs.
        let e = unsafe { &(*last.0.get())[entry(site, sync)] };
        let (pc, sp, bp) = start.registers();
        // Word by word: the caller has just stored the tag as two words, and a 16-byte compare
        // reads them back in one load that waits for both stores to leave the store buffer.
        let same = e.site == site
            && e.sync == sync
            && e.pc == pc
            && e.sp == sp
            && (e.bp ^ bp) & e.bp_mask == 0
            && e.high == high
            && e.limit == limit;
        if !same {
            return None;
        }
        let mut differ = 0;
        for chunk in &e.words[..e.chunks as usize] {
            for &(address, value) in chunk {
                // SAFETY: each address was inside the calling thread's mapped stack, below
                // `high`, when the walk read it, and the bounds are the same (`high` above,
                // the thread's base below never moves).
                differ |= unsafe { std::ptr::read_volatile(address as *const usize) } ^ value;
            }
        }
        (differ == 0).then_some(e.id)
    })
    .ok()
    .flatten()
}

/// Remembers a walk just made, what it read and the id of its stack.
pub fn remember(walk: &Walk, reads: &Reads, id: StackId) {
    let n = reads.words.len();
    if n > CHUNKS * CHUNK {
        return;
    }
    let (pc, sp, bp) = walk.start.registers();
    let mut e = LastWalk {
        site: walk.tag[0],
        sync: walk.tag[1],
        pc,
        sp,
        bp,
        bp_mask: if reads.used_start_bp { usize::MAX } else { 0 },
        high: walk.high,
        limit: walk.limit,
        id,
        chunks: n.div_ceil(CHUNK) as u32,
        words: [[(0, 0); CHUNK]; CHUNKS],
    };
    let last = reads.words.last().copied().unwrap_or((0, 0));
    for (i, slot) in e.words.as_flattened_mut()[..e.chunks as usize * CHUNK].iter_mut().enumerate() {
        *slot = reads.words.get(i).copied().unwrap_or(last);
    }
    let _ = LAST.try_with(|last| {
        // SAFETY: see `Table`: this is the only reference to the table while it is live.
        unsafe { (*last.0.get())[entry(walk.tag[0], walk.tag[1])] = e };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stack word of this test's frame, and a start whose `sp` is its address.
    fn walk_over(site: usize, word: &usize) -> (Walk, Reads) {
        let start = Start::from_registers(0x1000, word as *const usize as usize, 7);
        let walk = Walk { tag: [site, 3], start, high: usize::MAX, limit: 40 };
        let mut reads = Reads::default();
        reads.words.push((word as *const usize as usize, *word));
        (walk, reads)
    }

    fn confirm(walk: &Walk) -> Option<StackId> {
        unchanged(walk.tag[0], walk.tag[1], &walk.start, walk.high, walk.limit)
    }

    #[test]
    fn two_sites_in_one_entry_each_stay_correct() {
        let word = std::hint::black_box(42usize);
        // Sites 16 entries of 8 bytes apart share an entry.
        let (a, a_reads) = walk_over(0x10_0000, &word);
        let (b, b_reads) = walk_over(0x10_0000 + 8 * ENTRIES, &word);
        assert_eq!(entry(a.tag[0], a.tag[1]), entry(b.tag[0], b.tag[1]));
        remember(&a, &a_reads, StackId(5));
        assert_eq!(confirm(&a), Some(StackId(5)));
        assert_eq!(confirm(&b), None, "site b must not get site a's stack");
        remember(&b, &b_reads, StackId(6));
        assert_eq!(confirm(&b), Some(StackId(6)));
        assert_eq!(confirm(&a), None, "site a's walk was replaced, not kept under b's tag");
    }

    #[test]
    fn a_changed_word_or_start_or_tag_is_a_new_walk() {
        let mut word = std::hint::black_box(42usize);
        let word_at = &mut word as *mut usize;
        // SAFETY: `word_at` points to `word`.
        let (walk, reads) = walk_over(0x20_0000, unsafe { &*word_at });
        remember(&walk, &reads, StackId(9));
        assert_eq!(confirm(&walk), Some(StackId(9)));
        let other_sync = Walk { tag: [walk.tag[0], 4], ..walk };
        assert_eq!(confirm(&other_sync), None);
        let (pc, sp, bp) = walk.start.registers();
        let deeper = Walk { start: Start::from_registers(pc, sp - 8, bp), ..walk };
        assert_eq!(confirm(&deeper), None);
        let other_limit = Walk { limit: 41, ..walk };
        assert_eq!(confirm(&other_limit), None);
        // The start's `bp` counts only if the walk used it.
        let other_bp = Walk { start: Start::from_registers(pc, sp, bp + 1), ..walk };
        assert_eq!(confirm(&other_bp), Some(StackId(9)));
        // Another call path at the same depth: the return address the walk read differs.
        // SAFETY: `word_at` points to `word`, not borrowed otherwise here.
        unsafe { std::ptr::write_volatile(word_at, 43) };
        assert_eq!(confirm(&walk), None);
        unsafe { std::ptr::write_volatile(word_at, 42) };
        assert_eq!(confirm(&walk), Some(StackId(9)));
    }

    #[test]
    fn a_used_start_bp_must_match() {
        let word = std::hint::black_box(42usize);
        let (walk, mut reads) = walk_over(0x30_0000, &word);
        reads.used_start_bp = true;
        remember(&walk, &reads, StackId(11));
        assert_eq!(confirm(&walk), Some(StackId(11)));
        let (pc, sp, bp) = walk.start.registers();
        let other_bp = Walk { start: Start::from_registers(pc, sp, bp + 1), ..walk };
        assert_eq!(confirm(&other_bp), None);
    }

    #[test]
    fn every_padded_word_is_compared() {
        let mut words: [usize; 6] = std::hint::black_box([1, 2, 3, 4, 5, 6]);
        let base = words.as_mut_ptr();
        let (walk, _) = walk_over(0x40_0000, &0);
        let mut reads = Reads::default();
        for i in 0..6 {
            reads.words.push((base.wrapping_add(i) as usize, i + 1));
        }
        remember(&walk, &reads, StackId(12));
        assert_eq!(confirm(&walk), Some(StackId(12)));
        for i in 0..6 {
            // SAFETY: `base` points to `words`, 6 words, not borrowed otherwise here.
            unsafe { std::ptr::write_volatile(base.add(i), 100) };
            assert_eq!(confirm(&walk), None, "word {i} changed");
            unsafe { std::ptr::write_volatile(base.add(i), i + 1) };
        }
        assert_eq!(confirm(&walk), Some(StackId(12)));
        std::hint::black_box(&mut words);
    }

    #[test]
    fn the_empty_table_matches_not_even_the_empty_tag() {
        let fresh = std::thread::spawn(|| unchanged(0, 0, &Start::here(), usize::MAX, 48)).join();
        assert_eq!(fresh.unwrap(), None);
    }
}
