//! **Layer: the paper's test machinery** (top; not used at run time). The trace language of
//! the paper tests (`trace`) and the all-pairs oracle that judges traces by brute force
//! (`oracle`), re-exported hidden for racer-rt's property tests.
//!
//! May import: any layer (it replays traces through `model` and `shadow::seen`). Nothing imports
//! it. Invariant: nothing here runs in a user's program.

pub mod oracle;
pub mod trace;
