//! `loom::hint`: spin-loop hints. Inside a model a spin-loop hint is a yield (the turn goes to
//! another thread, as in loom); it orders nothing.

pub use std::hint::unreachable_unchecked;

/// As `std::hint::spin_loop`; inside a model, the turn goes to another thread.
#[track_caller]
#[inline]
pub fn spin_loop() {
    racer::thread::yield_now()
}
