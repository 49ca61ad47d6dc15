//! The stack depot, inside `provenance`: `capture` (the cached CFI walk of `cfi_walk`, confirmed
//! per site by `last_walk`, on x86_64 Linux; the platform's unwinder elsewhere) -> `depot`
//! (interned return addresses, tagged with the access site and last sync event) -> `resolve`
//! (symbols, at report time only). Imports within the folder go in that order: `capture` and
//! `resolve` use `depot`, never the reverse.

mod capture;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod cfi_walk;
mod depot;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod last_walk;
mod resolve;

#[cfg(target_os = "linux")]
pub use capture::stack_range;
pub use capture::{
    capture, capture_access, capture_access_holding, clear_walk_ceiling, restore_walk_range, set_walk_ceiling, unwind,
    walk_range,
};
pub use depot::{after_sync, depot_len, held_locks, is_creation, set_history, site, StackId, CREATION};
pub use resolve::{
    cut_at_untracked_task, inside_last_std_arc_drop, resolve, resolve_shown, runs_rayon_job, Untracked, TASK_POLL,
};
