//! The clock a synchronisation object carries, and the events that post to it or wait on it.
//!
//! *Post* (release): the object's clock absorbs the thread's clock, then the thread starts a new
//! segment. *Wait* (acquire): the thread's clock absorbs the object's. Everything a thread did
//! before a post therefore happens before everything another thread does after a wait on the
//! same object.

use std::cell::RefCell;
use std::panic::Location;

use crate::base::sharded_map::ShardedMap;
use std::sync::LazyLock as Lazy;
use crate::base::lock::{Mutex, RwLock};

use crate::model::clock::{Epoch, VectorClock};
use crate::runtime::thread_state::{with_current, ThreadState};

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

/// The clock of a lock, read and written only by the thread that holds the lock: the lock
/// itself orders every access, so the clock needs no lock of its own (two atomic operations
/// fewer per lock and per unlock than a [`SyncClock`]).
///
/// Invariant: as `SyncClock`'s; every access happens while the caller holds the lock whose
/// clock this is.
#[derive(Debug, Default)]
pub struct HeldClock {
    clock: std::cell::UnsafeCell<VectorClock>,
}

// SAFETY: the clock is reached only through the unsafe methods below, whose callers hold the
// lock that owns it, so no two threads ever touch it at once.
unsafe impl Sync for HeldClock {}

impl HeldClock {
    pub const fn new() -> HeldClock {
        HeldClock { clock: std::cell::UnsafeCell::new(VectorClock::new()) }
    }

    /// The release of the lock by the calling thread, before it lets go.
    ///
    /// # Safety
    /// The calling thread holds the lock whose clock this is.
    pub unsafe fn post(&self, event: SyncEvent) {
        // SAFETY: the caller holds the lock, so nobody else reaches the clock.
        with_current(|t| post_into(unsafe { &mut *self.clock.get() }, t, event));
    }

    /// The acquire of the lock by the calling thread, once it holds it.
    ///
    /// # Safety
    /// The calling thread holds the lock whose clock this is.
    pub unsafe fn wait(&self, event: SyncEvent) {
        // SAFETY: as in `post`.
        with_current(|t| wait_on(unsafe { &*self.clock.get() }, t, event));
    }
}

/// A post of thread `t` into an object's `clock`: the clock absorbs the thread's, then the
/// thread starts a new segment. Returns the epoch posted.
fn post_into(clock: &mut VectorClock, t: &mut ThreadState, event: SyncEvent) -> Epoch {
    let posted = t.clock.get(t.slot);
    clock.join(&t.clock);
    t.note_sync(event);
    t.tick();
    posted
}

/// A wait of thread `t` on an object's `clock`: the thread's clock absorbs it.
fn wait_on(clock: &VectorClock, t: &mut ThreadState, event: SyncEvent) {
    t.clock.join(clock);
    t.note_sync(event);
}

/// A synchronisation operation, kept so a report can say what a thread last did before an
/// access: "`op` `object` (created at `created`) at `at`".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SyncEvent {
    pub op: &'static str,
    pub object: &'static str,
    pub created: Option<&'static Location<'static>>,
    pub at: &'static Location<'static>,
}

/// Index of an interned [`SyncEvent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncEventId(u32);

static EVENT_IDS: Lazy<ShardedMap<SyncEvent, SyncEventId>> = Lazy::new(ShardedMap::new);
static EVENTS: RwLock<Vec<SyncEvent>> = RwLock::new(Vec::new());

/// How many recently interned events each thread remembers.
const RECENT_EVENTS: usize = 4;

thread_local! {
    /// A thread mostly repeats the same few operations (lock and unlock of one mutex, say): a
    /// hit here skips hashing the event and the global table's lock.
    static RECENT: RefCell<[Option<(SyncEvent, SyncEventId)>; RECENT_EVENTS]> = const { RefCell::new([None; RECENT_EVENTS]) };
}

impl SyncEvent {
    pub fn intern(self) -> SyncEventId {
        let hit = RECENT.try_with(|recent| {
            let recent = recent.try_borrow().ok()?;
            recent.iter().flatten().find(|(e, _)| e.same_as(&self)).map(|(_, id)| *id)
        });
        if let Ok(Some(id)) = hit {
            return id;
        }
        let id = self.intern_globally();
        let _ = RECENT.try_with(|recent| {
            if let Ok(mut recent) = recent.try_borrow_mut() {
                recent.rotate_right(1);
                recent[0] = Some((self, id));
            }
        });
        id
    }

    /// Equality by address: events are built from `'static` literals and `Location`s, so the
    /// same operation at the same site has the same pointers (and a miss only costs a lookup).
    fn same_as(&self, other: &SyncEvent) -> bool {
        std::ptr::eq(self.op, other.op)
            && std::ptr::eq(self.object, other.object)
            && std::ptr::eq(self.at, other.at)
            && match (self.created, other.created) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }

    fn intern_globally(self) -> SyncEventId {
        EVENT_IDS.get_or_insert_with(self, || {
            let mut events = EVENTS.write();
            events.push(self);
            SyncEventId((events.len() - 1) as u32)
        })
    }
}

impl SyncEventId {
    /// The id as one word of a stack depot entry's tag: 0 stands for no event.
    pub fn to_tag(id: Option<SyncEventId>) -> usize {
        id.map_or(0, |id| id.0 as usize + 1)
    }

    pub fn from_tag(tag: usize) -> Option<SyncEventId> {
        tag.checked_sub(1).map(|i| SyncEventId(i as u32))
    }

    pub fn describe(self) -> String {
        let e = EVENTS.read()[self.0 as usize];
        match e.created {
            Some(created) => format!("{} {} (created at {}) at {}", e.op, e.object, created, e.at),
            None => format!("{} {} at {}", e.op, e.object, e.at),
        }
    }
}
