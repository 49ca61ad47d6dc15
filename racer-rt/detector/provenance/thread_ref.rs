//! Thread handles for access records: four bytes that name a thread's [`ThreadInfo`] for as
//! long as any record, or the thread itself, holds one.
//!
//! An `Arc<ThreadInfo>` in every record would cost eight bytes per remembered access and keep
//! the thread's info alive just the same; a counted index into a global table costs four, so a
//! remembered access fits in 16 bytes. Entries of threads no record names any more are reused,
//! so the table is as large as the number of threads still named, not the number ever spawned.

use std::cell::RefCell;
use std::num::NonZeroU32;
use std::ptr;
use std::sync::atomic::{fence, AtomicPtr, AtomicU32, Ordering};
use std::sync::Arc;

use crate::base::lock::Mutex;

use crate::provenance::atomic_log::{StoreLog, StoreNote};
use crate::provenance::stack::StackId;

/// Who a thread is, for reports. Shared by every access record the thread leaves behind.
#[derive(Debug)]
pub struct ThreadInfo {
    /// Unique over the process, never reused: T1, T2, ...
    pub serial: u64,
    pub name: Option<String>,
    /// Stack of the `spawn` call that made the thread (threads racer spawned only).
    pub spawned_at: Option<StackId>,
    /// A thread racer did not start and that is not the process's main thread (a test
    /// harness's, a foreign pool's): how it synchronises with other threads is invisible.
    pub foreign: bool,
    /// An async task spawned through racer (`racer::tokio`): a logical thread that worker
    /// threads take turns running.
    pub task: bool,
    /// How reports name the thread (or task) that spawned this one (`thread 'main'`, `task 4`).
    pub spawned_by: Option<String>,
}

impl ThreadInfo {
    /// How reports name the thread: `thread 'name'`, `thread T4`, `task 'name'`, `task 7`.
    pub fn label(&self) -> String {
        crate::report::actor_label(&self.name, self.serial, self.task)
    }
}

/// A counted handle on one thread's info.
///
/// Invariant: the entry a live `ThreadRef` names has `refs` equal to the number of live
/// handles on it, plus the drops of handles still pending (see `PendingDrops`), plus the
/// handles its thread holds in reserve (see `keep_reserve`; the thread's drops of its own
/// handles return there), and holds that thread's info; an entry with none of these is on the
/// free list.
#[derive(Debug, PartialEq, Eq)]
pub struct ThreadRef(NonZeroU32);

/// Alone on its cache line: a thread's records are made and dropped by that thread mostly, and
/// its count must not share a line with another thread's.
#[repr(align(64))]
struct Entry {
    refs: AtomicU32,
    info: Mutex<Option<Arc<ThreadInfo>>>,
    /// The thread's last stores to racer atomics (see `atomic_log`), made on its first such
    /// store and kept with the entry (cleared when the entry names a new thread).
    stores: AtomicPtr<StoreLog>,
}

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// `CHUNKS * CHUNK` covers every `u32`: the table never runs out before memory does.
const CHUNKS: usize = 1 << (32 - CHUNK_BITS);

/// Chunks of entries, allocated as the table grows and never freed, so an entry's address is
/// stable and a handle is looked up without a lock.
static CHUNK_TABLE: [AtomicPtr<Entry>; CHUNKS] = [const { AtomicPtr::new(ptr::null_mut()) }; CHUNKS];

struct Allocator {
    /// Entries ever used; index 0 is never used (handles are non-zero).
    next: u32,
    free: Vec<u32>,
}

static ALLOCATOR: Mutex<Allocator> = Mutex::new(Allocator { next: 1, free: Vec::new() });

fn entry(index: u32) -> &'static Entry {
    let chunk = CHUNK_TABLE[(index >> CHUNK_BITS) as usize].load(Ordering::Acquire);
    debug_assert!(!chunk.is_null());
    // SAFETY: a handle's index was allocated below, after its chunk was published; chunks are
    // never freed and hold `CHUNK` entries.
    unsafe { &*chunk.add(index as usize & (CHUNK - 1)) }
}

