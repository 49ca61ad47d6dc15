mod check_report;
mod deadlock;
mod frame;
mod race;

pub use check_report::Report;
#[allow(unused_imports)]
pub(crate) use deadlock::deadlock_json;
pub use deadlock::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
pub use frame::Frame;
#[allow(unused_imports)]
pub(crate) use race::race_json;
pub use race::{Access, AccessKind, Race, RaceKind};
