//! Nothing: this package only names the published crates whose loom suites
//! `tests/loom_suites.rs` runs, so that `cargo metadata` fetches their sources.
