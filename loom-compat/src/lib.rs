//! racer's stand-in for [loom] 0.7.
//!
//! Many lock-free crates have a `cfg(loom)` seam: built with `RUSTFLAGS="--cfg loom"` they take
//! their `UnsafeCell`, atomics, `thread::yield_now`, ... from the `loom` crate instead of
//! `core`/`std`. This package is named `loom` (version 0.7.99, which satisfies `loom = "0.7"`)
//! so that a test crate can substitute it with
//!
//! ```toml
//! [patch.crates-io]
//! loom = { path = "path/to/racer/loom-compat" }
//! ```
//!
//! and the crate under test then runs, unchanged, on racer's types: its `UnsafeCell`s are
//! [`racer::Shared`] cells whose every access is checked, its atomics are racer's (whose
//! Acquire/Release operations are happens-before edges), and its threads are racer's.
//!
//! This is **not** loom: nothing is permuted or explored. [`model`] runs its closure once, on
//! real threads, under [`racer::check`], and fails if racer found a data race in that run.
//! Enable the `race-detect` feature (`race-detect = ["loom/race-detect"]` in the test crate)
//! to check; without it every item here is std's (through racer's zero-cost feature-off
//! build) and `model` just runs the closure.
//!
//! Only the part of loom's API that the crates ported so far need is here (the
//! `concurrent-queue` suite in `real-crates/`): [`cell::UnsafeCell`] (`new`, `with`,
//! `with_mut`, `get_mut`, `into_inner`), [`sync::atomic`] with loom's `with_mut` and
//! `unsync_load`, [`sync`]'s `Arc`, `Mutex`, `Condvar`, `RwLock`, `Barrier`, `mpsc`,
//! [`thread`], [`hint`] and [`model`]. Full loom compatibility (`loom::model::Builder`,
//! `ConstPtr`/`MutPtr` guards, `Notify`, `lazy_static!`, `loom::future`, ...) is a later issue.
//!
//! [loom]: https://docs.rs/loom/0.7

#![warn(missing_docs)]

pub mod cell;
pub mod hint;
pub mod sync;
pub mod thread;

pub use std::thread_local;

/// Runs `f` once on the calling thread under [`racer::check`], as loom's `model` runs it under
/// its scheduler; the threads `f` spawns through [`thread`] are real threads.
///
/// # Panics
/// When racer found data races while `f` ran (in it or in any thread it spawned), with the full
/// report as the message; and when `f` panics, with its panic. Without the `race-detect`
/// feature nothing is checked and only `f`'s own panics fail.
#[track_caller]
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let report = racer::check(f);
    if !report.is_empty() {
        panic!("racer (loom::model): {} data race(s) found\n{report}", report.len());
    }
}
