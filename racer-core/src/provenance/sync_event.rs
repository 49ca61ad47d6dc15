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
    pub fn same_as(&self, other: &SyncEvent) -> bool {
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
