//! Process-unique ids: each call returns a `u64` no call in any thread ever returned or will
//! return, never 0. For names that must not repeat over the process's life: an atomic's
//! release-clock stamps, a reader-writer lock's generations.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Ids handed out to a thread at a time, so that a fresh id rarely touches shared state.
const BLOCK: u64 = 1 << 12;
/// The next block; block 0 is never handed out, so no id is 0.
static NEXT_BLOCK: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The next id of this thread's block and the block's end.
    static BLOCK_LEFT: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

fn new_block() -> u64 {
    NEXT_BLOCK.fetch_add(1, Relaxed) * BLOCK
}

/// A fresh id (see the module's doc).
#[inline]
pub fn fresh() -> u64 {
    BLOCK_LEFT
        .try_with(|b| {
            let (mut next, mut end) = b.get();
            if next == end {
                next = new_block();
                end = next + BLOCK;
            }
            b.set((next + 1, end));
            next
        })
        // During thread-local teardown: a block of its own.
        .unwrap_or_else(|_| new_block())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_never_repeat_across_threads_and_are_never_zero() {
        let ids: Vec<u64> = (0..4)
            .map(|_| std::thread::spawn(|| (0..3 * BLOCK).map(|_| fresh()).collect::<Vec<_>>()))
            .flat_map(|h| h.join().unwrap())
            .collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len());
        assert!(!ids.contains(&0));
    }
}
