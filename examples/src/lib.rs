//! racer's examples: see `examples/*.rs` (`cargo run -p racer-examples --example NAME --features race-detect`).
