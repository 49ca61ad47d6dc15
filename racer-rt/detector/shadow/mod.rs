//! **Shadow memory**, the way of one `Shared` access: the cell's cache of seen accesses
//! (`seen`, the fast path), then under the cell's lock bit the cell's state (`state_slots`)
//! run by the selected algorithm (`cell`), then the races found, delivered to `reporting` once
//! the thread state is released. `raw_memory`: the same for 8-byte granules of raw memory
//! (`annotate::read`/`write`), in a sharded map of their own.
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: a
//! cell's state is reached only under its lock (or through `&mut`), and `seen` only
//! remembers an access after it went through the state.

pub mod cell;
pub mod raw_memory;
pub mod seen;
pub mod state_slots;
