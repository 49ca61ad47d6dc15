//! The runtimes the tokio tests run their bodies on (`tests/tokio_tasks.rs`,
//! `tests/tokio_sync.rs`): a 4-worker multi-thread runtime and a current-thread one, each new
//! for every run, inside a `racer::check`.
// Each test file uses its part.
#![allow(dead_code)]

use std::future::Future;

use racer::tokio::runtime::{Builder, Runtime};
use racer::Report;

pub fn multi_thread() -> Runtime {
    Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap()
}

pub fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

/// A way to make a runtime.
pub type NewRuntime = fn() -> Runtime;

/// The two kinds of runtime, by name.
pub fn runtimes() -> [(&'static str, NewRuntime); 2] {
    [("multi-thread", multi_thread), ("current-thread", current_thread)]
}

/// Runs `body` on a new runtime of kind `rt` inside a `racer::check`.
pub fn check_on<F: Future<Output = ()>>(rt: NewRuntime, body: impl FnOnce() -> F) -> Report {
    racer::check(|| rt().block_on(body()))
}
