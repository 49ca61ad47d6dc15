//! **The ground floor**: std locks without poisoning (`lock`), a sharded map, a small
//! vector, a fast hasher, process-unique ids (`unique_id`), and the hooks racer-rt fills in
//! before `main` (`platform`: unwind tables, symbols, C library calls, standard error and the
//! process's end).
//!
//! Imports: nothing of racer's (see `racer-core/tests/layers.rs`). Invariant: nothing here knows about races.

pub mod active_count;
pub mod fast_hash;
pub mod lock;
pub mod platform;
pub mod sharded_map;
pub mod small_vec;
pub mod unique_id;