impl ThreadRef {
    /// The first handle on a thread's info.
    pub fn new(info: Arc<ThreadInfo>) -> ThreadRef {
        let index = {
            let mut alloc = ALLOCATOR.lock();
            match alloc.free.pop() {
                Some(index) => index,
                None => {
                    let index = alloc.next;
                    alloc.next =
                        index.checked_add(1).expect("racer: more than 4 billion threads named by access records");
                    let slot = &CHUNK_TABLE[(index >> CHUNK_BITS) as usize];
                    if slot.load(Ordering::Relaxed).is_null() {
                        let chunk: Box<[Entry]> = (0..CHUNK)
                            .map(|_| Entry {
                                refs: AtomicU32::new(0),
                                info: Mutex::new(None),
                                stores: AtomicPtr::new(ptr::null_mut()),
                            })
                            .collect();
                        slot.store(Box::leak(chunk).as_mut_ptr(), Ordering::Release);
                    }
                    index
                }
            }
        };
        let e = entry(index);
        let stores = e.stores.load(Ordering::Acquire);
        if !stores.is_null() {
            // SAFETY: a published log is never freed (see `note_store`).
            unsafe { (*stores).clear() };
        }
        *e.info.lock() = Some(info);
        e.refs.store(1, Ordering::Release);
        ThreadRef(NonZeroU32::new(index).expect("index 0 is never allocated"))
    }

    /// The thread's info.
    pub fn info(&self) -> Arc<ThreadInfo> {
        entry(self.0.get()).info.lock().clone().expect("a live handle's entry holds its info")
    }

    /// Notes a store (or RMW) of the thread this handle names, made by that thread under the
    /// atomic's lock.
    #[inline]
    pub fn note_store(&self, store: StoreNote) {
        let e = entry(self.0.get());
        let mut log = e.stores.load(Ordering::Acquire);
        if log.is_null() {
            log = new_store_log(e);
        }
        // SAFETY: a published log is never freed.
        unsafe { (*log).note(store) };
    }

    /// The last stores to racer atomics of the thread this handle names, as far as they read
    /// whole while it may still be storing.
    pub fn stores(&self) -> Vec<StoreNote> {
        let log = entry(self.0.get()).stores.load(Ordering::Acquire);
        // SAFETY: as above.
        if log.is_null() {
            Vec::new()
        } else {
            unsafe { (*log).entries() }
        }
    }
}

/// The store log of entry `e`, made by its thread's first store; never freed (entries are not
/// either), and reused by the threads the entry names later.
#[cold]
fn new_store_log(e: &Entry) -> *mut StoreLog {
    let log = Box::into_raw(Box::new(StoreLog::new()));
    match e.stores.compare_exchange(ptr::null_mut(), log, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => log,
        Err(theirs) => {
            // SAFETY: ours, never published.
            drop(unsafe { Box::from_raw(log) });
            theirs
        }
    }
}

impl ThreadRef {
    /// A copy that names the thread without counting as a handle (clones of it count as
    /// usual).
    ///
    /// # Safety
    /// The copy must never be dropped (keep it in a `ManuallyDrop`) and must not outlive `self`.
    #[inline]
    pub unsafe fn uncounted(&self) -> ThreadRef {
        ThreadRef(self.0)
    }
}

impl Clone for ThreadRef {
    #[inline]
    fn clone(&self) -> ThreadRef {
        let index = self.0.get();
        // A thread's own records are most of the handles it makes: those come from its
        // reserve, counted in advance, without a locked instruction each.
        let from_reserve = RESERVE
            .try_with(|r| {
                let (i, left) = r.get();
                if i != index {
                    return false;
                }
                if left == 0 {
                    entry(index).refs.fetch_add(RESERVE_BATCH, Ordering::Relaxed);
                    r.set((i, RESERVE_BATCH - 1));
                } else {
                    r.set((i, left - 1));
                }
                true
            })
            .unwrap_or(false);
        if !from_reserve {
            // Relaxed, as for `Arc::clone`: the new handle is made from an existing one.
            entry(index).refs.fetch_add(1, Ordering::Relaxed);
        }
        ThreadRef(self.0)
    }

