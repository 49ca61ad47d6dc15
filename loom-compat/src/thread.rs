//! `loom::thread`: racer's threads (real threads whose spawn and join are happens-before
//! edges), with std's signatures.

pub use racer::thread::{
    current, panicking, park, park_timeout, scope, sleep, spawn, yield_now, Builder, JoinHandle, Scope,
    ScopedJoinHandle, Thread, ThreadId,
};
/// The key of a `thread_local!` (std's, as the macro is), and the error of its `try_with`.
pub use std::thread::{AccessError, LocalKey};
