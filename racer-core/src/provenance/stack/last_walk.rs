//! The walk last made at each access site, per thread: an access site is mostly reached by
//! one call path at one stack depth, and then the next capture there only has to find every
//! stack word that walk read unchanged (independent loads, no unwind rules) to know that a walk
//! would give the same stack again.

use std::cell::RefCell;

use crate::provenance::stack::depot::{StackId, TAG_WORDS};
use crate::provenance::stack::cfi_walk::{self, Reads, Start};

const ENTRIES: usize = 8;

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
    fn repeats(&self, walk: &Walk) -> bool {
        let last = &self.walk;
        last.tag == walk.tag
            && last.high == walk.high
            && last.limit == walk.limit
            && last.start.walks_as(&walk.start, &self.reads)
            && cfi_walk::unchanged(&self.reads)
    }
}

thread_local! {
    static LAST: RefCell<[Option<LastWalk>; ENTRIES]> = const { RefCell::new([const { None }; ENTRIES]) };
}

fn entry(site: usize) -> usize {
    (site as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> (usize::BITS - 3)
}

/// The id of the stack of the last walk at this site, if walking again would give it.
#[inline]
pub fn unchanged(walk: &Walk) -> Option<StackId> {
    LAST.try_with(|last| {
        let last = last.try_borrow().ok()?;
        let e = last[entry(walk.tag[0])].as_ref()?;
        e.repeats(walk).then_some(e.id)
    })
    .ok()
    .flatten()
}

/// Remembers a walk just made, what it read and the id of its stack.
pub fn remember(walk: Walk, reads: Reads, id: StackId) {
    let _ = LAST.try_with(|last| {
        let Ok(mut last) = last.try_borrow_mut() else { return };
        last[entry(walk.tag[0])] = Some(LastWalk { walk, reads, id });
    });
}