    /// A handle replaced by one on the same entry: the count stays as it is.
    #[inline]
    fn clone_from(&mut self, source: &ThreadRef) {
        if self.0 != source.0 {
            *self = source.clone();
        }
    }
}

/// Handles counted in advance in `refs` and not yet made.
const RESERVE_BATCH: u32 = 1024;
/// The most a reserve holds from handles dropped into it.
const MAX_RESERVE: u32 = 2 * RESERVE_BATCH;

thread_local! {
    /// `(entry, handles left)`: the calling thread's reserve of handles on its own entry
    /// (see `keep_reserve`). Nothing to destroy, so it outlives every other thread-local.
    static RESERVE: std::cell::Cell<(u32, u32)> = const { std::cell::Cell::new((0, 0)) };
}

impl ThreadRef {
    /// Makes the calling thread's clones of this handle come from a reserve counted in
    /// advance, `RESERVE_BATCH` at a time, until `drop_reserve`. For the thread this handle
    /// names, which clones it for every access it records.
    pub fn keep_reserve(&self) {
        let index = self.0.get();
        entry(index).refs.fetch_add(RESERVE_BATCH, Ordering::Relaxed);
        let _ = RESERVE.try_with(|r| {
            let (old, left) = r.replace((index, RESERVE_BATCH));
            if left > 0 {
                release(old, left);
            }
        });
    }

    /// Gives back what is left of the calling thread's reserve (see `keep_reserve`).
    pub fn drop_reserve() {
        let _ = RESERVE.try_with(|r| {
            let (index, left) = r.replace((0, 0));
            if left > 0 {
                release(index, left);
            }
        });
    }
}

impl Drop for ThreadRef {
    fn drop(&mut self) {
        let index = self.0.get();
        // A handle on the calling thread's own entry goes back to its reserve: no count changes.
        let reserved = RESERVE
            .try_with(|r| {
                let (i, left) = r.get();
                let kept = i == index && left < MAX_RESERVE;
                if kept {
                    r.set((i, left + 1));
                }
                kept
            })
            .unwrap_or(false);
        if reserved {
            return;
        }
        let deferred = PENDING_DROPS
            .try_with(|pending| {
                let Ok(mut pending) = pending.try_borrow_mut() else { return false };
                pending.add(index);
                true
            })
            .unwrap_or(false);
        if !deferred {
            release(index, 1);
        }
    }
}

/// Drops `n` handles on entry `index`, freeing it with the last.
fn release(index: u32, n: u32) {
    let e = entry(index);
    if e.refs.fetch_sub(n, Ordering::Release) != n {
        return;
    }
    // As for `Arc`'s drop: every other handle's last use happened before the entry is reused.
    fence(Ordering::Acquire);
    let info = e.info.lock().take();
    ALLOCATOR.lock().free.push(index);
    drop(info);
}

/// Handle drops made by one thread and not yet applied to the counts, as (entry, drops) pairs.
/// A record dropped on one core mostly names a thread that runs on another (the previous
/// writer of a cell), whose count would otherwise move between the cores' caches on every drop;
/// here the drops of the few threads a thread meets add up, and each count changes once per
/// batch.
struct PendingDrops {
    entries: [(u32, u32); PENDING_ENTRIES],
    len: usize,
}

const PENDING_ENTRIES: usize = 8;
/// Drops on one entry after which the batch is applied anyway, so a finished thread's entry is
/// freed in good time.
const MAX_PENDING: u32 = 1024;

