//! `racer::dashmap` with `race-detect`: dashmap whose guards order what they guard as racer's
//! `RwLock`'s guards do, per shard (the lock dashmap really takes, found by the key's hash with
//! `determine_map`).
//!
//! Each shard of a map has two clocks (`ShardClocks`). A write guard (`RefMut`, an `Entry`, an
//! `iter_mut` item, and the closures of `alter`, `retain`, `remove_if`...) acquires both once
//! dashmap holds the shard for writing and releases into `written` at its drop, while the
//! shard is still locked; a read guard (`Ref`, an `iter` item, the closure of `view`...)
//! acquires `written` and releases into `read`. So a writer's section happens before every later
//! section of its shard, a reader's before the next writer's, and readers stay parallel.
//! Operations without a guard or closure of their own (`insert`, `remove`, `contains_key`) go
//! through one that has (an entry, `remove_if`, `view`), so that their clocks too are taken
//! under the shard's lock.
//!
//! Everything else is dashmap's own (`try_result::TryResult`, `Map`, `SharedValue`...). A test
//! build swaps `dashmap::` for `racer::dashmap::` in its `use` lines and nothing else.

use std::panic::Location;

use racer_core::task::HandOff;

pub use dashmap_crate::*;

pub mod iter;
pub mod iter_set;
mod map;
pub mod mapref;
mod read_only;
mod set;
pub mod setref;

pub use map::DashMap;
pub use mapref::entry::{Entry, OccupiedEntry, VacantEntry};
pub use read_only::ReadOnlyView;
pub use set::DashSet;

type Site = &'static Location<'static>;

const OBJECT: &str = "dashmap::DashMap";

/// The clocks of one shard of a map, as a reader-writer lock's.
///
/// Invariant: `written` is the join of the clocks of every write section of the shard so far
/// (each released while dashmap held the shard for writing, or while one thread owned the
/// map), `read` of every read section's.
#[derive(Debug)]
pub(crate) struct ShardClocks {
    written: HandOff,
    read: HandOff,
}

impl ShardClocks {
    fn new(at: Site) -> ShardClocks {
        ShardClocks { written: HandOff::new(OBJECT, at), read: HandOff::new(OBJECT, at) }
    }

    /// Clocks for each of `n` shards of a map made at `at`.
    fn for_shards(n: usize, at: Site) -> Box<[ShardClocks]> {
        (0..n).map(|_| ShardClocks::new(at)).collect()
    }

    /// dashmap holds the shard for reading, on the calling thread's behalf, until the hold's drop.
    fn read_hold(&self, at: Site) -> ReadHold<'_> {
        self.written.acquire("read-locking", at);
        ReadHold { clocks: self, at }
    }

    /// dashmap holds the shard for writing, on the calling thread's behalf, until the hold's drop.
    fn write_hold(&self, at: Site) -> WriteHold<'_> {
        self.written.acquire("write-locking", at);
        self.read.acquire("write-locking", at);
        WriteHold { clocks: self, at }
    }

    /// `f` runs while dashmap holds the shard for reading: a read section.
    fn reading<R>(&self, at: Site, f: impl FnOnce() -> R) -> R {
        let _hold = self.read_hold(at);
        f()
    }

    /// `f` runs while dashmap holds the shard for writing: a write section.
    fn writing<R>(&self, at: Site, f: impl FnOnce() -> R) -> R {
        let _hold = self.write_hold(at);
        f()
    }
}

/// A read section of a shard: its drop releases into `read`. Declared before dashmap's guard
/// in each guard of this module, so that it is dropped while the shard is still locked.
#[derive(Debug)]
pub(crate) struct ReadHold<'a> {
    clocks: &'a ShardClocks,
    at: Site,
}

impl Drop for ReadHold<'_> {
    fn drop(&mut self) {
        self.clocks.read.release("read-unlocking", self.at);
    }
}

/// A write section of a shard: its drop releases into `written`. Declared before dashmap's
/// guard, as `ReadHold`.
#[derive(Debug)]
pub(crate) struct WriteHold<'a> {
    clocks: &'a ShardClocks,
    at: Site,
}

impl<'a> WriteHold<'a> {
    /// The section goes on as a read section (dashmap's guard is about to be downgraded): the
    /// write section so far happens before every later reader.
    fn downgrade(self) -> ReadHold<'a> {
        let (clocks, at) = (self.clocks, self.at);
        drop(self);
        ReadHold { clocks, at }
    }
}

impl Drop for WriteHold<'_> {
    fn drop(&mut self) {
        self.clocks.written.release("write-unlocking", self.at);
    }
}
