//! `racer::sync` and `racer::thread::park`: std's API and behaviour in both builds, and the
//! happens-before edges each primitive makes in the detector's build. One test binary, one
//! module per primitive; the helpers are `tests/sync_support/`, shared with other tests.

#[path = "../sync_support/mod.rs"]
mod sync_support;

mod arc;
mod atomic;
mod barrier;
mod condvar;
mod mpsc;
mod once;
mod park;
mod rwlock;
