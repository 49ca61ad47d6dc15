//! `loom::hint`: spin-loop hints. On real threads std's hint is the right one; it orders
//! nothing (as in loom).

pub use std::hint::{spin_loop, unreachable_unchecked};
