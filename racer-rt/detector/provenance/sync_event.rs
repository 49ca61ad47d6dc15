//! The synchronisation events a report names ("locking Mutex (created at ..) at .."): made by
//! every post and wait, interned on demand (an access record keeps the id of its thread's last).

use std::cell::RefCell;
use std::panic::Location;
use std::sync::LazyLock as Lazy;

use crate::base::lock::RwLock;
use crate::base::sharded_map::ShardedMap;

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
    #[inline]
    pub fn same_as(&self, other: &SyncEvent) -> bool {
        let created = |e: &SyncEvent| e.created.map_or(std::ptr::null(), |c| c as *const Location<'static>);
        std::ptr::eq(self.at, other.at)
            && std::ptr::eq(self.op, other.op)
            && std::ptr::eq(self.object, other.object)
            && created(self) == created(other)
    }

    fn intern_globally(self) -> SyncEventId {
        EVENT_IDS.get_or_insert_with(self, || {
            let mut events = EVENTS.write();
            events.push(self);
            SyncEventId((events.len() - 1) as u32)
        })
    }
}

/// A thread's last sync event, and the interned ids of the last two distinct events asked for.
/// Noting an event is a copy of it; its id is looked up only when an access record asks, and a
/// loop that alternates two events (a wait and a post) then finds both ids known.
///
/// Invariant: `last` is the thread's last sync event (or `None` before any), `last_id` is its
/// id once looked up; each entry of `known` is an event with its interned id, and `known[mru]`
/// the one looked up last.
#[derive(Debug)]
pub struct RecentSyncEvents {
    last: Option<SyncEvent>,
    last_id: Option<SyncEventId>,
    known: [Option<(SyncEvent, SyncEventId)>; 2],
    mru: usize,
}

impl RecentSyncEvents {
    /// `first` as the only event so far.
    pub fn new(first: Option<SyncEvent>) -> RecentSyncEvents {
        RecentSyncEvents { last: first, last_id: None, known: [None; 2], mru: 0 }
    }

    /// `event` is now the last.
    #[inline]
    pub fn note(&mut self, event: SyncEvent) {
        self.last = Some(event);
        self.last_id = None;
    }

    /// The interned last event, for an access record.
    #[inline]
    pub fn last_id(&mut self) -> Option<SyncEventId> {
        if self.last_id.is_none() {
            self.last_id = self.look_up();
        }
        self.last_id
    }

    /// Inline in every access that asks (a slow access's record): its call cost a third of it.
    #[inline(always)]
    fn look_up(&mut self) -> Option<SyncEventId> {
        let event = self.last.as_ref()?;
        // Written out, the most recent first, with no loop and no bounds check.
        let mru = self.mru & 1;
        if let Some((known, id)) = &self.known[mru] {
            if known.same_as(event) {
                return Some(*id);
            }
        }
        if let Some((known, id)) = &self.known[mru ^ 1] {
            if known.same_as(event) {
                self.mru = mru ^ 1;
                return Some(*id);
            }
        }
        Some(self.intern_last(*event))
    }

    #[cold]
    #[inline(never)]
    fn intern_last(&mut self, event: SyncEvent) -> SyncEventId {
        let id = event.intern();
        self.mru ^= 1;
        self.known[self.mru] = Some((event, id));
        id
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

    /// The event this id names.
    pub fn event(self) -> SyncEvent {
        EVENTS.read()[self.0 as usize]
    }

    pub fn describe(self) -> String {
        let e = self.event();
        match e.created {
            Some(created) => format!("{} {} (created at {}) at {}", e.op, e.object, created, e.at),
            None => format!("{} {} at {}", e.op, e.object, e.at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(op: &'static str) -> SyncEvent {
        SyncEvent { op, object: "Mutex", created: None, at: Location::caller() }
    }

    #[test]
    fn the_last_of_two_alternating_events_is_named_and_a_third_replaces_the_older() {
        let (lock, unlock, other) = (event("locking"), event("unlocking"), event("joining"));
        let mut recent = RecentSyncEvents::new(None);
        assert_eq!(recent.last_id(), None);
        recent.note(lock);
        let lock_id = recent.last_id();
        recent.note(unlock);
        let unlock_id = recent.last_id();
        assert_ne!(lock_id, unlock_id);
        recent.note(lock);
        assert_eq!(recent.last_id(), lock_id);
        recent.note(lock);
        assert_eq!(recent.last_id(), lock_id);
        recent.note(other);
        assert_eq!(
            recent.last_id().map(SyncEventId::describe).as_deref(),
            Some(&*format!("joining Mutex at {}", other.at))
        );
        recent.note(lock);
        assert_eq!(recent.last_id(), lock_id, "the event before the last is kept");
        recent.note(unlock);
        assert_eq!(recent.last_id(), unlock_id, "interned again, to the same id");
    }
}
