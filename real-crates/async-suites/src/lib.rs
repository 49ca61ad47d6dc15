//! Nothing: this package only names the published crates whose async test suites
//! `tests/async_suites.rs` runs, so that `cargo metadata` fetches their sources.
