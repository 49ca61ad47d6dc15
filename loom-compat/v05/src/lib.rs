//! racer's stand-in for loom 0.5: loom 0.5's API is loom 0.7's for everything a crate's tests
//! use (`cell`, `sync`, `thread`, `model`, `lazy_static!`, ...), so this is the 0.7 stand-in
//! re-exported under loom 0.5's version. Its `checkpoint` feature is accepted; the builder's
//! checkpoint fields are there and change nothing, as in the 0.7 stand-in.

pub use loom07::*;
