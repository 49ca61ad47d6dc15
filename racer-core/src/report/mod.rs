mod deadlock;
mod race;

#[allow(unused_imports)]
pub(crate) use deadlock::deadlock_json;
pub use deadlock::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
#[allow(unused_imports)]
pub(crate) use race::race_json;
pub use race::{Access, AccessKind, Frame, Race, RaceKind, Report};
