//! **Reporting**, the way of one report: `deliver` suppresses (`config`), dedups by site pair,
//! and delivers a race or deadlock into the check scope of the finding thread
//! (`runtime::check_scope`) or, outside any check, to `output`, which writes it whole in the
//! chosen format and place (and halts with `halt_on_error`); `exit`: the process's end (the
//! at-exit summary and exit status, the end of a hung process, `halt_on_error`'s stop, and the
//! count of reports written outside any check).
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: called with none of the
//! detector's locks held and no thread state borrowed; each site pair is reported once per
//! destination; the summary counts exactly the reports written whole before it (all writing
//! holds `exit::hold`).

pub mod benign;
pub mod deliver;
pub mod exit;
pub mod output;
