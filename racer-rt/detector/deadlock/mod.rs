//! Deadlocks: the lock-order graph (potential deadlocks, reported before they hang), re-locks,
//! and real hangs (threads blocked in racer's wrappers with nothing left to wake them).
//!
//! **Deadlock detection**: the way of one lock acquisition (what the `sync/` wrappers call), and
//! the watchdog. Imports: see the table in `racer-core/tests/layers.rs`. Invariant: below.
//!
//! One concept per file (and `enabled` here: whether detection is on,
//! `RACER_OPTIONS=detect_deadlocks`):
//! - `lock`: a lock's identity (`LockMeta`), one acquisition of it (`Acq`), and when two modes
//!   of acquisition conflict.
//! - `lock_use`: an acquisition as a report shows it, and the frames of a lock still held.
//! - `order_graph`: the lock-order graph (the edges each thread adds, their cycles) and its
//!   lock-order inversion reports.
//! - `held`: the locks a thread holds (`acquired`, `released`; `with_held` for race reports).
//! - `wait_slot`: what a blocked thread waits for (`Wait`), published in its own slot.
//! - `watchdog`: the thread that reads the slots and reports real deadlocks (`TICK`, `QUIET`).
//! - `blocking`: a contended acquisition (re-lock, spin, publishing its wait) and a published
//!   wait (`Blocking`, `wait`), which unwinds with `DeadlockAbort` when its check was ended.
//! - `thread_end`: a thread's end, for joins (`Done`).
//!
//! Invariant: the detector's own state here (`GRAPH`, `SLOTS`, each slot) is guarded by
//! racer's own locks (`crate::base::lock`), none of which is held while user code runs or while
//! this thread blocks in a user's lock; a report is built and delivered after they are
//! released. Nothing here panics in the user's program: the only unwinding is `DeadlockAbort`,
//! on purpose, out of a wait that can never end.

mod blocking;
mod held;
mod lock;
mod lock_use;
mod order_graph;
mod thread_end;
mod wait_slot;
mod watchdog;

pub use blocking::{blocking_lock, contended, pause, wait, Blocking, DeadlockAbort, SPIN_ROUNDS};
pub use held::{acquired, holds_none, released, swap_held, with_held};
pub use lock::{Acq, LockMeta};
pub use thread_end::Done;
pub use wait_slot::Wait;
pub use watchdog::TICK;

/// Whether deadlock detection is on (`RACER_OPTIONS=detect_deadlocks`): each hook that records
/// a lock or publishes a wait asks first, and does nothing when it is off.
#[inline]
fn enabled() -> bool {
    crate::config::options::get().options.detect_deadlocks
}
