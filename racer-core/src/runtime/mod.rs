pub mod check_scope;
pub mod seen_key;
pub mod stats;
pub mod sync_clock;
pub mod sync_object;
pub mod thread_state;
