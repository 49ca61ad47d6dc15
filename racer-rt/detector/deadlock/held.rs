//! The locks a thread holds (`HELD`, thread-local), kept by `acquired` and `released`; a
//! blocking acquisition made while holding others also adds its edges to the lock-order graph.
//!
//! Invariant: while detection is on, `HELD` lists the locks the thread holds, in the order
//! taken: a push at every acquisition, a removal at every release, nothing else when it holds no
//! other lock; `HOLDING` is its length.

use std::cell::{Cell, RefCell};

use super::enabled;
use super::lock::Acq;
use super::order_graph::record_edges;

thread_local! {
    /// The locks the thread holds, in the order taken.
    static HELD: RefCell<Vec<Acq>> = const { RefCell::new(Vec::new()) };
    /// `HELD`'s length: no destructor, so a thread that holds no lock (every access of a
    /// lock-free program) learns it without `HELD`'s registration check and borrow.
    static HOLDING: Cell<usize> = const { Cell::new(0) };
}

fn note_len(held: &[Acq]) {
    let _ = HOLDING.try_with(|n| n.set(held.len()));
}

/// Whether the calling thread holds no racer lock: one thread-local read.
#[inline]
pub fn holds_none() -> bool {
    HOLDING.try_with(Cell::get).unwrap_or(0) == 0
}

/// A lock was taken. `blocking`: by `lock`/`read`/`write` (not `try_*`), so the locks already
/// held get an edge to it.
#[inline(never)]
pub fn acquired(acq: Acq, blocking: bool) {
    if !enabled() {
        return;
    }
    let prior = HELD
        .try_with(|h| {
            let mut held = h.try_borrow_mut().ok()?;
            let prior = (blocking && !held.is_empty()).then(|| held.clone());
            held.push(acq);
            note_len(&held);
            prior
        })
        .ok()
        .flatten();
    if let Some(prior) = prior {
        record_edges(&prior, &acq);
    }
}

/// A lock was released (a guard dropped, or a condvar wait let it go).
#[inline(never)]
pub fn released(id: u64) {
    if !enabled() {
        return;
    }
    let _ = HELD.try_with(|h| {
        if let Ok(mut held) = h.try_borrow_mut() {
            // Mostly the lock taken last: a pop, with nothing to move.
            match held.iter().rposition(|a| a.id == id) {
                Some(i) if i + 1 == held.len() => drop(held.pop()),
                Some(i) => drop(held.remove(i)),
                None => {}
            }
            note_len(&held);
        }
    });
}

/// Exchanges the locks the calling thread holds with `other` (a task's, see `api::task`).
pub fn swap_held(other: &mut Vec<Acq>) {
    let _ = HELD.try_with(|h| {
        if let Ok(mut held) = h.try_borrow_mut() {
            std::mem::swap(&mut *held, other);
            note_len(&held);
        }
    });
}

pub(super) fn held_now() -> Vec<Acq> {
    HELD.try_with(|h| h.try_borrow().map(|v| v.clone()).unwrap_or_default()).unwrap_or_default()
}

/// Runs `f` on the locks the calling thread holds, in the order taken (none while detection is
/// off, or inside `f` of another call): what a race report lists per access.
#[inline]
pub fn with_held<R>(f: impl FnOnce(&[Acq]) -> R) -> R {
    if holds_none() {
        return f(&[]);
    }
    let mut f = Some(f);
    let out = HELD.try_with(|h| h.try_borrow().ok().map(|held| (f.take().expect("runs once"))(&held)));
    match out {
        Ok(Some(r)) => r,
        _ => (f.take().expect("runs once"))(&[]),
    }
}
