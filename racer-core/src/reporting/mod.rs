pub mod output;
pub mod deliver;
