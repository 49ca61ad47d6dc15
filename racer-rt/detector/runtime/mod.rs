//! **The runtime**, the per-thread and per-object state the paper's model runs on:
//! thread slots (`thread_slots`), each thread's clock and check scope (`thread_state`, in
//! thread-local storage), the key
//! it publishes for the seen caches (`seen_key`), the clocks of synchronisation objects
//! (`sync_clock`; a reader-writer lock's pair: `rw_clocks`) and the primitives' part holding them (`sync_object`), the scope of a
//! `racer::check` and its thread groups (`check_scope`), storage statistics (`stats`).
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: a thread's clock
//! `clock.get(slot)` is its current epoch, a sync clock is the join of every post to it, and a
//! slot is reused only by a thread ordered after its previous owner's exit (see `thread_state`).

pub mod check_scope;
pub mod ignore;
pub mod rw_clocks;
pub mod seen_key;
pub mod stats;
pub mod sync_clock;
pub mod sync_object;
pub mod thread_slots;
pub mod thread_state;
