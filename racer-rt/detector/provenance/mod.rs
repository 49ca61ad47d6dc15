//! **Provenance**, what a report says about an access besides its segment: the stack
//! depot (`stack/`: capture, interning, resolution), threads' names and spawn sites
//! (`thread_ref`), synchronisation events (`sync_event`), the record an access leaves in a cell
//! (`access`), the sets of locks a thread held at an access (`held_locks`), and the atomics'
//! loads and stores a report pairs to name a Relaxed hand-off (`atomic_log`).
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: ids and handles here (`StackId`,
//! `SyncEventId`, `ThreadRef`) stay valid for as long as any record holds them.

pub mod access;
pub mod atomic_log;
pub mod held_locks;
pub mod stack;
pub mod sync_event;
pub mod thread_ref;
