//! `loom::hint`: spin-loop hints. Inside a model a spin-loop hint is a yield (the turn goes to
//! another thread, as in loom); it orders nothing.

pub use std::hint::unreachable_unchecked;

/// As `std::hint::spin_loop`; inside a model, the turn goes to another thread. Outside one
/// (a whole-crate run's tests that are no model) std's hint: a yield to the OS in every turn of
/// a spin made concurrent-queue's own spin tests run for minutes instead of a second. The same
/// as loom's `thread::yield_now` here (see there).
#[track_caller]
#[inline]
pub fn spin_loop() {
    crate::thread::yield_now()
}
