//! The guards of `racer::dashmap`'s maps, as `dashmap::mapref`: each holds a section of its
//! shard (`ReadHold`/`WriteHold`, dropped before dashmap's guard, so while the shard is locked).

pub mod entry;
pub mod multiple;
pub mod one;
