//! The clocks of `annotate::release` / `annotate::acquire`: one `SyncClock` per address the
//! user names, made by the first release of it and dropped by `forget_sync`.

use std::panic::Location;
use std::sync::{Arc, LazyLock};

use crate::sharded_map::ShardedMap;
use crate::sync_clock::{SyncClock, SyncEvent};

/// Address -> the clock released into it.
///
/// Invariant: the clock of an address is the join of every `release` of that address since
/// its last `forget_sync` (an acquire of an address never released finds no clock and orders
/// nothing).
static CLOCKS: LazyLock<ShardedMap<usize, Arc<SyncClock>>> = LazyLock::new(ShardedMap::new);

fn event(op: &'static str, at: &'static Location<'static>) -> SyncEvent {
    // Reads in reports as "releasing annotation at src/pool.rs:12:5".
    SyncEvent { op, object: "annotation", created: None, at }
}

/// A post of the calling thread's clock into the clock of `address`; ends its segment.
pub fn release(address: usize, at: &'static Location<'static>) {
    let clock = CLOCKS.get_or_insert_with(address, || Arc::new(SyncClock::new()));
    clock.post(event("releasing", at));
}

/// A wait of the calling thread on the clock of `address`, if it was ever released.
pub fn acquire(address: usize, at: &'static Location<'static>) {
    if let Some(clock) = CLOCKS.get(&address) {
        clock.wait(event("acquiring", at));
    }
}

/// Drops the clock of `address`: a later acquire of it orders nothing until the next release.
pub fn forget(address: usize) {
    CLOCKS.remove(&address);
}