impl PendingDrops {
    fn add(&mut self, index: u32) {
        let pending = &mut self.entries[..self.len];
        if let Some(e) = pending.iter_mut().find(|e| e.0 == index) {
            e.1 += 1;
            if e.1 >= MAX_PENDING {
                self.apply();
            }
            return;
        }
        if self.len == PENDING_ENTRIES {
            self.apply();
        }
        self.entries[self.len] = (index, 1);
        self.len += 1;
    }

    fn apply(&mut self) {
        for &(index, n) in &self.entries[..self.len] {
            release(index, n);
        }
        self.len = 0;
    }
}

impl Drop for PendingDrops {
    fn drop(&mut self) {
        self.apply();
    }
}

thread_local! {
    static PENDING_DROPS: RefCell<PendingDrops> = const { RefCell::new(PendingDrops { entries: [(0, 0); PENDING_ENTRIES], len: 0 }) };
}

/// Applies the calling thread's pending drops now.
#[cfg(test)]
fn apply_pending_drops() {
    PENDING_DROPS.with(|p| p.borrow_mut().apply());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(serial: u64) -> Arc<ThreadInfo> {
        Arc::new(ThreadInfo { serial, name: None, spawned_at: None, foreign: false, task: false, spawned_by: None })
    }

    #[test]
    fn a_handle_names_its_thread_until_the_last_copy_goes() {
        let a = ThreadRef::new(info(1001));
        let b = a.clone();
        drop(a);
        assert_eq!(b.info().serial, 1001);
        let c = ThreadRef::new(info(1002));
        assert_ne!(b, c);
        assert_eq!(c.info().serial, 1002);
    }

    #[test]
    fn a_threads_own_handles_come_from_and_go_back_to_its_reserve() {
        std::thread::spawn(|| {
            let own = ThreadRef::new(info(7001));
            own.keep_reserve();
            let refs = || entry(own.0.get()).refs.load(Ordering::Relaxed);
            assert_eq!(refs(), 1 + RESERVE_BATCH);
            let clones: Vec<ThreadRef> = (0..10).map(|_| own.clone()).collect();
            assert_eq!(refs(), 1 + RESERVE_BATCH, "clones are taken from the reserve");
            drop(clones);
            assert_eq!(refs(), 1 + RESERVE_BATCH, "drops go back to it");
            ThreadRef::drop_reserve();
            assert_eq!(refs(), 1, "what is left of the reserve is given back");
            assert_eq!(own.info().serial, 7001);
        })
        .join()
        .unwrap();
    }

    /// What a cell's state does when a write replaces the last write (`Alg4::record_write`):
    /// a handle on the same entry keeps the counts as they are, one on another moves them.
    #[test]
    fn a_handle_replaced_by_one_on_the_same_entry_changes_no_count() {
        let (a, b) = (ThreadRef::new(info(8001)), ThreadRef::new(info(8002)));
        let refs = |h: &ThreadRef| entry(h.0.get()).refs.load(Ordering::Relaxed);
        let mut kept = a.clone();
        kept.clone_from(&a);
        apply_pending_drops();
        assert_eq!((refs(&a), refs(&b)), (2, 1));
        kept.clone_from(&b);
        apply_pending_drops();
        assert_eq!((refs(&a), refs(&b)), (1, 2));
        assert_eq!(kept.info().serial, 8002);
    }

    #[test]
    fn entries_are_reused_once_unnamed() {
        const N: usize = 1000;
        let first: Vec<ThreadRef> = (0..N as u64).map(|i| ThreadRef::new(info(3000 + i))).collect();
        drop(first);
        apply_pending_drops();
        let grown_before = ALLOCATOR.lock().next;
        let again: Vec<ThreadRef> = (0..N as u64).map(|i| ThreadRef::new(info(5000 + i))).collect();
        // Other tests of this crate may name a few threads meanwhile, never hundreds.
        assert!(ALLOCATOR.lock().next - grown_before < N as u32 / 2, "freed entries are handed out again");
        assert_eq!(again[N - 1].info().serial, 5000 + N as u64 - 1);
        assert_eq!(std::mem::size_of::<Option<ThreadRef>>(), 4);
    }
}
