//! Nothing: this package only names the published crates that `tests/async_mutants.rs` plants
//! async bugs in, so that `cargo metadata` fetches their sources.
