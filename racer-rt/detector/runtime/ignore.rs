//! `annotate::ignore_accesses`: a scope of the calling thread whose accesses are neither checked
//! nor remembered (TSan's ignore reads/writes begin/end).

use std::cell::Cell;

thread_local! {
    /// How many `ignore_accesses` scopes the thread is inside.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Whether the calling thread is inside an `ignore_accesses` scope. Consulted by the slow path
/// of `Shared` accesses and by raw-memory checks only: a fast-path hit re-accesses in a segment
/// that already accessed the cell, which can neither race nor change the cell's state.
#[inline]
pub fn ignoring() -> bool {
    DEPTH.try_with(Cell::get).unwrap_or(0) != 0
}

/// One level of `ignore_accesses`: entered on creation, left on drop, so a panic unwinding out
/// of the scope leaves it too.
///
/// Invariant: while it lives, the thread's depth counts it.
pub struct IgnoreScope(());

impl IgnoreScope {
    pub fn enter() -> IgnoreScope {
        let _ = DEPTH.try_with(|d| d.set(d.get() + 1));
        IgnoreScope(())
    }
}

impl Drop for IgnoreScope {
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Exchanges the calling thread's depth with `depth`: a task installed on a thread brings its
/// own (see `api/task.rs`), so a pool's worker that ignores its own accesses still checks its
/// tasks'.
pub fn swap_depth(depth: &mut u32) {
    let _ = DEPTH.try_with(|d| *depth = d.replace(*depth));
}
