pub mod algorithm;
pub mod clock;
