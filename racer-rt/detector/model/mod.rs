//! **The paper's model**: vector clocks and segments (`clock`), and the per-cell
//! detection policies, Algorithms 3, 4 and 5, behind `CellPolicy` (`algorithm/`).
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: pure data and algorithms; no
//! thread-local or global state but the selected algorithm.

pub mod algorithm;
pub mod clock;
