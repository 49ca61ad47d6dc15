//! **Layer 5: process end**: the at-exit summary and exit status, the end of a hung process,
//! `halt_on_error`'s stop, and the count of reports written outside any check (`exit`).
//!
//! May import: `runtime` (for the stats line), `config`, `base`. Invariant: the summary counts
//! exactly the reports written whole before it (all writing holds `exit::hold`).

pub mod exit;
