//! `racer::tokio::sync`: tokio's primitives, each beside a `HandOff` clock (being written).

pub use tokio_crate::sync::*;
