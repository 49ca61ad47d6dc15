//! The guards of `racer::dashmap`'s sets, as `dashmap::setref`: over the map's guards.

pub mod multiple;
pub mod one;
