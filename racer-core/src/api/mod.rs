pub mod check;
pub mod shared;
pub mod sync;
pub mod thread;
