//! **Layer 7: configuration**: `RACER_OPTIONS` (`options`), the suppressions file it names
//! (`suppressions`), and how both name themselves in messages (`message`).
//!
//! May import: `provenance`, `model`, `report`, `base`. Invariant: read once per process; a bad
//! setting stops the process at start-up with status 2 and a message naming the key.

pub mod message;
pub mod options;
pub mod suppressions;
