#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod cfi_walk;
pub mod stack;
pub mod thread_ref;
