//! **The public API**, generic code instantiated in the user's crate: `Shared<T>` (`shared`),
//! `racer::check` (`check`), the std look-alikes of `thread` and `sync/` (one file per
//! primitive). Each hands an access or a synchronisation to the folders below in one call, so
//! that the work runs in racer-core's optimised code.
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: the public items keep
//! std's names and signatures (the root's `tests/contract_smoke.rs` names each one), and a primitive keeps its detector part in one
//! `runtime::sync_object::SyncObject` (atomics: `AtomicSync`).

pub mod annotate;
pub mod check;
pub mod explore;
pub mod foreign_lock;
pub mod shared;
pub mod sync;
pub mod task;
pub mod thread;
