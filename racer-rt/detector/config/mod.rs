//! **Configuration**: `RACER_OPTIONS` (`options`, which also says how both name themselves in
//! messages) and the suppressions file it names (`suppressions`).
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: read once per process; a bad
//! setting stops the process at start-up with status 2 and a message naming the key.

pub mod options;
pub mod suppressions;
