pub mod access;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod cfi_walk;
pub mod stack;
pub mod sync_event;
pub mod thread_ref;
