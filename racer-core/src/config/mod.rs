pub mod options;
pub mod suppressions;
