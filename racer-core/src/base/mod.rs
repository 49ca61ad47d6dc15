pub mod fast_hash;
pub mod lock;
pub mod platform;
pub mod sharded_map;
pub mod small_vec;
