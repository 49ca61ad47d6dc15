pub mod message;
pub mod options;
pub mod suppressions;
