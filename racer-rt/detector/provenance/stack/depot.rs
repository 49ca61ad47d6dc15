//! The stack depot: call stacks captured as bare instruction pointers (`capture`), interned so
//! that a stack seen many times is stored once, and resolved to symbols only when a report is
//! made (`resolve`).
//!
//! An entry is tagged with where the stack was captured for an access: the access's
//! `#[track_caller]` site and the thread's last synchronisation event. One 4-byte id then names
//! everything a report prints about an access except its thread, which keeps a remembered
//! access at 16 bytes.

use std::cell::RefCell;
use std::hash::BuildHasher;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::LazyLock as Lazy;

use crate::base::fast_hash::FastBuild;
use crate::base::lock::RwLock;
use crate::base::sharded_map::ShardedMap;
use crate::provenance::sync_event::SyncEventId;

/// Index of an interned, tagged stack in the depot.
///
/// Invariant: every `StackId` handed out indexes `DEPOT.stacks`, which only grows, and each
/// entry there starts with its `TAG_WORDS` tag words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StackId(pub(super) u32);

struct Depot {
    ids: ShardedMap<Box<[usize]>, StackId>,
    stacks: RwLock<Vec<Box<[usize]>>>,
}

static DEPOT: Lazy<Depot> = Lazy::new(|| Depot { ids: ShardedMap::new(), stacks: RwLock::new(Vec::new()) });

/// Words in front of the frames of each depot entry: the access site (a `&'static Location`, or
/// 0) and the last sync event (`SyncEventId::to_tag`).
pub const TAG_WORDS: usize = 2;

static HISTORY: AtomicUsize = AtomicUsize::new(32);

/// Sets how many frames of the user's code a stack keeps (option `history`).
pub fn set_history(frames: usize) {
    HISTORY.store(frames.max(1), Ordering::Relaxed);
}

/// How many frames of the user's code a stack keeps.
pub fn history() -> usize {
    HISTORY.load(Ordering::Relaxed)
}

/// The words of an interned stack: its tag words, then its return addresses.
pub fn words(id: StackId) -> Box<[usize]> {
    DEPOT.stacks.read()[id.0 as usize].clone()
}

/// The access site a stack was captured for.
pub fn site(id: StackId) -> Option<&'static Location<'static>> {
    let word = DEPOT.stacks.read()[id.0 as usize][0];
    // SAFETY: a non-zero site word was made from a `&'static Location` in `capture_access`.
    (word != 0).then(|| unsafe { &*(word as *const Location<'static>) })
}

/// The sync event an access's stack was captured after.
pub fn after_sync(id: StackId) -> Option<SyncEventId> {
    SyncEventId::from_tag(DEPOT.stacks.read()[id.0 as usize][1] & u32::MAX as usize)
}

/// The bit of `capture_access_holding`'s `held` word that marks the access as the cell's
/// creation (a `Shared::new_written`); the other bits are the lock set's id.
pub const CREATION: u32 = 1 << 31;

fn held_word(id: StackId) -> u32 {
    #[cfg(target_pointer_width = "64")]
    return (DEPOT.stacks.read()[id.0 as usize][1] >> 32) as u32;
    #[cfg(not(target_pointer_width = "64"))]
    return 0;
}

/// The set of locks (an id of `held_locks`, 0 for none) the thread held at the access the stack
/// was captured for (see `capture_access_holding`).
pub fn held_locks(id: StackId) -> u32 {
    held_word(id) & !CREATION
}

/// Whether the access the stack was captured for created its cell.
pub fn is_creation(id: StackId) -> bool {
    held_word(id) & CREATION != 0
}

const RECENT: usize = 16;

/// One remembered stack: its hash, its return addresses and its id in the depot.
type RecentStack = Option<(u64, Box<[usize]>, StackId)>;

thread_local! {
    /// Per-thread memo of recently interned stacks, direct-mapped by hash: most accesses come
    /// from a few call paths, and a hit skips the global depot's lock.
    static RECENT_STACKS: RefCell<Vec<RecentStack>> = const { RefCell::new(Vec::new()) };
}

/// Frames hashed to pick a memo entry: enough to tell call paths apart, few enough that hashing
/// costs little next to the walk (a hit is still compared in full).
const MEMO_HASHED_WORDS: usize = TAG_WORDS + 6;

/// Interns a stack (tag words, then return addresses) through the calling thread's memo.
pub fn intern_recent(ips: &[usize]) -> StackId {
    let hash = FastBuild.hash_one((ips.len(), &ips[..ips.len().min(MEMO_HASHED_WORDS)]));
    let memo = RECENT_STACKS.try_with(|recent| {
        let mut recent = recent.try_borrow_mut().ok()?;
        if recent.is_empty() {
            recent.resize(RECENT, None);
        }
        let entry = &mut recent[hash as usize % RECENT];
        match entry {
            Some((h, stored, id)) if *h == hash && same_words(stored, ips) => Some(*id),
            _ => {
                let id = intern(ips);
                *entry = Some((hash, ips.into(), id));
                Some(id)
            }
        }
    });
    memo.ok().flatten().unwrap_or_else(|| intern(ips))
}

/// `a == b`, word by word inline: stacks are a dozen words, too short to pay for `memcmp`'s
/// call and dispatch.
#[inline]
fn same_words(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn intern(ips: &[usize]) -> StackId {
    if let Some(id) = DEPOT.ids.get(ips) {
        return id;
    }
    DEPOT.ids.get_or_insert_with(ips.into(), || {
        let mut stacks = DEPOT.stacks.write();
        stacks.push(ips.into());
        StackId((stacks.len() - 1) as u32)
    })
}

/// Number of distinct stacks stored.
pub fn depot_len() -> usize {
    DEPOT.stacks.read().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_stack_interns_once() {
        assert_eq!(intern_recent(&[1, 2, 3]), intern_recent(&[1, 2, 3]));
        assert_ne!(intern_recent(&[1, 2, 3]), intern_recent(&[1, 2, 4]));
        let id = intern_recent(&[7, 8]);
        assert_eq!(&*DEPOT.stacks.read()[id.0 as usize], &[7, 8]);
    }
}
