//! `racer::futures::channel`: futures' channels, each message carrying its sender's clock.

// futures' `channel` has only these two modules today; any it gains is futures' own.
#[allow(unused_imports)]
pub use futures_crate::channel::*;

pub mod mpsc;
pub mod oneshot;

/// What reports name a channel's release and acquire by.
const SENDING: &str = "sending on";
const RECEIVING: &str = "receiving from";
