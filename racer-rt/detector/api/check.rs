//! `racer::check`: runs a closure with the calling thread (and every thread it spawns) reporting
//! into a fresh check scope, and returns what was reported.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::report::Report;
use crate::runtime::check_scope::{join_group, leave_group, CheckScope};
use crate::runtime::thread_state::with_current;

/// Whether the calling thread runs inside a `racer::check` (or was spawned, transitively, by
/// one that does): for racer's loom stand-in, which checks only there and in models.
#[doc(hidden)]
pub fn in_check() -> bool {
    crate::runtime::thread_state::in_check()
}

/// Runs `f` on the calling thread, collecting every race and deadlock found meanwhile in this
/// thread and the threads it spawns (transitively) into the returned report. When a deadlock
/// that cannot resolve ends the check, the panics it unwinds the check's threads with are not
/// resumed: the report is returned.
pub fn check<F: FnOnce()>(f: F) -> Report {
    let scope = Arc::new(CheckScope::new());
    let outer = with_current(|t| {
        leave_group(&t.scope);
        let outer = t.scope.replace(scope.clone());
        join_group(&t.scope);
        outer
    })
    .flatten();
    let result = catch_unwind(AssertUnwindSafe(f));
    with_current(|t| {
        leave_group(&t.scope);
        t.scope = outer;
        join_group(&t.scope);
    });
    scope.close();
    let report = scope.take();
    match result {
        Ok(()) => report,
        Err(_) if scope.is_deadlocked() => report,
        Err(panic) => resume_unwind(panic),
    }
}
