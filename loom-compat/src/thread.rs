//! `loom::thread`: racer's threads (real threads whose spawn and join are happens-before
//! edges), with std's signatures.

pub use racer::thread::{
    current, panicking, park, park_timeout, scope, sleep, spawn, Builder, JoinHandle, Scope, ScopedJoinHandle, Thread,
    ThreadId,
};
/// The key of a `thread_local!` (std's, as the macro is), and the error of its `try_with`.
pub use std::thread::{AccessError, LocalKey};

/// loom's `yield_now`: inside a model the turn goes to another thread (racer's `yield_now`, a
/// point of the scheduler, as in loom). Outside one (a whole-crate run's tests that are no
/// model, which run unchecked) a spin-loop hint, as `hint::spin_loop` there: loom's yield asks
/// its scheduler, not the OS, and code written for loom yields in its spin waits (a `cfg(loom)`
/// busy wait), where a yield to the OS with more spinning threads than cores lets the waiters
/// take turns while the thread they wait for waits for a core. concurrent-queue's `mpmc` test
/// (eight threads on a queue of three) took 44 s with OS yields, 0.03 s with hints.
#[track_caller]
#[inline]
pub fn yield_now() {
    if racer::model::inside() {
        racer::thread::yield_now()
    } else {
        std::hint::spin_loop()
    }
}
