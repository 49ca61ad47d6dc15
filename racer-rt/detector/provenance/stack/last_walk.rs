//! The walk last made at each access site after each sync event, per thread: an access site
//! is mostly reached by one call path at one stack depth, and then the next capture there only
//! has to find every stack word that walk read unchanged (independent loads, no unwind rules)
//! to know that a walk would give the same stack again.

use std::cell::RefCell;

use crate::provenance::stack::cfi_walk::{self, Reads, Start};
use crate::provenance::stack::depot::{StackId, TAG_WORDS};

/// Entries are picked by site and sync event together: a loop that alternates between two
/// last sync events before one access (an acquire that joined something new, or not) keeps
/// both walks.
const ENTRIES: usize = 16;

/// What decides a walk's outcome besides the stack words it reads: with all of it alike
/// (`Start::walks_as`) and those words unchanged, the walk and the stack it gives are the
/// same.
#[derive(Clone, Copy)]
pub struct Walk {
    pub tag: [usize; TAG_WORDS],
    pub start: Start,
    pub high: usize,
    pub limit: usize,
}

struct LastWalk {
    walk: Walk,
    reads: Reads,
    id: StackId,
}

impl LastWalk {
    #[inline(always)]
    fn repeats(&self, walk: &Walk) -> bool {
        let last = &self.walk;
        // Word by word: the caller has just stored the tag as two words, and a 16-byte compare
        // reads them back in one load that waits for both stores to leave the store buffer.
        last.tag[0] == walk.tag[0]
            && last.tag[1] == walk.tag[1]
            && last.high == walk.high
            && last.limit == walk.limit
            && last.start.walks_as(&walk.start, &self.reads)
            && cfi_walk::unchanged(&self.reads)
    }
}

thread_local! {
    static LAST: RefCell<[Option<LastWalk>; ENTRIES]> = const { RefCell::new([const { None }; ENTRIES]) };
}

fn entry(tag: &[usize; TAG_WORDS]) -> usize {
    let key = tag.iter().fold(0u64, |h, &w| (h ^ w as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (key >> (u64::BITS - ENTRIES.trailing_zeros())) as usize
}

/// The id of the stack of the last walk at this site, if walking again would give it.
#[inline(always)]
pub fn unchanged(walk: &Walk) -> Option<StackId> {
    LAST.try_with(|last| {
        let last = last.try_borrow().ok()?;
        let e = last[entry(&walk.tag)].as_ref()?;
        e.repeats(walk).then_some(e.id)
    })
    .ok()
    .flatten()
}

/// Remembers a walk just made, what it read and the id of its stack.
pub fn remember(walk: Walk, reads: Reads, id: StackId) {
    let _ = LAST.try_with(|last| {
        let Ok(mut last) = last.try_borrow_mut() else { return };
        last[entry(&walk.tag)] = Some(LastWalk { walk, reads, id });
    });
}
