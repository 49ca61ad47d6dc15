//! The clock a synchronisation object carries, and the events that post to it or wait on it.
//!
//! *Post* (release): the object's clock absorbs the thread's clock, then the thread starts a new
//! segment. *Wait* (acquire): the thread's clock absorbs the object's. Everything a thread did
//! before a post therefore happens before everything another thread does after a wait on the
//! same object.

use crate::base::lock::Mutex;

use crate::model::clock::{Epoch, VectorClock};
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::thread_state::{with_current, ClockName, ExitPost, ThreadState};

/// A vector clock owned by a synchronisation object (a mutex, a join handle, a message...).
///
/// Invariant: it is the join of the clocks of every post made to it so far.
#[derive(Debug, Default)]
pub struct SyncClock {
    clock: Mutex<VectorClock>,
}

impl SyncClock {
    pub const fn new() -> SyncClock {
        SyncClock { clock: Mutex::new(VectorClock::new()) }
    }

    /// A release by the calling thread. Returns the epoch that was posted.
    pub fn post(&self, event: SyncEvent) -> Option<Epoch> {
        with_current(|t| self.post_from(t, event))
    }

    pub fn post_from(&self, t: &mut ThreadState, event: SyncEvent) -> Epoch {
        post_into(&mut self.clock.lock(), t, event)
    }

    /// An acquire by the calling thread.
    pub fn wait(&self, event: SyncEvent) {
        with_current(|t| self.wait_into(t, event));
    }

    pub fn wait_into(&self, t: &mut ThreadState, event: SyncEvent) {
        wait_on(&self.clock.lock(), t, event);
    }

}

impl ExitPost for SyncClock {
    fn post_exit(&self, t: &mut ThreadState, event: SyncEvent) -> Epoch {
        self.post_from(t, event)
    }
}

/// The clock of a lock, read and written only by the thread that holds the lock: the lock
/// itself orders every access, so the clock needs no lock of its own (two atomic operations
/// fewer per lock and per unlock than a [`SyncClock`]).
///
/// Invariant: as `SyncClock`'s; `last_post` names the poster's clock at the last post made to
/// the clock (see `ThreadState::clock_name`), which the lock's clock then equals: the poster
/// held the lock, so its clock had joined the lock's. Every access happens while the caller
/// holds the lock whose clock this is.
#[derive(Debug, Default)]
pub struct HeldClock {
    clock: std::cell::UnsafeCell<LockClock>,
}

#[derive(Debug, Default)]
struct LockClock {
    clock: VectorClock,
    /// `None` before the first post.
    last_post: Option<ClockName>,
}

// SAFETY: the clock is reached only through the unsafe methods below, whose callers hold the
// lock that owns it, so no two threads ever touch it at once.
unsafe impl Sync for HeldClock {}

impl HeldClock {
    pub const fn new() -> HeldClock {
        HeldClock { clock: std::cell::UnsafeCell::new(LockClock { clock: VectorClock::new(), last_post: None }) }
    }

    /// The release of the lock by the calling thread, before it lets go.
    ///
    /// # Safety
    /// The calling thread holds the lock whose clock this is.
    pub unsafe fn post(&self, event: SyncEvent) {
        // SAFETY: the caller holds the lock, so nobody else reaches the clock.
        let lock = unsafe { &mut *self.clock.get() };
        with_current(|t| {
            lock.last_post = Some(t.clock_name());
            post_into(&mut lock.clock, t, event);
        });
    }

    /// The release of the lock by the calling thread, with the unlock itself (`unlock`) in
    /// the middle: the clock is published while the lock is held, and the thread's new segment
    /// is due after it let go. It starts when the thread next uses its clock, unless the thread
    /// takes the lock back first with nobody in between (see `wait`): a loop that re-takes a
    /// lock nobody else wants stays in one segment, and its accesses hit the cells' caches.
    ///
    /// # Safety
    /// The calling thread holds the lock whose clock this is, and `unlock` lets it go.
    pub unsafe fn post_and_unlock(&self, event: SyncEvent, unlock: impl FnOnce()) {
        let mut unlock = Some(unlock);
        with_current(|t| {
            // SAFETY: the caller holds the lock until `unlock` runs.
            let lock = unsafe { &mut *self.clock.get() };
            // The lock's clock is this very clock when the thread posted it last and has not
            // changed it since (a loop that re-takes the lock alone).
            let name = Some(t.clock_name());
            if lock.last_post != name {
                lock.clock.join(t.clock());
                lock.last_post = name;
            }
            if let Some(unlock) = unlock.take() {
                unlock();
            }
            t.note_sync(event);
            t.tick_when_used();
        });
        // During thread-local teardown: unchecked.
        if let Some(unlock) = unlock {
            unlock();
        }
    }

    /// The acquire of the lock by the calling thread, once it holds it.
    ///
    /// # Safety
    /// The calling thread holds the lock whose clock this is.
    pub unsafe fn wait(&self, event: SyncEvent) {
        // SAFETY: as in `post`.
        let lock = unsafe { &*self.clock.get() };
        with_current(|t| {
            // The thread's own post, that nobody took: the lock's clock is the thread's own
            // at that post, and nothing new.
            if lock.last_post.is_some_and(|(posted, _)| t.resume_segment(posted)) {
                t.note_sync(event);
            } else {
                wait_on(&lock.clock, t, event);
            }
        });
    }
}

/// A post of thread `t` into an object's `clock`: the clock absorbs the thread's, then the
/// thread starts a new segment. Returns the epoch posted.
fn post_into(clock: &mut VectorClock, t: &mut ThreadState, event: SyncEvent) -> Epoch {
    let posted = t.segment().epoch();
    clock.join(t.clock());
    t.note_sync(event);
    t.tick();
    posted
}

/// A wait of thread `t` on an object's `clock`: the thread's clock absorbs it.
fn wait_on(clock: &VectorClock, t: &mut ThreadState, event: SyncEvent) {
    t.clock_mut().join(clock);
    t.note_sync(event);
}
