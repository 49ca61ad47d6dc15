//! **Layer 2: shadow memory**, the way of one `Shared` access: the cell's cache of seen accesses
//! (`seen`, the fast path), then under one of 128 shard locks the cell's state (`state_slots`)
//! run by the selected algorithm (`cell`), then the races found, delivered to `reporting` once
//! the thread state is released.
//!
//! May import: `reporting`, `runtime`, `provenance`, `model`, `report`, `base`. Invariant: a
//! cell's state is reached only under its shard lock (or through `&mut`), and `seen` only
//! remembers an access after it went through the state.

pub mod cell;
pub mod raw_memory;
pub mod seen;
pub mod state_slots;
