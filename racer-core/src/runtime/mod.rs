pub mod stats;
pub mod sync_clock;
pub mod thread_state;
