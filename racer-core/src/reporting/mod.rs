pub mod output;
pub mod sink;
