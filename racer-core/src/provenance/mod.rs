pub mod access;
pub mod stack;
pub mod sync_event;
pub mod thread_ref;
