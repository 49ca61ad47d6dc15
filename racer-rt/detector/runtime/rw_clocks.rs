//! The clocks of a reader-writer lock: racer's `RwLock`, and any foreign `lock_api` lock (whose
//! mutexes use the exclusive half only).
//!
//! An exclusive unlock posts into `written`, which every lock waits on; a shared unlock posts
//! into `read`, which only exclusive locks wait on. So a writer's section happens before every
//! later section, a reader's before the next writer's, and two read sections stay parallel.
//!
//! As with a `Mutex`, a thread that takes the lock back with nobody in between hearing of its
//! unlock's post goes on in the segment that post ended, so that a loop re-taking the lock hits
//! the cells' caches. A writer's post is heard by every later lock: readers too, who do not post
//! to `written`, so they are counted by their posts to `read`. A reader's post is heard only by
//! the next exclusive lock, which gives the lock a new `generation`; and a reader whose clock
//! has not changed since its last post to the same `read` has nothing new to post.

use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::base::unique_id;

use crate::provenance::sync_event::SyncEvent;
use crate::runtime::sync_clock::{HeldClock, SyncClock};
use crate::runtime::thread_state::{with_current, ClockName};

/// A reader-writer lock's two clocks.
///
/// Invariant: `written` is the join of the clocks of every exclusive unlock (and downgrade) so
/// far, `read` the join of every shared unlock's, and `read_posts` counts those shared unlocks.
/// `written` covers `read` as it was after `covered` shared unlocks (set by exclusive unlocks).
/// `written` and `covered` change only under the lock held exclusively; `read` and
/// `read_posts` change only under the lock held shared (readers post together, so `read` has a
/// lock of its own). `generation` is 0 until the lock is first taken, then a value no other
/// lock and no other exclusive hold of this one ever had: it changes at every exclusive lock
/// and upgrade, and only then.
#[derive(Debug, Default)]
pub struct RwClocks {
    written: HeldClock,
    covered: UnsafeCell<u64>,
    read: SyncClock,
    read_posts: AtomicU64,
    generation: AtomicU64,
}

thread_local! {
    /// The calling thread's last shared unlock: the lock's `generation` then, and the thread's
    /// clock that it posted (see `ThreadState::clock_name`).
    static LAST_SHARED_POST: Cell<Option<(u64, ClockName)>> = const { Cell::new(None) };
}

/// Exchanges the calling thread's last shared unlock with `other` (a task's, see `api::task`).
pub fn swap_last_shared_post(other: &mut Option<(u64, ClockName)>) {
    let _ = LAST_SHARED_POST.try_with(|last| *other = last.replace(*other));
}

// SAFETY: `covered` is reached only through the unsafe methods below, whose callers hold the
// lock exclusively; the rest is `Sync`.
unsafe impl Sync for RwClocks {}

impl RwClocks {
    pub const fn new() -> RwClocks {
        RwClocks {
            written: HeldClock::new(),
            covered: UnsafeCell::new(0),
            read: SyncClock::new(),
            read_posts: AtomicU64::new(0),
            generation: AtomicU64::new(0),
        }
    }

    /// The calling thread has just taken the lock exclusively: it waits on `written`, and on
    /// `read` unless `written` already covers every shared unlock. With no shared unlock since
    /// the lock's last exclusive one, a thread whose own that was goes on in its segment.
    ///
    /// # Safety
    /// The calling thread holds the lock exclusively.
    pub unsafe fn wait_exclusive(&self, event: SyncEvent) {
        // Every reader's post so far is heard now.
        self.generation.store(unique_id::fresh(), Relaxed);
        with_current(|t| {
            // Shared unlocks happen before this exclusive lock, so the count is settled.
            // SAFETY: the caller holds the lock exclusively.
            let no_reader_since = unsafe { *self.covered.get() } == self.read_posts.load(Relaxed);
            // SAFETY: as above.
            unsafe { self.written.wait_from(t, event, no_reader_since) };
            if !no_reader_since {
                self.read.wait_into(t, event);
            }
        });
    }

