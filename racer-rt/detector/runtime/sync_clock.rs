//! The clock a synchronisation object carries, and the events that post to it or wait on it.
//!
//! *Post* (release): the object's clock absorbs the thread's clock, then the thread starts a new
//! segment. *Wait* (acquire): the thread's clock absorbs the object's. Everything a thread did
//! before a post therefore happens before everything another thread does after a wait on the
//! same object.

use crate::base::lock::Mutex;

use crate::model::clock::{Epoch, VectorClock};
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::thread_state::{with_current, ClockName, ThreadState};

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

    /// The clock half of a post by `t`: it absorbs `t`'s clock; the caller ends `t`'s segment.
    pub fn absorb(&self, t: &mut ThreadState) {
        self.clock.lock().join(t.clock());
    }

    /// An acquire by the calling thread.
    pub fn wait(&self, event: SyncEvent) {
        with_current(|t| self.wait_into(t, event));
    }

    pub fn wait_into(&self, t: &mut ThreadState, event: SyncEvent) {
        wait_on(&self.clock.lock(), t, event);
    }
}

/// The clock of a lock, reached only by threads that hold the lock: the lock itself orders
/// every access, so the clock needs no lock of its own (two atomic operations fewer per lock
/// and per unlock than a [`SyncClock`]). Only a thread holding the lock exclusively posts; a
/// reader-writer lock's readers may wait on it together, which only reads it.
///
/// Invariant: as `SyncClock`'s; `last_post` names the poster's clock at the last post made to
/// the clock (see `ThreadState::clock_name`), which the lock's clock then equals: the poster
/// held the lock, so its clock had joined the lock's. Every post happens while the caller
/// holds the lock exclusively, every wait while it holds it in some mode.
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
// lock that owns it: a post excludes every other access, and waits only read.
unsafe impl Sync for HeldClock {}

impl HeldClock {
    pub const fn new() -> HeldClock {
        HeldClock { clock: std::cell::UnsafeCell::new(LockClock { clock: VectorClock::new(), last_post: None }) }
    }

    /// A release by the calling thread that goes on holding the lock in a weaker mode (a
    /// downgrade), or lets go of it at once: its next segment starts now.
    ///
    /// # Safety
    /// The calling thread holds the lock exclusively.
    pub unsafe fn post(&self, event: SyncEvent) {
        // SAFETY: the caller holds the lock exclusively, so nobody else reaches the clock.
        let lock = unsafe { &mut *self.clock.get() };
        with_current(|t| {
            lock.last_post = Some(t.clock_name());
            post_into(&mut lock.clock, t, event);
        });
    }

    /// The release of the lock by the calling thread, with the unlock itself (`unlock`) in
    /// the middle: the clock is published while the lock is held, and the thread's new segment
    /// is due after it let go. It starts when the thread next uses its clock, unless the thread
    /// takes the lock back first with nobody in between (see `wait_from`): a loop that re-takes
    /// a lock nobody else wants stays in one segment, and its accesses hit the cells' caches.
    /// `unlock` is told whether the clock was published (not during thread-local teardown).
    ///
    /// # Safety
    /// The calling thread holds the lock exclusively, and `unlock` lets it go.
    pub unsafe fn post_and_unlock(&self, event: SyncEvent, unlock: impl FnOnce(bool)) {
        let mut unlock = Some(unlock);
        with_current(|t| {
            // SAFETY: the caller holds the lock until `unlock` runs.
            unsafe { self.absorb_from(t) };
            if let Some(unlock) = unlock.take() {
                unlock(true);
            }
            // After the unlock: what only this thread sees, so the next holder need not wait.
            t.note_sync(event);
            t.tick_when_used();
        });
        // During thread-local teardown: unchecked.
        if let Some(unlock) = unlock {
            unlock(false);
        }
    }

    /// The clock half of a release by `t` (see `post_and_unlock`): the lock's clock becomes
    /// `t`'s, which covers it. The caller then ends `t`'s segment with `tick_when_used`.
    ///
    /// # Safety
    /// The calling thread, `t`'s, holds the lock exclusively.
    #[inline]
    unsafe fn absorb_from(&self, t: &mut ThreadState) {
        // SAFETY: the caller holds the lock exclusively.
        let lock = unsafe { &mut *self.clock.get() };
        // The lock's clock is this very clock when the thread posted it last and has not
        // changed it since (a loop that re-takes the lock alone).
        let name = Some(t.clock_name());
        if lock.last_post != name {
            lock.clock.join(t.clock());
            lock.last_post = name;
        }
    }

    /// The acquire of the lock by the calling thread, once it holds it.
    ///
    /// # Safety
    /// The calling thread holds the lock exclusively.
    pub unsafe fn wait(&self, event: SyncEvent) {
        // SAFETY: as required here.
        with_current(|t| unsafe { self.wait_from(t, event, true) });
    }

    /// The acquire of the lock by `t`. With `may_resume`, and if the lock's last post is
    /// `t`'s own that ended its current segment while its next has not started, `t` goes on
    /// in that segment: the lock's clock is `t`'s own at that post, nothing new. The caller
    /// passes `may_resume` only if nobody can have heard of that post since (nobody took the
    /// lock in between in any mode), and `t` holds the lock exclusively.
    ///
    /// # Safety
    /// The calling thread, `t`'s, holds the lock.
    #[inline]
    pub unsafe fn wait_from(&self, t: &mut ThreadState, event: SyncEvent, may_resume: bool) {
        // SAFETY: the caller holds the lock, so no post runs meanwhile.
        let lock = unsafe { &*self.clock.get() };
        if may_resume && lock.last_post.is_some_and(|(posted, _)| t.resume_segment(posted)) {
            t.note_sync(event);
        } else {
            wait_on(&lock.clock, t, event);
        }
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
