//! Nothing here: this package only hosts `tests/`, the ported test suite of the published
//! `concurrent-queue` crate 2.5.0 (see Cargo.toml).
