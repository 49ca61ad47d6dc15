#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod cfi_walk;
mod capture;
mod depot;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod last_walk;
mod resolve;

#[cfg(target_os = "linux")]
pub use capture::stack_range;
pub use capture::{capture, capture_access, clear_walk_ceiling, set_walk_ceiling, unwind};
pub use depot::{after_sync, depot_len, set_history, site, StackId};
pub use resolve::resolve;
