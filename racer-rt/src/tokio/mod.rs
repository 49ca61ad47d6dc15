//! `racer::tokio` with `race-detect`: tokio with each task a logical thread.
//!
//! Everything is tokio's own (`time`, `select!`, ...) except what starts or orders tasks:
//! `spawn` and `task` (each task spawned here gets a detector state of its own, installed by
//! every poll, see `racer_core::task`), `runtime` (`Runtime`, `Handle`, `LocalRuntime`,
//! `Builder`, whose spawns are `spawn`'s), and `sync` (each primitive posts to and waits on a
//! `HandOff` clock beside tokio's own primitive). A test build swaps `tokio::` for
//! `racer::tokio::` in its `use` lines and nothing else; tests/tokio_names.rs (with
//! `.ci/tokio-names`) checks that no public name of tokio's `task`, `sync` and `runtime` is missing.

pub use tokio_crate::*;

pub mod runtime;
pub mod sync;
pub mod task;

pub use task::spawn;

/// Panics with a plain message when `what` is asked for inside a `racer::model`: a model's
/// scheduler runs threads one at a time and does not choose among tasks, so it would explore
/// nothing of theirs (and a runtime's worker threads are outside its view).
#[track_caller]
pub(crate) fn not_in_model(what: &str) {
    if racer_core::explore::current_iteration().is_some() {
        panic!(
            "racer: {what} inside racer::model: a model explores the interleavings of racer's threads, not of \
             tokio's tasks. Check async code with #[racer::test] on an async fn (or racer::check around a \
             runtime's block_on): every task is then a logical thread checked at full speed on real threads"
        );
    }
}
