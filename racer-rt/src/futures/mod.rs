//! `racer::futures` with `race-detect`: futures' own items, with `channel`, `lock` and
//! `executor` shadowed by modules of the same names that order futures' hand-offs:
//!
//! - `channel::{mpsc, oneshot}`: each message carries its sender's clock (a
//!   `racer::annotate::Carry`), so a receiver is ordered after the sends of the messages it took;
//! - `lock::Mutex`: each acquisition is ordered after the previous holder's release;
//! - `executor::ThreadPool`: each spawned future is a task of its own (a logical thread, as
//!   `racer::tokio::spawn`'s), forked from its spawner; its join is where its output is
//!   received: `task::SpawnExt::spawn_with_handle`'s `RemoteHandle`, or a channel above.
//!
//! Every other item (`join!`, `select!`, `StreamExt`, `future`, `stream`...) is futures' own.

pub use futures_crate::*;

pub mod channel;
pub mod executor;
pub mod lock;
pub mod task;