    /// The calling thread has just taken the lock shared: it waits on `written`, unless its
    /// last post was a shared unlock of this lock with no exclusive lock since, and its segment
    /// has not started since: then nobody heard of that post, `written` has not changed since
    /// the thread waited on it, and the thread goes on in the segment the post ended.
    ///
    /// # Safety
    /// The calling thread holds the lock shared.
    pub unsafe fn wait_shared(&self, event: SyncEvent) {
        let generation = self.generation_of_shared_hold();
        with_current(|t| {
            let last = LAST_SHARED_POST.with(Cell::get);
            if last.is_some_and(|(g, (posted, _))| g == generation && t.resume_segment(posted)) {
                t.note_sync(event);
            } else {
                // SAFETY: as required here. (Never resumed here: the lock's last exclusive
                // post may be this thread's, but other readers can hear of it meanwhile.)
                unsafe { self.written.wait_from(t, event, false) };
            }
        });
    }

    /// The generation while the calling thread holds the lock shared: set on the lock's first
    /// use if no exclusive lock came first, so that it names this lock and no other.
    fn generation_of_shared_hold(&self) -> u64 {
        let generation = self.generation.load(Relaxed);
        if generation != 0 {
            return generation;
        }
        // Readers may race to set it; an exclusive lock cannot come in between.
        match self.generation.compare_exchange(0, unique_id::fresh(), Relaxed, Relaxed) {
            Ok(_) => self.generation.load(Relaxed),
            Err(set) => set,
        }
    }

    /// The calling thread lets go of the lock held exclusively with `unlock`, posting into
    /// `written` first; its next segment is due (see `HeldClock::post_and_unlock`).
    ///
    /// # Safety
    /// The calling thread holds the lock exclusively, and `unlock` lets it go.
    pub unsafe fn post_exclusive_and_unlock(&self, event: SyncEvent, unlock: impl FnOnce()) {
        // SAFETY: as required here.
        unsafe {
            self.written.post_and_unlock(event, |posted| {
                // The thread's clock covered every shared unlock since its lock (or upgrade),
                // and `written` now covers its clock. (Only then: a post that did not happen,
                // late in the thread's teardown, leaves `covered` as it was, and the next
                // writer joins `read` itself.) The lock is still held.
                if posted {
                    *self.covered.get() = self.read_posts.load(Relaxed);
                }
                unlock();
            })
        };
    }

    /// The calling thread is about to let go of the lock held shared: it posts into `read`,
    /// unless its clock is the one it posted there last (with no exclusive lock since), and
    /// its next segment is due (see `wait_shared`).
    pub fn post_shared(&self, event: SyncEvent) {
        let generation = self.generation.load(Relaxed);
        let unchanged = with_current(|t| {
            let name = t.clock_name();
            let unchanged = LAST_SHARED_POST.with(Cell::get) == Some((generation, name));
            if !unchanged {
                self.read.absorb(t);
            }
            t.note_sync(event);
            t.tick_when_used();
            LAST_SHARED_POST.with(|last| last.set(Some((generation, name))));
            unchanged
        });
        if unchanged != Some(true) {
            // Before the unlock, which orders it before the next exclusive lock.
            self.read_posts.fetch_add(1, Relaxed);
        }
    }

    /// The calling thread's shared (or upgradable) hold has just become exclusive: every
    /// reader's section so far happens before what follows. (No writer came in between: the
    /// hold kept them out.) Its exclusive unlock relies on this wait (see
    /// `post_exclusive_and_unlock`).
    pub fn upgraded(&self, event: SyncEvent) {
        self.generation.store(unique_id::fresh(), Relaxed);
        self.read.wait(event);
    }

    /// The calling thread's exclusive hold is about to become shared: the section so far
    /// happens before every later reader, and the thread starts a new segment now.
    ///
    /// # Safety
    /// The calling thread holds the lock exclusively.
    pub unsafe fn downgrading(&self, event: SyncEvent) {
        // SAFETY: as required here.
        unsafe { self.written.post(event) };
    }
}
