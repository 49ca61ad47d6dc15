//! `racer::futures::executor`: futures' executors.

pub use futures_crate::executor::*;
