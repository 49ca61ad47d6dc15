//! `racer::futures::lock`: futures' locks.

pub use futures_crate::lock::*;
