//! **Layer 1: the public API**, generic code instantiated in the user's crate: `Shared<T>`
//! (`shared`), `racer::check` (`check`), the std look-alikes of `thread` and `sync/` (one file
//! per primitive). Each hands an access or a synchronisation to the layers below in one call,
//! so that the work runs in racer-core's optimised code.
//!
//! May import: every layer below (`shadow`, `deadlock`, `reporting`, `process`, `runtime`,
//! `config`, `provenance`, `model`, `report`, `base`). Invariant: the public items keep std's
//! names and signatures (see CONTRACT.md), and a primitive keeps its detector part in one
//! `runtime::sync_object::SyncObject` (atomics: `AtomicSync`).

pub mod annotate;
pub mod check;
pub mod explore;
pub mod foreign_lock;
pub mod shared;
pub mod sync;
pub mod thread;
