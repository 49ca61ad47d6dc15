//! The clocks of `annotate::release` / `annotate::acquire`: one per address the user names,
//! made by the first release of it and dropped by `forget_sync`.
//!
//! Reports of a foreign pool's threads: a thread racer did not start (a rayon worker, a C
//! library's thread) belongs to no `racer::check`, so a race it finds would go to standard
//! error even when the task it runs was handed over by a check's thread. An acquire on such a
//! thread therefore also adopts the check of the address's last releaser, until its next
//! acquire: the task's races land in the report of the check that handed it over.

use std::cell::Cell;
use std::panic::Location;
use std::sync::{Arc, LazyLock, Weak};

use crate::base::lock::Mutex;
use crate::base::sharded_map::ShardedMap;
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::check_scope::{self, CheckScope};
use crate::runtime::sync_clock::SyncClock;
use crate::runtime::thread_state::{with_current, ThreadState};

/// The clock of one address, and the check of its last releaser.
///
/// Invariant: `clock` is the join of every release of the address since its last
/// `forget_sync`; `releaser` is the check (if any) the last of them ran under.
#[derive(Default)]
struct SyncPoint {
    clock: SyncClock,
    releaser: Mutex<Option<Weak<CheckScope>>>,
}

static POINTS: LazyLock<ShardedMap<usize, Arc<SyncPoint>>> = LazyLock::new(ShardedMap::new);

thread_local! {
    /// The id of the check this thread adopted by an acquire (0: none), so that a check the
    /// thread entered itself (`racer::check`) is never replaced.
    static ADOPTED: Cell<u64> = const { Cell::new(0) };
}

fn event(op: &'static str, at: &'static Location<'static>) -> SyncEvent {
    // Reads in reports as "releasing annotation at src/pool.rs:12:5".
    SyncEvent { op, object: "annotation", created: None, at }
}

/// A post of the calling thread's clock into the clock of `address`; ends its segment.
pub fn release(address: usize, at: &'static Location<'static>) {
    let point = POINTS.get_or_insert_with(address, Default::default);
    with_current(|t| {
        point.clock.post_from(t, event("releasing", at));
        *point.releaser.lock() = t.scope.as_ref().map(Arc::downgrade);
    });
}

/// A wait of the calling thread on the clock of `address`, if it was ever released.
pub fn acquire(address: usize, at: &'static Location<'static>) {
    let Some(point) = POINTS.get(&address) else { return };
    with_current(|t| {
        point.clock.wait_into(t, event("acquiring", at));
        let releaser = point.releaser.lock().as_ref().and_then(Weak::upgrade);
        adopt_check(t, releaser);
    });
}

/// A thread racer did not start, in no check of its own, reports to the releaser's check.
fn adopt_check(t: &mut ThreadState, releaser: Option<Arc<CheckScope>>) {
    if !t.thread_ref.info().foreign {
        return;
    }
    let adopted = ADOPTED.try_with(Cell::get).unwrap_or(0);
    let own_check = t.scope.as_ref().is_some_and(|s| !s.is_closed() && s.id() != adopted);
    let releaser = releaser.filter(|s| !s.is_closed());
    let same = match (&t.scope, &releaser) {
        (Some(a), Some(b)) => a.id() == b.id(),
        (None, None) => true,
        _ => false,
    };
    if own_check || same {
        return;
    }
    check_scope::leave_group(&t.scope);
    let _ = ADOPTED.try_with(|a| a.set(releaser.as_ref().map_or(0, |s| s.id())));
    t.scope = releaser;
    check_scope::join_group(&t.scope);
}

/// Drops the clock of `address`: a later acquire of it orders nothing until the next release.
pub fn forget(address: usize) {
    POINTS.remove(&address);
}
