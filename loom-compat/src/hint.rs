//! `loom::hint`: spin-loop hints. Inside a model a spin-loop hint is a yield (the turn goes to
//! another thread, as in loom); it orders nothing.

pub use std::hint::unreachable_unchecked;

/// As `std::hint::spin_loop`; inside a model, the turn goes to another thread. Outside one
/// (a whole-crate run's tests that are no model) std's hint: a yield to the OS in every turn of
/// a spin made concurrent-queue's own spin tests run for minutes instead of a second.
#[track_caller]
#[inline]
pub fn spin_loop() {
    if racer::model::inside() {
        racer::thread::yield_now()
    } else {
        std::hint::spin_loop()
    }
}
