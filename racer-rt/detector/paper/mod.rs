//! **The paper's test machinery** (not used at run time). The trace language of the paper tests
//! (`trace`) and the all-pairs oracle that judges traces by brute force (`oracle`), exported
//! only as the hidden `__test` module, for racer-rt's `tests/paper_*.rs`.
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Nothing imports it. Invariant: nothing here runs in a user's program.

pub mod oracle;
pub mod trace;
