//! Nothing: this package only names the published crates whose test suites
//! `tests/ecosystem_suites.rs` runs, so that `cargo metadata` fetches their sources.
