//! `racer::tokio` with `race-detect`: tokio with each task a logical thread.
//!
//! Everything is tokio's own (`time`, `select!`, ...) except what starts or orders tasks:
//! `spawn` and `task` (each task spawned here gets a detector state of its own, installed by
//! every poll, see `racer_core::task`), `runtime` (`Runtime`, `Handle`, `LocalRuntime`,
//! `Builder`, whose spawns are `spawn`'s), and `sync` (each primitive posts to and waits on a
//! `HandOff` clock beside tokio's own primitive). A test build swaps `tokio::` for
//! `racer::tokio::` in its `use` lines and nothing else; tests/tokio_names.rs (with
//! `.ci/tokio-names`) checks that no public name of tokio's `task`, `sync` and `runtime` is missing.
//!
//! Inside a `racer::model` no runtime runs: each task of `spawn`, `spawn_blocking` or a runtime's
//! `spawn` is a model thread of its own (`model_task`), a runtime's `block_on` is
//! `racer::model::block_on`, and `sync`'s operations are points of the model's schedule.

pub use tokio_crate::*;

mod model_task;
pub mod runtime;
pub mod sync;
pub mod task;

pub use task::spawn;

/// Whether the calling thread runs in a `racer::model`: a task spawned there is a model thread
/// of its own (`model_task`), with no runtime.
pub(crate) fn in_model() -> bool {
    racer_core::explore::inside()
}

/// Panics with a plain message when `what` is asked for inside a `racer::model` (see
/// `unsupported_in_model`).
#[track_caller]
pub(crate) fn not_in_model(what: &str) {
    if in_model() {
        unsupported_in_model(what);
    }
}

/// Inside a `racer::model`, `what` cannot run: each task spawned through `racer::tokio::spawn`,
/// `spawn_blocking` or a runtime's `spawn` is a model thread of its own, with no tokio runtime
/// beneath (a `JoinSet`'s and local tasks, and what needs a runtime, are not there).
#[track_caller]
pub(crate) fn unsupported_in_model(what: &str) -> ! {
    panic!(
        "racer: {what} inside racer::model: inside a model no tokio runtime runs, and each task spawned through \
         racer::tokio::spawn, spawn_blocking or a Runtime's or Handle's spawn is a model thread of its own. Spawn \
         the task that way, or check this code with #[racer::test] on an async fn (a real runtime, every task a \
         logical thread)"
    )
}
